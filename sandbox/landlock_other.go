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

func (s *Sandbox) probeLandlock(context.Context) string {
	return "Landlock is a Linux feature"
}

func (s *Sandbox) landlockCommand(context.Context, Command) (*exec.Cmd, func(), error) {
	return nil, nil, errors.New("the Landlock sandbox exists only on Linux")
}
