// Package sandbox runs the harness's bash commands: in the workspace, with a
// clean environment, no input, a time limit, a cap on output, on the
// size of any file written, on the memory each process takes and on the
// number of processes (see Config.MaxProcs), caches of their own (see
// Config.Caches), and with every process it started killed when
// the command ends, times out or is cancelled, so nothing it started lives
// on: on Linux and macOS its process group (on Linux it also dies with
// the harness, and what left the group for a session of its own is found
// and killed too, the harness being the reaper of its descendants), on
// Windows a job object that ends with the harness too.
// Close ends what is still running when the harness exits; macOS has no
// other way to end a command with the program that started it.
//
// With bubblewrap (bwrap) the command also runs in its own namespaces: it
// sees the filesystem read-only, an empty private /tmp and /dev/shm, both
// bounded, /dev read-only, the workspace
// writable at its own path, extra writable paths only when named, the
// home folders and the folders of services' sockets empty but for the
// toolchains in them (see private and toolDirs), known
// secret locations hidden, the paths a Command hides hidden, the paths it
// keeps read-only (the git directory) read-only, the files it replaces
// (the git configuration without credentials) replaced, no network, no
// Unix socket (see unixSocketFilter), its own process IDs, and it dies
// with the harness.
//
// With Landlock, the Linux security module that lets a process restrict
// itself, the command may read only the system's folders, the toolchains
// its environment names, the workspace and a private temporary folder;
// may write only the workspace (never what it keeps read-only) and that
// folder; may neither read nor write what it hides; may open no TCP
// connection where the kernel's Landlock can stop that (ABI 4 and later);
// and may make no Unix socket (see unixSocketFilter).
// Go cannot run code between fork and exec, so the command is started
// through a launcher, this program started again, whose main calls Launch
// first: Launch restricts the process and then replaces it with the
// command.
//
// On macOS, with Seatbelt, the system's sandbox that sandbox-exec applies,
// the command runs under a profile the harness writes for it (see
// Profile): it may read everything but the secret places, the shared
// temporary folders, what it hides and what is in the home folders (but
// for the toolchains); may write only the workspace (never
// what it keeps read-only) and a private temporary folder; and may use no
// network.
//
// Mode Auto uses, on Linux, bwrap where it works, else Landlock where the
// kernel has it; on macOS, Seatbelt; else, and on Windows, it runs the
// command with the limits alone. Fallback says why.
package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"harness/fence"
	"harness/gitdir"
)

// Mode says which sandbox commands run in.
type Mode string

const (
	Auto     Mode = "auto"     // the best this system has that works (see Preferred), else none
	Bwrap    Mode = "bwrap"    // bwrap or nothing (Linux)
	Landlock Mode = "landlock" // Landlock or nothing (Linux)
	Seatbelt Mode = "seatbelt" // sandbox-exec or nothing (macOS)
	None     Mode = "none"     // no sandbox; the guard and the limits only
)

// Preferred returns the sandbox mode Auto tries first on this system:
// Bwrap on Linux, Seatbelt on macOS, None where there is none (Windows).
func Preferred() Mode {
	if tiers := autoTiers(); len(tiers) > 0 {
		return tiers[0]
	}
	return None
}

// Defaults of a Config.
const (
	DefaultTimeout = 2 * time.Minute
	// DefaultMaxOutput is the output kept in memory, start and end, when a
	// Command has no Output writer to stream it to.
	DefaultMaxOutput = 1 << 20
	DefaultFlood     = 8 << 20 // bytes of output after which the command is stopped
	// DefaultMaxFileSize bounds the size of a file a command writes.
	DefaultMaxFileSize = 1 << 30
	// DefaultMaxMemory bounds the memory each process of a command may
	// take for its data: enough for a linker or a test of a large
	// program, not enough to make the machine swap for long.
	DefaultMaxMemory = 8 << 30
	// DefaultMaxProcs bounds the processes and threads of a command: a
	// build runs one compiler and a few dozen threads per core, a fork
	// bomb runs out of room.
	DefaultMaxProcs = 4096
)

