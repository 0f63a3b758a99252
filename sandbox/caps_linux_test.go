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

// bwrap's /tmp and /dev/shm, held in memory, are bounded, and nothing can
// be made in /dev, held in memory too.
func TestBwrapTmpBounded(t *testing.T) {
	ws, _ := dirs(t)
	s := isolated(t, Config{Dir: ws})
	for _, dir := range []string{"/tmp", "/dev/shm"} {
		res := run(t, s, "stat -f -c '%b %S' "+dir)
		var blocks, size int64
		if _, err := fmt.Sscan(res.Output, &blocks, &size); err != nil || blocks*size != tmpSize {
			t.Errorf("%s holds %d blocks of %d bytes (%v), want %d bytes in all: %s", dir, blocks, size, err, tmpSize, res.Output)
		}
	}
	res := run(t, s, "echo x > /dev/shm/x && echo shm-written; { echo x > /dev/big; } 2>/dev/null || echo dev-refused; echo x > /dev/null && echo null-written")
	if want := "shm-written\ndev-refused\nnull-written\n"; !strings.HasSuffix(res.Output, want) {
		t.Errorf("writing in /dev: %q, want it to end with %q", res.Output, want)
	}
}
