package sandbox

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// reaper makes this process, once, the reaper of its descendants
// (PR_SET_CHILD_SUBREAPER): a process that a command started and that
// outlived its parent is then re-parented here, not to init, and
// killOrphans finds it, even when it left the command's session with
// setsid, where killing the command's process group does not reach.
var reaper sync.Once

func becomeReaper() {
	reaper.Do(func() { unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

// killOrphans kills, with their process groups, the children of this
// process that are in another session than its own: processes a command
// left behind in a session of their own, which came here when their
// parent ended. What this process started itself outside the sandbox
// runs in its session, and is left alone. It returns the ids it killed,
// to reap.
func killOrphans() []int {
	own, err := unix.Getsid(0)
	if err != nil {
		return nil
	}
	var found []int
	for _, pid := range children() {
		if sid, err := unix.Getsid(pid); err == nil && sid != own {
			found = append(found, pid)
		}
	}
	for _, pid := range found {
		if pgid, err := unix.Getpgid(pid); err == nil && pgid > 1 {
			unix.Kill(-pgid, unix.SIGKILL)
		}
		unix.Kill(pid, unix.SIGKILL)
	}
	return found
}

// reap waits for the processes pids, children of this process, to end,
// until deadline at most: one stuck in the kernel stays a zombie until a
// later sweep.
func reap(pids []int, deadline time.Time) {
	for len(pids) > 0 && time.Now().Before(deadline) {
		left := pids[:0]
		for _, pid := range pids {
			var ws unix.WaitStatus
			if got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil); got == 0 && err == nil {
				left = append(left, pid)
			}
		}
		pids = left
		if len(pids) > 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// children returns the ids of this process's children: those /proc lists
// for each of its threads (an orphan comes to the main thread, but a
// process made with CLONE_PARENT is the child of whichever thread started
// the command), or, where /proc does not list children, every process
// whose parent it is.
func children() []int {
	var out []int
	tasks, err := os.ReadDir("/proc/self/task")
	listed := false
	for _, t := range tasks {
		data, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		listed = true
		for _, field := range bytes.Fields(data) {
			if pid, err := strconv.Atoi(string(field)); err == nil {
				out = append(out, pid)
			}
		}
	}
	if err == nil && listed {
		return out
	}
	self := os.Getpid()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if parentOf(pid) == self {
			out = append(out, pid)
		}
	}
	return out
}

// parentOf returns the id of pid's parent, from /proc/PID/stat, or 0.
func parentOf(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The name, in parentheses, may hold anything: the fields after its
	// last ) are the state, then the parent.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0
	}
	fields := bytes.Fields(data[i+1:])
	if len(fields) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(string(fields[1]))
	return ppid
}
