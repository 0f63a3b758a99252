package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cgroups holds each command in a control group of its own, made in the
// group this process is in, whose pids controller bounds the processes
// and threads in it, all of them at once, whoever runs them: the bound
// that contains a fork bomb. The system offers one where this process may
// make groups in its own: on cgroup v2 one delegated to the user, which
// to the kernel means that the user may write it (as systemd makes a
// service or scope with Delegate=yes, and a container's root group is to
// root), and whose pids controller can be enabled for the groups below
// it; on cgroup v1 a pids hierarchy whose group of this process is
// writable (as root's is).
type cgroups struct {
	dir string // the group of this process, where commands' groups are made
	v2  bool
	n   atomic.Int64 // groups made, for their names
}

// findCgroups returns the control groups commands can be held in, or nil
// where the system offers none to this process.
func findCgroups() *cgroups {
	self, err1 := os.ReadFile("/proc/self/cgroup")
	mounts, err2 := os.ReadFile("/proc/self/mountinfo")
	if err1 != nil || err2 != nil {
		return nil
	}
	for _, v2 := range []bool{true, false} {
		dir := cgroupDir(string(self), string(mounts), v2)
		if dir == "" {
			continue
		}
		c := &cgroups{dir: dir, v2: v2}
		if v2 && !c.enablePids() {
			continue
		}
		// Only making one tells whether this process may.
		g, err := c.make(1)
		if err != nil {
			continue
		}
		g.remove()
		return c
	}
	return nil
}

// cgroupDir returns the folder of this process's group in the cgroup v2
// hierarchy (v2) or in the v1 hierarchy of the pids controller, from
// /proc/self/cgroup (self) and /proc/self/mountinfo (mounts), or "" when
// there is none.
func cgroupDir(self, mounts string, v2 bool) string {
	var path string
	for _, line := range strings.Split(self, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if v2 && parts[0] == "0" && parts[1] == "" || !v2 && slices.Contains(strings.Split(parts[1], ","), "pids") {
			path = parts[2]
			break
		}
	}
	if path == "" {
		return ""
	}
	for _, line := range strings.Split(mounts, "\n") {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		before, after, ok := strings.Cut(line, " - ")
		fields, tail := strings.Fields(before), strings.Fields(after)
		if !ok || len(fields) < 5 || len(tail) < 3 || fields[3] != "/" {
			continue
		}
		switch {
		case v2 && tail[0] == "cgroup2":
		case !v2 && tail[0] == "cgroup" && slices.Contains(strings.Split(tail[2], ","), "pids"):
		default:
			continue
		}
		return filepath.Join(unescapeMount(fields[4]), filepath.FromSlash(path))
	}
	return ""
}

// unescapeMount undoes the octal escapes of a path in mountinfo (\040 for
// a space).
func unescapeMount(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// enablePids makes the pids controller of cgroup v2 work in the groups
// below this process's, and reports whether it does. The kernel allows
// it in a group that holds processes, as pids is a threaded controller;
// a memory controller it would not allow there.
func (c *cgroups) enablePids() bool {
	control, err := os.ReadFile(filepath.Join(c.dir, "cgroup.subtree_control"))
	if err != nil {
		return false
	}
	if slices.Contains(strings.Fields(string(control)), "pids") {
		return true
	}
	available, err := os.ReadFile(filepath.Join(c.dir, "cgroup.controllers"))
	if err != nil || !slices.Contains(strings.Fields(string(available)), "pids") {
		return false
	}
	return os.WriteFile(filepath.Join(c.dir, "cgroup.subtree_control"), []byte("+pids"), 0) == nil
}

// group is the control group of one command.
type group struct {
	dir, parent string
	v2          *os.File      // on cgroup v2, the group's folder, open, to start the command in
	removed     chan struct{} // closed by remove
}

// make returns a new group that holds at most procs processes and
// threads.
func (c *cgroups) make(procs int) (*group, error) {
	dir, err := c.mkdir()
	if err != nil {
		return nil, fmt.Errorf("making a control group: %w", err)
	}
	g := &group{dir: dir, parent: c.dir, removed: make(chan struct{})}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(procs)), 0); err != nil {
		g.remove()
		return nil, fmt.Errorf("limiting the processes of a control group: %w", err)
	}
	if c.v2 {
		f, err := os.Open(dir)
		if err != nil {
			g.remove()
			return nil, fmt.Errorf("opening a control group: %w", err)
		}
		g.v2 = f
	}
	return g, nil
}

// mkdir makes the folder of a new group, named after this process. A
// harness that was killed leaves its groups behind, and a later one can
// get its process id: a leftover of that name is removed (the kernel
// removes only an empty group, so one still in use stays), or the next
// name taken.
func (c *cgroups) mkdir() (string, error) {
	var err error
	for range 8 {
		dir := filepath.Join(c.dir, fmt.Sprintf("harness-%d-%d", os.Getpid(), c.n.Add(1)))
		if err = os.Mkdir(dir, 0o755); !errors.Is(err, fs.ErrExist) {
			return dir, err
		}
		if os.Remove(dir) == nil {
			if err = os.Mkdir(dir, 0o755); !errors.Is(err, fs.ErrExist) {
				return dir, err
			}
		}
	}
	return "", err
}

// start starts cmd inside the group, so that its first process is in it
// before it runs anything, and everything it starts after. On cgroup v2
// the kernel starts it there (clone3 with CLONE_INTO_CGROUP); on v1, which
// has no such way but places threads one by one, a thread of this
// process of its own moves into the group, starts it from there (a new
// process is in the group of the thread that made it), and moves back.
// That thread must live on while the command runs: the death signal that
// ends a command with the harness comes when the thread that started it
// ends. One that cannot move back waits until the group is removed.
func (g *group) start(cmd *exec.Cmd) error {
	if g.v2 != nil {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = new(syscall.SysProcAttr)
		}
		cmd.SysProcAttr.UseCgroupFD = true
		cmd.SysProcAttr.CgroupFD = int(g.v2.Fd())
		return cmd.Start()
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		tid := []byte(strconv.Itoa(unix.Gettid()))
		if err := os.WriteFile(filepath.Join(g.dir, "tasks"), tid, 0); err != nil {
			runtime.UnlockOSThread()
			done <- fmt.Errorf("entering a control group: %w", err)
			return
		}
		err := cmd.Start()
		back := os.WriteFile(filepath.Join(g.parent, "tasks"), tid, 0)
		done <- err
		if back != nil && err == nil {
			<-g.removed // and the locked thread ends with this goroutine
			return
		}
		runtime.UnlockOSThread()
	}()
	return <-done
}

// remove removes the group once what was in it has ended: that takes
// the kernel a moment after the processes were killed.
func (g *group) remove() {
	close(g.removed)
	if g.v2 != nil {
		g.v2.Close()
	}
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		err := os.Remove(g.dir)
		if err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			return
		}
	}
}
