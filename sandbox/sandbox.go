// Package sandbox runs the harness's bash commands: in the workspace, with a
// clean environment, no input, a time limit and a cap on output, and with
// the whole process group killed when the command ends, times out or is
// cancelled, so nothing it started lives on.
//
// With bubblewrap (bwrap) the command also runs in its own namespaces: it
// sees the filesystem read-only, an empty private /tmp, the workspace
// writable at its own path, extra writable paths only when named, known
// secret locations hidden, no network, its own process IDs, and it dies
// with the harness. Mode Auto uses bwrap where it works and otherwise runs
// the command without it; Fallback says why.
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"harness/fence"
)

// Mode says whether commands run inside bubblewrap.
type Mode string

const (
	Auto  Mode = "auto"  // bwrap when it works, else none
	Bwrap Mode = "bwrap" // bwrap or nothing
	None  Mode = "none"  // no namespaces; the guard and the limits only
)

// Defaults of a Config.
const (
	DefaultTimeout = 2 * time.Minute
	// DefaultMaxOutput is the output kept, start and end. It is more than a
	// model is sent at once: the tools cut long results for the model and
	// keep the whole for read_output to page through.
	DefaultMaxOutput = 1 << 20
	DefaultFlood     = 8 << 20 // bytes of output after which the command is stopped
)

// ErrUnavailable is wrapped by the error of Start when bwrap was asked for
// and cannot run.
var ErrUnavailable = errors.New("bubblewrap cannot run here")

// Config says how commands run.
type Config struct {
	Mode Mode
	// Dir is the workspace: the absolute folder commands run in, writable.
	Dir string
	// Write lists more paths the command may write, such as a build cache.
	Write []string
	// Hide lists more paths to hide, besides those fence.SecretPlaces
	// lists.
	Hide []string
	// Home is the home folder whose secrets fence.SecretPlaces lists; empty
	// means the user's.
	Home string
	// Env is the environment of commands; nil means Env(os.Environ(), Dir).
	Env []string
	// Timeout bounds one command; zero means DefaultTimeout.
	Timeout time.Duration
	// MaxOutput is how many bytes of output are kept, half from its start
	// and half from its end; zero means DefaultMaxOutput.
	MaxOutput int
	// Flood is how much output stops the command; zero means DefaultFlood.
	Flood int64
	// Bwrap and Shell name the programs; empty means "bwrap" and "bash".
	Bwrap, Shell string
}

// Command is one command line to run.
type Command struct {
	Script string
	// Hide lists paths to hide from this command only, such as the secret
	// files in the workspace. Ignored without bwrap.
	Hide []string
	// ReadOnly lists paths inside Dir this command may read but not change,
	// such as .git/config. Ignored without bwrap.
	ReadOnly []string
}

// Result is what a command did.
type Result struct {
	// Output holds stdout and stderr as they were interleaved, cut in the
	// middle when longer than MaxOutput.
	Output string
	// Omitted counts the bytes of output left out of Output.
	Omitted int64
	// Exit is the exit status, or -1 when the command was killed.
	Exit int
	// TimedOut is set when the command ran out of time, Flooded when it was
	// stopped for writing more than Flood bytes.
	TimedOut, Flooded bool
	Elapsed           time.Duration
	// Notice, on the first command only, says why it ran without bwrap
	// when that was found out only then (see Installed).
	Notice string
}

// Sandbox runs commands as its Config says.
type Sandbox struct {
	cfg   Config
	start sync.Once
	// Set by Start.
	isolated bool
	fallback string
	err      error
	noticed  atomic.Bool // the fallback was told
}

