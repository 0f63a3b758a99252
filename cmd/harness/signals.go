package main

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// stopOnSignal returns a context that is cancelled when the harness is
// asked to end (SIGTERM, or SIGHUP when its terminal goes away; on
// Windows, the console closing), so that the turn and the commands it runs
// end, with everything they started: on macOS nothing else would end
// them. The function returned gives the exit status: code, or 128 plus
// the signal's number when one came. A second signal ends the harness at
// once.
func stopOnSignal(parent context.Context) (context.Context, func(code int) int) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	var got atomic.Int32
	go func() {
		sig := <-sigs
		signal.Stop(sigs)
		if s, ok := sig.(syscall.Signal); ok {
			got.Store(int32(s))
		}
		cancel()
	}()
	return ctx, func(code int) int {
		if s := got.Load(); s != 0 {
			return 128 + int(s)
		}
		return code
	}
}
