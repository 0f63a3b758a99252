//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
)

// launchVar, set in its environment, makes a program that calls Launch
// first the sandbox's launcher.
const launchVar = "HARNESS_SANDBOX_LAUNCH"

// Launch does nothing here, unless the program was started as the
// sandbox's launcher, which only Linux does: then it returns an error.
// See the Linux version.
func Launch() error {
	if os.Getenv(launchVar) == "" {
		return nil
	}
	return errors.New("sandbox launcher: Landlock is a Linux feature")
}

// landlock is Linux's: elsewhere it cannot run.
type landlock struct{}

func (*landlock) name() string { return "Landlock" }

func (*landlock) auto() bool { return false }

func (*landlock) installed(*Sandbox) bool { return false }

func (*landlock) probe(context.Context, *Sandbox) string {
	return "Landlock is a Linux feature"
}

func (*landlock) command(context.Context, *Sandbox, Command) (*exec.Cmd, func(), error) {
	return nil, nil, errors.New("the Landlock sandbox exists only on Linux")
}