// ErrUnavailable is wrapped by the error of Start when the sandbox asked
// for (bwrap, Landlock or Seatbelt) cannot run.
var ErrUnavailable = errors.New("the sandbox cannot run here")

// ErrClosed is returned by Run after Close.
var ErrClosed = errors.New("sandbox: closed")

// Config says how commands run.
type Config struct {
	Mode Mode
	// Dir is the workspace: the absolute folder commands run in, writable.
	Dir string
	// Write lists more paths the command may write, such as a build cache.
	Write []string
	// Read lists more paths the command may read where the sandbox shuts
	// what is around them, such as a toolchain in the home folder.
	Read []string
	// Caches is a folder for the caches of toolchains, such as one per
	// workspace in the harness's state folder; empty means none. Commands
	// get a subfolder of it for each cache they may fill (see cacheVars),
	// made by New, and may write it under every sandbox, as a path of
	// Write; the user's own caches stay as readable and unwritable as
	// before, so nothing a command does can change what the user's own
	// builds take from them. Nothing Hide lists may hold it.
	Caches string
	// Hide lists more paths to hide, besides those fence.SecretPlaces
	// lists.
	Hide []string
	// Home is the home folder whose secrets fence.SecretPlaces lists; empty
	// means the user's.
	Home string
	// Env is the environment of commands; nil means Env(os.Environ(), Dir),
	// of the environment at New, made when the first command needs it.
	Env []string
	// Timeout bounds one command; zero means DefaultTimeout.
	Timeout time.Duration
	// MaxOutput is how many bytes of output are kept, half from its start
	// and half from its end; zero means DefaultMaxOutput.
	MaxOutput int
	// Flood is how much output stops the command; zero means DefaultFlood.
	Flood int64
	// MaxFileSize bounds, in bytes, the size of any file a command writes
	// (RLIMIT_FSIZE, in steps of 1024 bytes); zero means
	// DefaultMaxFileSize.
	MaxFileSize int64
	// MaxMemory bounds, in bytes, the memory each process of a command
	// may take for its data (RLIMIT_DATA: its heap and the private
	// writable memory it maps, which is what allocating takes; address
	// space only reserved is not counted, so runtimes that reserve much
	// and use little still start), in steps of 1024 bytes; zero means
	// DefaultMaxMemory. A process that asks for more gets an error (a
	// failed malloc or mmap) and most programs end. On macOS the kernel
	// takes the limit but does not hold programs to it.
	MaxMemory int64
	// MaxProcs bounds the processes and threads of a command, all of
	// them at once; zero means DefaultMaxProcs. Past it, fork and
	// thread creation fail. See procLimit for what holds the bound on
	// each system; where nothing can, the time limit and the killing of
	// the command's processes still end what it started.
	MaxProcs int
	// Bwrap and Shell name the programs; empty means "bwrap" and "bash".
	Bwrap, Shell string
	// Launcher is the program that starts commands under Landlock: one
	// whose main calls Launch before anything else. Empty means this
	// program (os.Executable).
	Launcher string
}

// Command is one command line to run.
type Command struct {
	Script string
	// Hide lists paths to hide from this command only, such as the secret
	// files in the workspace. Ignored without a sandbox.
	Hide []string
	// ReadOnly lists paths this command may read but not change, such as
	// the git directory. Ignored without a sandbox.
	ReadOnly []string
	// Replace lists files this command sees with other content,
	// read-only, such as the git configuration without its credentials.
	// Ignored without bwrap: neither Landlock nor Seatbelt can show a file
	// other than it is.
	Replace []File
	// Git is the repository git uses in this command. Empty, it is the
	// workspace's own: the git directory wherever Dir's .git points, or
	// Dir's .git where there is none (where git init makes one). See
	// Repository.
	Git Repository
	// Output, when not nil, is given the whole output as it comes, stdout
	// and stderr interleaved, until it floods, and Result.Output is left
	// empty: nothing of it is kept in memory. An error of Output's does
	// not stop the command; Output keeps what to say of it.
	Output io.Writer
}

