package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A command keeps no capability in either sandbox of Linux, even when the
// harness runs as root: with them it could undo the mounts that hide
// secrets, remount / writable, or set the host's name or clock. (With
// the None tier it runs as the harness does, and has what it has.)
func TestNoCapabilities(t *testing.T) {
	const sets = "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status"
	t.Run("bwrap", func(t *testing.T) {
		ws, _ := dirs(t)
		res := run(t, isolated(t, Config{Dir: ws}), sets)
		if res.Exit != 0 {
			t.Fatalf("exit %d: %s", res.Exit, res.Output)
		}
		checkNoCaps(t, res.Output)
	})
	t.Run("landlock", func(t *testing.T) {
		// Landlock keeps a command from /proc/self: its status is read
		// from here, while it waits.
		ws, _ := dirs(t)
		s := landlocked(t, Config{Dir: ws})
		done := make(chan error, 1)
		go func() {
			_, err := s.Run(context.Background(), Command{Script: "echo $$ > pid.tmp && mv pid.tmp pid; while [ ! -e go ]; do sleep 0.02; done"})
			done <- err
		}()
		defer func() {
			os.WriteFile(filepath.Join(ws, "go"), nil, 0o644)
			if err := <-done; err != nil {
				t.Error(err)
			}
		}()
		var pid []byte
		for deadline := time.Now().Add(10 * time.Second); len(pid) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			pid, _ = os.ReadFile(filepath.Join(ws, "pid"))
		}
		status, err := os.ReadFile(fmt.Sprintf("/proc/%s/status", strings.TrimSpace(string(pid))))
		if err != nil {
			t.Fatal(err)
		}
		checkNoCaps(t, string(status))
	})
}

// checkNoCaps fails t unless status, lines of /proc/PID/status, shows the
// five capability sets all empty.
func checkNoCaps(t *testing.T, status string) {
	t.Helper()
	n := 0
	for _, l := range strings.Split(status, "\n") {
		k, v, _ := strings.Cut(l, ":")
		if !strings.HasPrefix(k, "Cap") {
			continue
		}
		n++
		if v = strings.TrimSpace(v); strings.Trim(v, "0") != "" {
			t.Errorf("%s is %s, want none", k, v)
		}
	}
	if n != 5 {
		t.Errorf("%d capability sets, want 5, in:\n%s", n, status)
	}
}

// bwrap's /tmp, held in memory, is bounded.
func TestBwrapTmpBounded(t *testing.T) {
	ws, _ := dirs(t)
	s := isolated(t, Config{Dir: ws})
	res := run(t, s, "stat -f -c '%b %S' /tmp")
	var blocks, size int64
	if _, err := fmt.Sscan(res.Output, &blocks, &size); err != nil || blocks*size != tmpSize {
		t.Errorf("/tmp holds %d blocks of %d bytes (%v), want %d bytes in all: %s", blocks, size, err, tmpSize, res.Output)
	}
}
