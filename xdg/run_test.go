package xdg

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunDir: the folders of runs of processes that are gone are removed;
// this process's, and what is not such a folder, stay; the run's own
// folder is named for this process, and not made.
func TestRunDir(t *testing.T) {
	dir := t.TempDir()
	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{
		fmt.Sprintf("%d-1", gone.Process.Pid): false,
		fmt.Sprintf("%d-2", os.Getpid()):      true,
		"notes":                               true,
		fmt.Sprintf("%d-x", gone.Process.Pid): false,
	}
	for name := range names {
		if err := os.MkdirAll(filepath.Join(dir, name, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	run := RunDir(dir)
	for name, stays := range names {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != stays {
			t.Errorf("%s: stays %v, want %v (%v)", name, err == nil, stays, err)
		}
	}
	if filepath.Dir(run) != dir || !strings.HasPrefix(filepath.Base(run), fmt.Sprintf("%d-", os.Getpid())) {
		t.Errorf("RunDir = %s", run)
	}
	if _, err := os.Stat(run); !os.IsNotExist(err) {
		t.Errorf("RunDir made its folder: %v", err)
	}
}