// Repository is a git directory and its work tree. Every command gets
// them as GIT_DIR and GIT_WORK_TREE, and the folder above the work tree
// as GIT_CEILING_DIRECTORIES: git then uses that repository, wherever
// in the workspace it runs, and never looks for another (a folder made
// to look like a git directory, or a repository above the workspace),
// whose configuration could name programs to run.
type Repository struct {
	Dir, WorkTree string
}

// File is a path and the content a command sees there.
type File struct {
	Path string
	Data []byte
}

// Result is what a command did.
type Result struct {
	// Output holds stdout and stderr as they were interleaved, cut in the
	// middle when longer than MaxOutput; it is empty when the Command's
	// Output writer was given them.
	Output string
	// Omitted counts the bytes of output left out of Output.
	Omitted int64
	// Exit is the exit status, or -1 when the command was killed.
	Exit int
	// TimedOut is set when the command ran out of time, Flooded when it was
	// stopped for writing more than Flood bytes, FileTooLarge when it (or
	// the last program it ran) was stopped for writing a file past
	// MaxFileSize.
	TimedOut, Flooded, FileTooLarge bool
	Elapsed                         time.Duration
	// Tier is how the command ran: Bwrap, Landlock, Seatbelt or None.
	Tier Mode
	// Notice, on the first command only, says how it and later commands
	// run when mode Auto found out only then that the preferred sandbox
	// does not work (see Installed), for the model to read.
	Notice string
}

// Sandbox runs commands as its Config says.
type Sandbox struct {
	cfg   Config
	start sync.Once
	// Set by Start: the tier commands run in, and its mode.
	tier     tier
	mode     Mode
	fallback string
	err      error
	noticed  atomic.Bool // the fallback was told
	// environ is the process's environment at New, when Config.Env is
	// nil: what commands get of it is made once, by baseEnv.
	environ []string
	envOnce sync.Once
	// bwrapAt is where Installed found bwrap, for the probe at Start; nil
	// when it did not look, or found none.
	bwrapAt atomic.Pointer[string]
	// What commands may reach, found once (see toolDirs and private).
	reach    sync.Once
	tools    []string
	privates []string
	// groups holds commands in control groups, where the system offers
	// them (see procLimit); set by Start.
	groups *cgroups
	// The commands running, and whether Close was called.
	mu     sync.Mutex
	live   map[*tree]bool
	closed bool
}

// New returns a sandbox for cfg. It checks the paths of cfg but starts
// nothing; Start finds out whether the sandbox works.
func New(cfg Config) (*Sandbox, error) {
	if cfg.Mode == "" {
		cfg.Mode = Auto
	}
	if _, ok := tierOf(cfg.Mode); !ok && cfg.Mode != Auto {
		return nil, fmt.Errorf("sandbox: unknown mode %q; use %s", cfg.Mode, modes())
	}
	if !filepath.IsAbs(cfg.Dir) {
		return nil, fmt.Errorf("sandbox: the workspace %q is not an absolute path", cfg.Dir)
	}
	var err error
	if cfg.Write, err = existing("--sandbox-write", cfg.Write); err != nil {
		return nil, err
	}
	if cfg.Read, err = existing("--sandbox-read", cfg.Read); err != nil {
		return nil, err
	}
	if cfg.Hide, err = absolute("--sandbox-hide", cfg.Hide); err != nil {
		return nil, err
	}
	if cfg.Home == "" {
		cfg.Home, _ = os.UserHomeDir()
	}
	if cfg.Caches != "" {
		if cfg.Caches, err = makeCaches(cfg.Caches, append(fence.SecretPlaces(cfg.Home), cfg.Hide...)); err != nil {
			return nil, err
		}
		cfg.Write = append(cfg.Write, cfg.Caches)
	}
	var environ []string
	if cfg.Env == nil {
		environ = os.Environ()
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxOutput <= 0 {
		cfg.MaxOutput = DefaultMaxOutput
	}
	if cfg.Flood <= 0 {
		cfg.Flood = DefaultFlood
	}
	if cfg.MaxFileSize <= 0 {
		cfg.MaxFileSize = DefaultMaxFileSize
	}
	if cfg.MaxMemory <= 0 {
		cfg.MaxMemory = DefaultMaxMemory
	}
	if cfg.MaxProcs <= 0 {
		cfg.MaxProcs = DefaultMaxProcs
	}
	if cfg.Bwrap == "" {
		cfg.Bwrap = "bwrap"
	}
	if cfg.Shell == "" {
		cfg.Shell = "bash"
	}
	return &Sandbox{cfg: cfg, environ: environ, live: make(map[*tree]bool)}, nil
}

// existing makes paths absolute and checks that each exists.
func existing(flag string, paths []string) ([]string, error) {
	out, err := absolute(flag, paths)
	for _, p := range out {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%s %s: %w", flag, p, err)
		}
	}
	return out, err
}