// New returns a sandbox for cfg. It checks the paths of cfg but starts
// nothing; Start finds out whether bwrap works.
func New(cfg Config) (*Sandbox, error) {
	switch cfg.Mode {
	case Auto, Bwrap, None:
	case "":
		cfg.Mode = Auto
	default:
		return nil, fmt.Errorf("sandbox: unknown mode %q; use auto, bwrap or none", cfg.Mode)
	}
	if !filepath.IsAbs(cfg.Dir) {
		return nil, fmt.Errorf("sandbox: the workspace %q is not an absolute path", cfg.Dir)
	}
	var err error
	if cfg.Write, err = existing("--sandbox-write", cfg.Write); err != nil {
		return nil, err
	}
	if cfg.Hide, err = absolute("--sandbox-hide", cfg.Hide); err != nil {
		return nil, err
	}
	if cfg.Home == "" {
		cfg.Home, _ = os.UserHomeDir()
	}
	if cfg.Env == nil {
		cfg.Env = Env(os.Environ(), cfg.Dir)
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
	if cfg.Bwrap == "" {
		cfg.Bwrap = "bwrap"
	}
	if cfg.Shell == "" {
		cfg.Shell = "bash"
	}
	return &Sandbox{cfg: cfg}, nil
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

// Start finds out, once, whether commands will run inside bwrap, by running
// an empty command there. In mode Bwrap it fails with an error wrapping
// ErrUnavailable when bwrap cannot run; in mode Auto it then falls back.
func (s *Sandbox) Start(ctx context.Context) error {
	s.start.Do(func() {
		if s.cfg.Mode == None {
			return
		}
		// The outcome is kept for the run, so the caller's cancelling (a
		// Ctrl-C during the first command) must not decide it.
		why := s.probe(context.WithoutCancel(ctx))
		switch {
		case why == "":
			s.isolated = true
		case s.cfg.Mode == Bwrap:
			s.err = fmt.Errorf("%w: %s", ErrUnavailable, why)
		default:
			s.fallback = why
		}
	})
	return s.err
}

// probe returns why bwrap cannot run a command, or "".
func (s *Sandbox) probe(ctx context.Context) string {
	path, err := exec.LookPath(s.cfg.Bwrap)
	if err != nil {
		return "bwrap is not installed (Debian and Ubuntu: apt-get install bubblewrap)"
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, s.bwrapArgs(Command{Script: "true"})...)
	cmd.Env = s.env(true)
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		return "bwrap fails here: " + msg
	}
	return ""
}

// Installed reports whether bwrap is on the PATH, at the cost of a look
// there rather than of starting it. Whether it works is known only after
// Start, which Run calls on first use, so a run that never runs a command
// never pays for the check.
func (s *Sandbox) Installed() bool {
	_, err := exec.LookPath(s.cfg.Bwrap)
	return err == nil
}

// TakeNotice returns, once, why commands run without bwrap in mode Auto,
// or "" when they do not or this was already taken.
func (s *Sandbox) TakeNotice() string {
	if s.fallback == "" || s.noticed.Swap(true) {
		return ""
	}
	return s.fallback
}

// Isolated reports whether commands run inside bwrap. It is known after
// Start.
func (s *Sandbox) Isolated() bool { return s.isolated }

// Fallback says why mode Auto runs commands without bwrap, or is empty.
func (s *Sandbox) Fallback() string { return s.fallback }

// Run runs c and reports what it did. The error is for a command that could
// not be started, and for ctx ending first; a command that fails, times
// out or floods is a Result.
func (s *Sandbox) Run(ctx context.Context, c Command) (Result, error) {
	if err := s.Start(ctx); err != nil {
		return Result{}, err
	}
	runCtx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	var cmd *exec.Cmd
	if s.isolated {
		cmd = exec.CommandContext(runCtx, s.cfg.Bwrap, s.bwrapArgs(c)...)
	} else {
		cmd = exec.CommandContext(runCtx, s.cfg.Shell, "--noprofile", "--norc", "-o", "pipefail", "-c", c.Script)
	}
	cmd.Dir = s.cfg.Dir
	cmd.Env = s.env(s.isolated)
	out := newCapture(s.cfg.MaxOutput, s.cfg.Flood)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = time.Second

	began := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("sandbox: cannot start %s: %w", cmd.Path, err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-out.flooded:
			killGroup(cmd)
		case <-done:
		}
	}()
	err := cmd.Wait()
	close(done)
	killGroup(cmd) // whatever it left running in its group goes too
	res := Result{Elapsed: time.Since(began), Exit: -1, Notice: s.TakeNotice()}
	res.Output, res.Omitted = out.result()
	if cmd.ProcessState != nil {
		res.Exit = cmd.ProcessState.ExitCode()
	}
	res.Flooded = out.isFlooded()
	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("sandbox: %w", ctx.Err())
	case runCtx.Err() != nil:
		res.TimedOut = true
	case errors.Is(err, exec.ErrWaitDelay):
		// The shell exited but left a process holding its output, which
		// killGroup has ended: the command ran, with the shell's status.
	case err != nil && !errors.As(err, new(*exec.ExitError)) && !res.Flooded:
		return res, fmt.Errorf("sandbox: %w", err)
	}
	return res, nil
}

// killGroup kills the process group that cmd leads.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// env returns the environment of a command.
func (s *Sandbox) env(isolated bool) []string {
	env := s.cfg.Env
	if !isolated {
		return env
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "TMPDIR=/tmp")
}

// bwrapArgs returns the arguments of bwrap that run c.
func (s *Sandbox) bwrapArgs(c Command) []string {
	dir := s.cfg.Dir
	args := []string{
		"--die-with-parent", "--new-session", "--unshare-all",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
		"--bind", dir, dir,
	}
	for _, w := range s.cfg.Write {
		args = append(args, "--bind", w, w)
	}
	for _, p := range c.ReadOnly {
		if _, err := os.Lstat(p); err == nil && fence.Within(dir, p) {
			args = append(args, "--ro-bind", p, p)
		}
	}
	hide := append(fence.SecretPlaces(s.cfg.Home), s.cfg.Hide...)
	for _, p := range append(hide, c.Hide...) {
		real, err := filepath.EvalSymlinks(p)
		if err != nil || fence.Within(real, dir) {
			continue // missing, or the workspace is inside it
		}
		fi, err := os.Stat(real)
		switch {
		case err != nil:
		case fi.IsDir():
			args = append(args, "--tmpfs", real, "--remount-ro", real)
		default:
			args = append(args, "--ro-bind", "/dev/null", real)
		}
	}
	return append(args, "--chdir", dir, "--", s.cfg.Shell, "--noprofile", "--norc", "-o", "pipefail", "-c", c.Script)
}

// capture keeps the start and the end of a command's output and notices a
// flood.
type capture struct {
	mu      sync.Mutex
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
