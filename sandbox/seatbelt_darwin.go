package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// sandboxExec is the program that runs a command under a Seatbelt
// profile. It is taken from where macOS keeps it, never from the PATH.
const sandboxExec = "/usr/bin/sandbox-exec"

func (seatbelt) auto() bool { return true }

// installed reports whether sandbox-exec is there.
func (seatbelt) installed(*Sandbox) bool {
	_, err := os.Stat(sandboxExec)
	return err == nil
}

// probe returns why commands cannot run under Seatbelt, or "":
// sandbox-exec must be there and run a command under the profile.
func (sb seatbelt) probe(ctx context.Context, s *Sandbox) string {
	if !sb.installed(s) {
		return sandboxExec + " is missing"
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd, cleanup, err := sb.command(ctx, s, Command{Script: "true"})
	if err != nil {
		return "Seatbelt cannot be set up: " + err.Error()
	}
	defer cleanup()
	if out, err := cmd.CombinedOutput(); err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		return "Seatbelt fails here: " + msg
	}
	return ""
}

// command returns the command that runs c under sandbox-exec, with the
// profile of c (Policy.Profile) in a file and a private temporary folder,
// both of which cleanup removes.
func (sb seatbelt) command(ctx context.Context, s *Sandbox, c Command) (*exec.Cmd, func(), error) {
	tmp, err := os.MkdirTemp("", "harness-cmd-")
	if err != nil {
		return nil, nil, err
	}
	removeTmp := func() { os.RemoveAll(tmp) }
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real
	}
	text, err := sb.policy(s, c, tmp).Profile()
	if err != nil {
		removeTmp()
		return nil, nil, err
	}
	f, err := os.CreateTemp("", "harness-profile-*.sb")
	if err != nil {
		removeTmp()
		return nil, nil, err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	cleanup := func() { os.Remove(f.Name()); removeTmp() }
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	cmd := exec.CommandContext(ctx, sandboxExec, append([]string{"-f", f.Name()}, s.shellArgs(c.Script, false)...)...)
	cmd.Dir = s.cfg.Dir
	cmd.Env = s.env(tmp)
	return cmd, cleanup, nil
}