func absolute(flag string, paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", flag, p, err)
		}
		out = append(out, abs)
	}
	return out, nil
}

// Start finds out, once, how commands will run: inside bwrap, found out by
// running an empty command there, under Landlock, found out by asking the
// kernel and starting the launcher once, or under Seatbelt, found out by
// running an empty command under its profile. In mode Bwrap, Landlock or
// Seatbelt it fails with an error wrapping ErrUnavailable when that cannot
// run (on a system without it, always); in mode Auto it falls back, on
// Linux from bwrap to Landlock to none, on macOS from Seatbelt to none,
// and on Windows it runs commands with the limits alone.
func (s *Sandbox) Start(ctx context.Context) error {
	s.start.Do(func() {
		// The outcome is kept for the run, so the caller's cancelling (a
		// Ctrl-C during the first command) must not decide it.
		ctx := context.WithoutCancel(ctx)
		becomeReaper()
		s.groups = findCgroups()
		s.tier, s.mode = none{}, None
		if s.cfg.Mode == Auto {
			s.fallback = s.auto(ctx)
			return
		}
		t, _ := tierOf(s.cfg.Mode)
		if why := t.probe(ctx, s); why != "" {
			s.err = fmt.Errorf("%w: %s", ErrUnavailable, why)
			return
		}
		s.tier, s.mode = t, s.cfg.Mode
	})
	return s.err
}

// auto starts the first tier that works of those mode Auto tries here,
// and returns why those before it, or all of them, did not work.
func (s *Sandbox) auto(ctx context.Context) string {
	tried := autoTiers()
	if len(tried) == 0 {
		return noTier()
	}
	var whys []string
	for _, m := range tried {
		t, _ := tierOf(m)
		why := t.probe(ctx, s)
		if why == "" {
			s.tier, s.mode = t, m
			break
		}
		whys = append(whys, why)
	}
	return strings.Join(whys, "; ")
}

// Installed reports whether the program of this system's preferred
// sandbox is there (bwrap on the PATH on Linux, sandbox-exec on macOS),
// at the cost of a look rather than of starting it; it is false where
// there is none (Windows). Whether it works is known only after Start,
// which Run calls on first use, so a run that never runs a command never
// pays for the check.
func (s *Sandbox) Installed() bool {
	t, _ := tierOf(Preferred())
	return t.installed(s)
}

// TakeNotice returns, once, a sentence for the model saying how commands
// run when mode Auto runs them without this system's preferred sandbox,
// or "" when it does not or this was already taken.
func (s *Sandbox) TakeNotice() string {
	if s.fallback == "" || s.noticed.Swap(true) {
		return ""
	}
	first := Preferred()
	switch {
	case s.mode != None:
		return fmt.Sprintf("this and later commands run under %s instead of the %s sandbox: %s", s.tier.name(), first.name(), s.fallback)
	case first == None:
		return "this and later commands run without a sandbox: " + s.fallback
	}
	return fmt.Sprintf("this and later commands run without the %s sandbox: %s", first.name(), s.fallback)
}

