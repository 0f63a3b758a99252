package mcp

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
			var data []byte
			for range 50 {
				if data, _ = os.ReadFile(pidFile); strings.HasSuffix(string(data), "\n") {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatalf("the child's pid: %v", err)
			}
			if tt.name == "at close" {
				// Its input closed, as Close closes it, but not killed,
				// as Close kills it when it does not end.
				sc := ss.clients[0].conn.(*stdioConn)
				sc.in.Close()
				<-sc.exited
			}
			for range 50 {
				if syscall.Kill(pid, 0) != nil {
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
			syscall.Kill(pid, syscall.SIGKILL)
			t.Error("the child runs on after its server ended")
		})
	}
}
