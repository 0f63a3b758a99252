package sandbox

import (
	"context"
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
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = s.cfg.Dir
	cmd.Env = s.env("")
	return cmd, func() {}, nil
}