// procLimit says what holds a command to Config.MaxProcs, known after
// Start. Where the system offers a control group (see cgroups), that
// does: "cgroup", the only bound that counts a command's processes alone
// whoever runs them, root included. Else, under bwrap with a user
// namespace of its own, RLIMIT_NPROC does: "rlimit"; since Linux 5.14
// it counts the processes of the user in that namespace alone, but it
// never binds root. Else nothing does: "". RLIMIT_NPROC counts every
// process of the user on the machine, a desktop's included, so a limit
// low enough to stop a fork bomb would stop the command from starting
// any, and root is not bound by it anyway; there the time limit, and the
// killing of the command's processes when it ends, end what it started.
func (s *Sandbox) procLimit() string {
	if s.groups != nil {
		return "cgroup"
	}
	if b, ok := s.tier.(*bwrap); ok && !b.nouserns && os.Getuid() != 0 {
		return "rlimit"
	}
	return ""
}

// Isolated reports whether commands run inside bwrap. It is known after
// Start.
func (s *Sandbox) Isolated() bool { return s.mode == Bwrap }

// Tier reports how commands run: Bwrap, Landlock, Seatbelt or None. It is
// known after Start.
func (s *Sandbox) Tier() Mode { return s.mode }

// TierName is how a person calls the tier commands run in: "bubblewrap",
// "Landlock", "Seatbelt" or "none". It is known after Start, and "" before.
func (s *Sandbox) TierName() string {
	if s.tier == nil {
		return ""
	}
	return s.tier.name()
}

// Planned is how a person calls the tier commands will run in, as far as
// is known without starting it: the tier Start found once started, else
// the first tier the mode tries on this system.
func (s *Sandbox) Planned() string {
	if name := s.TierName(); name != "" {
		return name
	}
	if s.cfg.Mode == Auto {
		return Preferred().name()
	}
	return s.cfg.Mode.name()
}

// Fallback says why mode Auto runs commands without this system's
// preferred sandbox (and, when the next cannot run either, why not), or
// is empty.
func (s *Sandbox) Fallback() string { return s.fallback }

// Close ends every command still running, with everything it started, and
// makes later calls of Run fail with ErrClosed. Call it before the program
// exits: on macOS nothing else ends a command whose harness is gone.
func (s *Sandbox) Close() error {
	s.mu.Lock()
	s.closed = true
	live := make([]*tree, 0, len(s.live))
	for t := range s.live {
		live = append(live, t)
	}
	s.mu.Unlock()
	var errs []error
	for _, t := range live {
		errs = append(errs, t.kill())
	}
	return errors.Join(errs...)
}

// startTracked starts cmd, whose tree is t, and keeps t among the running
// commands, unless Close was called. It holds s.mu meanwhile, so that no
// sweep (see sweep) takes the command for what another left behind.
func (s *Sandbox) startTracked(cmd *exec.Cmd, t *tree, g *group) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	start := cmd.Start
	if g != nil {
		start = func() error { return g.start(cmd) }
	}
	if err := start(); err != nil {
		return fmt.Errorf("sandbox: cannot start %s: %w", cmd.Path, err)
	}
	if err := t.started(); err != nil {
		abandon(cmd, t)
		return fmt.Errorf("sandbox: cannot hold the processes of %s: %w", cmd.Path, err)
	}
	s.live[t] = true
	return nil
}

// sweep kills, on Linux, what the commands left running in a session of
// their own, which their process groups do not hold (see killOrphans):
// once the last command running has ended, since what a running command
// left may still be its own. Each round kills what came back to this
// process, and then waits for it without the lock; what that killed
// started comes back in turn, for the next round, until none does, or
// sweepTime has passed. Elsewhere it does nothing.
func (s *Sandbox) sweep() {
	deadline := time.Now().Add(sweepTime)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		if len(s.live) > 0 {
			s.mu.Unlock()
			return // the last command to end sweeps
		}
		killed := killOrphans()
		s.mu.Unlock()
		if len(killed) == 0 {
			return
		}
		reap(killed, deadline)
	}
}

// sweepTime bounds one sweep.
const sweepTime = 5 * time.Second

