package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// stopOnSignal returns a context that is cancelled when the harness is
// asked to end (SIGTERM, or SIGHUP when its terminal goes away; on
// Windows, the console closing), so that the turn and the commands it runs
// end, with everything they started: on macOS nothing else would end
// them. The context's cause is a *signalled, so that whatever reports how
// the run ended (the answer line of --output json) gives the exit status
// the process ends with. The function returned gives that status: code,
// or 128 plus the signal's number when one came. A second signal ends the
// harness at once.
func stopOnSignal(parent context.Context) (context.Context, func(code int) int) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-sigs
		signal.Stop(sigs)
		s, _ := sig.(syscall.Signal)
		cancel(&signalled{sig: s})
	}()
	return ctx, func(code int) int {
		var s *signalled
		if errors.As(context.Cause(ctx), &s) {
			return s.code()
		}
		return code
	}
}

// signalled is why a run ended when a signal asked it to: a cancellation,
// with the exit status that says which signal.
type signalled struct{ sig syscall.Signal }

func (s *signalled) Error() string { return fmt.Sprintf("stopped: %v", s.sig) }

func (s *signalled) Unwrap() error { return context.Canceled }

// code is the exit status: 128 plus the signal's number.
func (s *signalled) code() int { return 128 + int(s.sig) }
