//go:build unix

package main

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// Asked to end, the harness cancels what it runs, so that the commands
// running end with it, and exits with 128 plus the signal's number.
func TestStopOnSignal(t *testing.T) {
	ctx, exitCode := stopOnSignal(context.Background())
	if got := exitCode(3); got != 3 {
		t.Errorf("exit status without a signal: %d, want 3", got)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGTERM did not cancel the context")
	}
	if got := exitCode(0); got != 128+int(syscall.SIGTERM) {
		t.Errorf("exit status after SIGTERM: %d, want %d", got, 128+int(syscall.SIGTERM))
	}
}