func (s *Sandbox) untrack(t *tree) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, t)
}

// Run runs c and reports what it did. The error is for a command that could
// not be started, and for ctx ending first; a command that fails, times
// out or floods is a Result.
func (s *Sandbox) Run(ctx context.Context, c Command) (Result, error) {
	if err := s.Start(ctx); err != nil {
		return Result{}, err
	}
	runCtx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	cmd, cleanup, err := s.tier.command(runCtx, s, c)
	if err != nil {
		return Result{}, fmt.Errorf("sandbox: cannot set the command up: %w", err)
	}
	defer cleanup()
	cmd.Env = append(cmd.Env, s.gitVars(c.Git)...)
	out := newCapture(s.cfg.MaxOutput, s.cfg.Flood)
	out.to = c.Output
	cmd.Stdout, cmd.Stderr = out, out
	tree := newTree(cmd)
	cmd.Cancel = tree.kill
	cmd.WaitDelay = time.Second
	var group *group
	if s.groups != nil {
		if group, err = s.groups.make(s.cfg.MaxProcs); err != nil {
			return Result{}, fmt.Errorf("sandbox: cannot set the command up: %w", err)
		}
		defer group.remove() // once its processes are killed, below
	}

	began := time.Now()
	if err := s.startTracked(cmd, tree, group); err != nil {
		return Result{}, err
	}
	defer s.untrack(tree)
	done := make(chan struct{})
	go func() {
		select {
		case <-out.flooded:
			tree.kill()
		case <-done:
		}
	}()
	err = cmd.Wait()
	close(done)
	tree.kill() // whatever it left running goes too
	tree.release()
	s.untrack(tree)
	s.sweep() // and what left the process group
	res := Result{Elapsed: time.Since(began), Exit: -1, Tier: s.mode, Notice: s.TakeNotice()}
	res.Output, res.Omitted = out.result()
	if cmd.ProcessState != nil {
		res.Exit = cmd.ProcessState.ExitCode()
		res.FileTooLarge = fileTooLarge(cmd.ProcessState)
	}
	res.Flooded = out.isFlooded()
	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("sandbox: %w", ctx.Err())
	case runCtx.Err() != nil:
		res.TimedOut = true
	case errors.Is(err, exec.ErrWaitDelay):
		// The shell exited but left a process holding its output, which
		// tree.kill has ended: the command ran, with the shell's status.
	case err != nil && !errors.As(err, new(*exec.ExitError)) && !res.Flooded:
		return res, fmt.Errorf("sandbox: %w", err)
	}
	return res, nil
}

// abandon ends a command that started but must not run.
func abandon(cmd *exec.Cmd, t *tree) {
	t.kill()
	cmd.Wait()
	t.release()
}

// shellArgs returns the command line that runs script with the shell: a
// first shell lowers the limits on the size of files written
// (RLIMIT_FSIZE) and on the memory each process may take for its data
// (RLIMIT_DATA), and, when procs is set, on the processes of the user
// (RLIMIT_NPROC, see procLimit): limits that every program it starts
// inherits. Then it replaces itself with the shell that runs script, as
// it was given. The limits are in place before anything of script runs,
// and cannot be raised again. A lower limit already in place stays.
func (s *Sandbox) shellArgs(script string, procs bool) []string {
	kib := func(n int64) int64 { return max(n/1024, 1) } // bash counts both in 1024-byte blocks
	limits := fmt.Sprintf("ulimit -f %d 2>/dev/null; ulimit -d %d 2>/dev/null; ", kib(s.cfg.MaxFileSize), kib(s.cfg.MaxMemory))
	if procs {
		limits += fmt.Sprintf("ulimit -u %d 2>/dev/null; ", s.cfg.MaxProcs)
	}
	line := limits + `exec "$0" --noprofile --norc -o pipefail -c "$1"`
	return []string{s.cfg.Shell, "--noprofile", "--norc", "-c", line, s.cfg.Shell, script}
}

