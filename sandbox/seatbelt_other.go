//go:build !darwin

package sandbox

import (
	"context"
	"errors"
	"os/exec"
)

// auto reports false: Seatbelt is macOS's, and elsewhere cannot run.
func (seatbelt) auto() bool { return false }

func (seatbelt) installed(*Sandbox) bool { return false }

func (seatbelt) probe(context.Context, *Sandbox) string {
	return "Seatbelt (sandbox-exec) is a macOS feature"
}

func (seatbelt) command(context.Context, *Sandbox, Command) (*exec.Cmd, func(), error) {
	return nil, nil, errors.New("sandbox-exec (Seatbelt) exists only on macOS")
}
