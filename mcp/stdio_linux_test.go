package mcp

import (
	"context"
	"testing"
)

// The programs a server's program started end when it ends, though it
// ends cleanly: when its input is closed, and by itself.
func TestCleanEndEndsChildren(t *testing.T) {
	for _, tt := range []struct{ name, then string }{
		{"at close", "read -r line\nexit 0"},
		{"by itself", "exit 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pidFile := t.TempDir() + "/child"
			ss := Start(context.Background(), []Server{shServer("sleep 300 </dev/null >/dev/null & echo $! > " + pidFile + "\n" + tt.then)})
			defer ss.Close()
			pid := childPid(t, pidFile)
			if tt.name == "at close" {
				// Its input closed, as Close closes it, but not killed,
				// as Close kills it when it does not end.
				sc := ss.clients[0].conn.(*stdioConn)
				sc.in.Close()
				<-sc.exited
			}
			if !ended(pid) {
				t.Error("the child runs on after its server ended")
			}
		})
	}
}
