//go:build !darwin

package sandbox

import (
	"context"
	"errors"
	"os/exec"
)

// seatbeltInstalled reports false: Seatbelt is macOS's.
func seatbeltInstalled() bool { return false }

func (s *Sandbox) probeSeatbelt(context.Context) string {
	return "Seatbelt (sandbox-exec) is a macOS feature"
}

func (s *Sandbox) seatbeltCommand(context.Context, Command) (*exec.Cmd, func(), error) {
	return nil, nil, errors.New("sandbox-exec (Seatbelt) exists only on macOS")
}