// cacheVars name the caches a command may fill, each with the subfolder
// of Config.Caches it gets:
//   - Go's build cache: go build and go test write it on every run, and
//     the user's cannot be written (nor should it: a command could plant
//     a compiled package there that the user's builds would link);
//   - npm's and pip's caches, which they write on every run (npm its logs
//     too) and fail without; an empty one costs nothing, since what fills
//     it comes from the network, which commands do not have;
//   - XDG_CACHE_HOME, where programs that follow the XDG rules (and Go's
//     os.UserCacheDir) keep theirs: linters, language servers, formatters.
//
// Go's module cache (GOMODCACHE) stays the user's: read-only, it holds
// the modules a build needs offline, while an empty one of the
// workspace's own could only be filled through the network, which
// commands do not have. Cargo's target folder (CARGO_TARGET_DIR) stays
// in the workspace, where people and scripts look for what cargo built,
// and CARGO_HOME stays the user's, which holds the registry an offline
// build reads.
var cacheVars = []struct{ name, dir string }{
	{"GOCACHE", "go-build"},
	{"npm_config_cache", "npm"},
	{"PIP_CACHE_DIR", "pip"},
	{"XDG_CACHE_HOME", "xdg"},
}

// ErrHiddenCaches is wrapped by the error of New for a caches folder that
// lies in a path commands may not see: there it would be hidden too.
var ErrHiddenCaches = errors.New("the caches folder lies in a hidden path")

// makeCaches makes the folder caches and the subfolders of cacheVars in
// it, each only the user's, and returns it absolute, with its symlinks
// resolved, as sandboxes match paths. It makes nothing in one of the
// paths of hide.
func makeCaches(caches string, hide []string) (string, error) {
	abs, err := filepath.Abs(caches)
	if err != nil {
		return "", fmt.Errorf("sandbox: the caches folder %s: %w", caches, err)
	}
	// The folder's real path is the same for every place it is checked
	// against: resolve it once, not once a place; and the places share
	// their folders (most are in the home folder): resolve each once.
	resolved := realPaths{}
	real := resolved.of(abs)
	for _, h := range hide {
		if fence.Within(resolved.of(h), real) {
			return "", fmt.Errorf("sandbox: %w: %s lies in %s", ErrHiddenCaches, abs, h)
		}
	}
	for _, v := range cacheVars {
		if err := os.MkdirAll(filepath.Join(abs, v.dir), 0o700); err != nil {
			return "", fmt.Errorf("sandbox: making the caches folder: %w", err)
		}
	}
	real, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("sandbox: the caches folder %s: %w", abs, err)
	}
	return real, nil
}

// baseEnv returns Config.Env, made from the environment at New (Env) at
// its first call: the first command's, and a run that runs none never
// pays for it.
func (s *Sandbox) baseEnv() []string {
	s.envOnce.Do(func() {
		if s.cfg.Env == nil {
			s.cfg.Env = Env(s.environ, s.cfg.Dir)
		}
	})
	return s.cfg.Env
}

// realPaths resolves paths as realOrClean does, keeping what it found of
// each path and of the folders on its way: a path in a folder resolved
// before costs one look, not one a folder of its path and then as many
// again for each folder that holds it when it does not exist.
type realPaths map[string]string

func (r realPaths) of(p string) string {
	p = filepath.Clean(p)
	if real, ok := r[p]; ok {
		return real
	}
	dir := filepath.Dir(p)
	var real string
	if dir == p || filepath.Base(p) == ".." {
		real = realOrClean(p)
	} else {
		real = filepath.Join(r.of(dir), filepath.Base(p))
		if fi, err := os.Lstat(real); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if target, err := filepath.EvalSymlinks(real); err == nil {
				real = target
			}
		}
	}
	r[p] = real
	return real
}

