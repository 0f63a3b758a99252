package mcp

import (
	"context"
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"harness/sandbox"
)

// The program of a server is in a process group of its own, in the
// harness's session: the Ctrl-C that the terminal sends to the harness's
// process group, to stop a turn, does not reach it, and a command's
// sweep of what was left behind in other sessions leaves it running.
func TestOwnGroup(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ss := Start(context.Background(), []Server{{Name: "t", Command: exe, Env: map[string]string{"HARNESS_MCPTEST": "1"}}})
	defer ss.Close()
	if err := ss.Status()[0].Err; err != nil {
		t.Fatal(err)
	}
	sc := ss.clients[0].conn.(*stdioConn)
	pid := sc.cmd.Process.Pid
	pgid, err := unix.Getpgid(pid)
	if err != nil {
		t.Fatal(err)
	}
	sid, _ := unix.Getsid(pid)
	if ours, _ := unix.Getsid(0); pgid != pid || sid != ours {
		t.Errorf("the server's group is %d and session %d (ours %d), want its own group, %d, in our session", pgid, sid, ours, pid)
	}
	box, err := sandbox.New(sandbox.Config{Mode: sandbox.None, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := box.Run(context.Background(), sandbox.Command{Script: "true"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.clients[0].caller("echo")(context.Background(), map[string]any{"text": "still here"}); err != nil {
		t.Errorf("after a command ran: %v (the server %s)", err, sc.why())
	}
}
