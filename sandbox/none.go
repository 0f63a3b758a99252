package sandbox

import (
	"context"
	"fmt"
	"harness/fence"
	"os/exec"
)

// none runs commands with the shell alone: no sandbox, the guard and the
// limits only. Mode Auto ends here when no tier of this system works.
type none struct{}

func (none) name() string { return string(None) }

func (none) auto() bool { return false }

func (none) installed(*Sandbox) bool { return false }

// probe has nothing to find out: the shell runs anywhere.
func (none) probe(context.Context, *Sandbox) string { return "" }

func (none) command(ctx context.Context, s *Sandbox, c Command) (*exec.Cmd, func(), error) {
	args := s.shellArgs(c.Script, false)
	// Never a shell a folder of the workspace on the PATH holds: it
	// would run whatever the model put there, unchecked.
	shell, err := fence.LookPath(args[0], s.cfg.Dir)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	cmd := exec.CommandContext(ctx, shell, args[1:]...)
	cmd.Dir = s.cfg.Dir
	cmd.Env = s.env("")
	return cmd, func() {}, nil
}