// env returns the environment of a command, with tmp as its temporary
// folder when not empty, and the caches of Config.Caches (see
// cacheVars). Git searches for no repository (see gitVars): GIT_DIR
// names it.
func (s *Sandbox) env(tmp string) []string {
	env := s.baseEnv()
	var set []string
	if tmp != "" {
		set = append(set, "TMPDIR="+tmp)
	}
	if s.cfg.Caches != "" {
		for _, v := range cacheVars {
			set = append(set, v.name+"="+filepath.Join(s.cfg.Caches, v.dir))
		}
	}
	if len(set) == 0 {
		return env
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		// Names are taken without case, as Windows takes them.
		if !slices.ContainsFunc(set, func(x string) bool {
			setName, _, _ := strings.Cut(x, "=")
			return strings.EqualFold(name, setName)
		}) {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// gitVars returns the variables that give git the repository r, or the
// workspace's own when r is empty (a caller that gives none: the bash
// tool gives the one it found).
func (s *Sandbox) gitVars(r Repository) []string {
	if r.Dir == "" {
		l := gitdir.Find(s.cfg.Dir)
		r = Repository{Dir: cmp.Or(l.Git, l.Dot), WorkTree: s.cfg.Dir}
	}
	return []string{"GIT_DIR=" + r.Dir, "GIT_WORK_TREE=" + r.WorkTree, "GIT_CEILING_DIRECTORIES=" + filepath.Dir(r.WorkTree)}
}

// hidden returns the paths to hide from c, resolved: the secret places
// of the home folder, those of the Config and those of c. A path the
// workspace lies in is not hidden, nor one of c's inside a path the user
// made writable in the workspace (as a build's output folder that
// .gitignore ignores), which would undo that.
func (s *Sandbox) hidden(c Command) []string {
	dir := s.cfg.Dir
	var out []string
	add := func(p string, own bool) {
		real, err := filepath.EvalSymlinks(p)
		if err != nil || fence.Within(real, dir) || slices.Contains(out, real) {
			return // missing, or the workspace is inside it
		}
		if own && slices.ContainsFunc(s.cfg.Write, func(w string) bool { return w != dir && fence.Within(dir, w) && fence.Within(w, real) }) {
			return
		}
		out = append(out, real)
	}
	for _, p := range append(fence.SecretPlaces(s.cfg.Home), s.cfg.Hide...) {
		add(p, false)
	}
	for _, p := range c.Hide {
		add(p, true)
	}
	return out
}

// within reports whether path is one of list or lies inside one.
func within(list []string, path string) bool {
	for _, x := range list {
		if fence.Within(x, path) {
			return true
		}
	}
	return false
}

// dataFile returns a file holding data, read from its start, that exists
// nowhere else: its name is removed at once.
func dataFile(data []byte) (*os.File, error) {
	f, err := os.CreateTemp("", "harness-data-")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// capture keeps the start and the end of a command's output, or gives it
// all to a writer, and notices a flood.
type capture struct {
	mu      sync.Mutex
	to      io.Writer // when not nil, the output goes there instead
	head    []byte
	tail    []byte
	half    int
	total   int64
	flood   int64
	flooded chan struct{}
}

func newCapture(max int, flood int64) *capture {
	return &capture{half: max / 2, flood: flood, flooded: make(chan struct{})}
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if c.total > c.flood {
		return n, nil
	}
	c.total += int64(n)
	if c.to != nil {
		c.to.Write(p)
		p = nil // kept there, not here
	}
	if room := c.half - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*c.half {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-c.half:]...)
	}
	if c.total > c.flood {
		close(c.flooded)
	}
	return n, nil
}

func (c *capture) isFlooded() bool {
	select {
	case <-c.flooded:
		return true
	default:
		return false
	}
}

// result returns the output kept, as valid UTF-8, and how many bytes were
// left out of it.
func (c *capture) result() (string, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.to != nil {
		return "", 0
	}
	tail := c.tail
	if len(tail) > c.half {
		tail = tail[len(tail)-c.half:]
	}
	omitted := c.total - int64(len(c.head)+len(tail))
	var b bytes.Buffer
	b.Write(c.head)
	if omitted > 0 {
		fmt.Fprintf(&b, "\n[... %d bytes of output left out ...]\n", omitted)
	}
	b.Write(tail)
	return strings.ToValidUTF8(b.String(), "\uFFFD"), omitted
}
