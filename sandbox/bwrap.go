package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"harness/fence"
)

// bwrap runs commands inside bubblewrap, in namespaces of their own (see
// args): Linux's fullest sandbox.
type bwrap struct {
	// nouserns is true when bwrap cannot make a user namespace here (a
	// setuid bwrap where the kernel forbids them): its commands then run
	// without one, and may make their own.
	nouserns bool
	// path is the bwrap program probe found, outside the workspace.
	path string
}

func (*bwrap) name() string { return "bubblewrap" }

func (*bwrap) auto() bool { return runtime.GOOS == "linux" }

// installed reports whether the bwrap program is on the PATH, and keeps
// where it is for the probe: until the first command, nothing the tools do
// can change what the PATH finds outside the workspace.
func (*bwrap) installed(s *Sandbox) bool {
	path, err := fence.LookPath(s.cfg.Bwrap, s.cfg.Dir)
	if err != nil {
		return false
	}
	s.bwrapAt.Store(&path)
	return true
}

// lookPath returns where bwrap is: where installed found it, or else
// where the PATH finds it now, outside the workspace.
func (*bwrap) lookPath(s *Sandbox) (string, error) {
	if found := s.bwrapAt.Load(); found != nil {
		return *found, nil
	}
	return fence.LookPath(s.cfg.Bwrap, s.cfg.Dir)
}

// probe returns why bwrap cannot run a command, or "": it must be
// installed and run one, with a user namespace of its own where it can,
// else without.
func (b *bwrap) probe(ctx context.Context, s *Sandbox) string {
	if runtime.GOOS != "linux" {
		return "bubblewrap runs only on Linux"
	}
	path, err := b.lookPath(s)
	if err != nil {
		return "bwrap is not installed (Debian and Ubuntu: apt-get install bubblewrap)"
	}
	b.path = path
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	run := func() ([]byte, error) {
		args, files, err := b.args(s, Command{Script: "true"})
		if err != nil {
			return []byte("bwrap cannot be set up: " + err.Error()), err
		}
		defer closeAll(files)
		cmd := exec.CommandContext(ctx, path, args...)
		cmd.Env = s.env("/tmp")
		cmd.ExtraFiles = files
		return cmd.CombinedOutput()
	}
	out, err := run()
	if err != nil && ctx.Err() == nil {
		// Without a user namespace of its own (which forbids commands
		// to make more) rather than not at all.
		b.nouserns = true
		out, err = run()
	}
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		return "bwrap fails here: " + msg
	}
	return ""
}

