package mcp

import (
	"context"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// The program of a server is in a session of its own: the Ctrl-C that
// the terminal sends to the harness's process group, to stop a turn, does
// not reach it.
func TestOwnSession(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ss := Start(context.Background(), []Server{{Name: "t", Command: exe, Env: map[string]string{"HARNESS_MCPTEST": "1"}}})
	defer ss.Close()
	if err := ss.Status()[0].Err; err != nil {
		t.Fatal(err)
	}
	pid := ss.clients[0].conn.(*stdioConn).cmd.Process.Pid
	sid, err := unix.Getsid(pid)
	if err != nil {
		t.Fatal(err)
	}
	if ours, _ := unix.Getsid(0); sid == ours || sid != pid {
		t.Errorf("the server's session is %d (ours %d), want its own, %d", sid, ours, pid)
	}
}
