package xdg

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// RunDir returns the folder of this run in dir, a folder of the state
// folder that every run keeps a folder of its own in (the long outputs,
// the copies for /undo). It does not make it. The folders there that runs
// of processes now gone left behind (a harness killed outright cannot
// remove its own) are removed first: each is named PID-TIME by the
// process that made it, so that runs at the same time never share one.
func RunDir(dir string) string {
	sweepRuns(dir)
	return filepath.Join(dir, fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano()))
}

// sweepRuns removes the folders of runs in dir that processes now gone
// left behind.
func sweepRuns(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		id, _, ok := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(id)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || !e.IsDir() {
			continue
		}
		if processGone(pid) {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}