// command returns the command that runs c inside bwrap, and what closes
// the files it is given.
func (b *bwrap) command(ctx context.Context, s *Sandbox, c Command) (*exec.Cmd, func(), error) {
	args, files, err := b.args(s, c)
	if err != nil {
		return nil, nil, err
	}
	path := b.path
	if path == "" { // not probed
		if path, err = fence.LookPath(s.cfg.Bwrap, s.cfg.Dir); err != nil {
			closeAll(files)
			return nil, nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = s.cfg.Dir
	cmd.Env = s.env("/tmp")
	cmd.ExtraFiles = files
	return cmd, func() { closeAll(files) }, nil
}

// tmpSize bounds, in bytes, the /tmp that bwrap gives a command, which
// is held in memory, and so its /dev/shm.
const tmpSize = 512 << 20

// args returns the arguments of bwrap that run c, and the files whose
// content bwrap shows at the paths c replaces and the seccomp filter that
// keeps c from making Unix sockets (see unixSocketFilter), to be given to
// it as descriptors 3 and up; the caller closes them.
//
// Mounts are made in order, each over those before it: the system
// read-only; the private folders (see private) as empty folders, with the
// toolchains in them (toolDirs) and what c keeps read-only outside the
// workspace shown again, read-only; the workspace and the paths of
// Config.Write, writable; inside them, what c keeps read-only; the files
// c replaces; what is hidden; and last the private folders made
// read-only, once nothing more needs to be made in them. A private folder
// inside the workspace or a path of Write is hidden after those are
// mounted, as what is hidden is; one that is the workspace or a path of
// Write is left as it is.
func (b *bwrap) args(s *Sandbox, c Command) ([]string, []*os.File, error) {
	dir := s.cfg.Dir
	// Every capability is dropped: run by root, bwrap would otherwise
	// leave them all, and the command could undo its mounts (unmount
	// what hides a secret, remount / writable). In a user namespace of
	// its own, the command may make no other, where it would get them
	// back.
	args := []string{"--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL"}
	if !b.nouserns {
		args = append(args, "--unshare-user", "--disable-userns")
	}
	args = append(args,
		"--ro-bind", "/", "/",
		// /dev, a folder in memory that holds the devices, is made
		// read-only once /dev/shm, in memory too, is mounted in it with
		// the size of /tmp: else a command could fill the machine's
		// memory through either.
		"--dev", "/dev",
		"--size", strconv.Itoa(tmpSize), "--tmpfs", "/dev/shm",
		"--remount-ro", "/dev",
		"--proc", "/proc",
		"--size", strconv.Itoa(tmpSize), "--tmpfs", "/tmp",
	)
	writable := append([]string{dir}, s.cfg.Write...)
	var shut, late []string // private folders shut first, and those hidden late
	for _, p := range s.private() {
		switch {
		case slices.Contains(writable, p):
			continue // the workspace, or a path the user made writable: theirs to see
		case within(writable, p):
			late = append(late, p)
			continue
		}
		shut = append(shut, p)
		args = append(args, "--size", strconv.Itoa(privateSize), "--tmpfs", p)
	}
	shown := slices.Clone(writable) // what of the private folders is seen again
	for _, t := range s.toolDirs() {
		if (within(shut, t) || slices.Contains(s.cfg.Read, t)) && !within(shown, t) {
			args, shown = roBindExisting(args, shown, t) // what the user named, in /tmp too
		}
	}
	for _, p := range c.ReadOnly {
		if within(shut, p) && !fence.Within(dir, p) {
			args, shown = roBindExisting(args, shown, p)
		}
	}
	args = append(args, "--bind", dir, dir)
	for _, w := range s.cfg.Write {
		args = append(args, "--bind", w, w)
	}
	for _, p := range c.ReadOnly {
		if _, err := os.Lstat(p); err == nil && fence.Within(dir, p) {
			args = append(args, "--ro-bind", p, p)
		}
	}
	var files []*os.File
	for _, f := range c.Replace {
		if fi, err := os.Stat(f.Path); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		file, err := dataFile(f.Data)
		if err != nil {
			closeAll(files)
			return nil, nil, err
		}
		files = append(files, file)
		args = append(args, "--ro-bind-data", strconv.Itoa(2+len(files)), f.Path)
	}
	for _, p := range append(s.hidden(c), late...) {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
		case within(shut, p) && !within(shown, p):
			// out of sight already
		case fi.IsDir():
			args = append(args, "--tmpfs", p, "--remount-ro", p)
		default:
			args = append(args, "--ro-bind", "/dev/null", p)
		}
	}
	for _, p := range shut {
		args = append(args, "--remount-ro", p)
	}
	filter, err := unixSocketFilter()
	if err == nil && filter != nil {
		var file *os.File
		if file, err = dataFile(filter); err == nil {
			files = append(files, file)
			args = append(args, "--seccomp", strconv.Itoa(2+len(files)))
		}
	}
	if err != nil {
		closeAll(files)
		return nil, nil, err
	}
	args = append(args, "--chdir", dir, "--")
	// A command whose processes no control group holds is held to the
	// limit of processes by RLIMIT_NPROC, which in a user namespace of
	// its own counts its processes alone (see procLimit).
	procs := !b.nouserns && s.groups == nil
	return append(args, s.shellArgs(c.Script, procs)...), files, nil
}

// privateSize bounds, in bytes, each empty folder bwrap puts over a
// private folder: it holds only the folders made for what is shown again.
const privateSize = 1 << 20

// roBindExisting appends to args a read-only bind of p at its place, and
// p to shown, when p exists.
func roBindExisting(args, shown []string, p string) ([]string, []string) {
	if _, err := os.Stat(p); err != nil {
		return args, shown
	}
	return append(args, "--ro-bind", p, p), append(shown, p)
}

// closeAll closes files.
func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}
