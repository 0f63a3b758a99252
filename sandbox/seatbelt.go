package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"harness/fence"
)

// seatbelt runs commands under sandbox-exec, macOS's sandbox, each with a
// profile of its own (see Policy.Profile); what runs it is macOS's
// (seatbelt_darwin.go).
type seatbelt struct{}

func (seatbelt) name() string { return "Seatbelt" }

// Policy is what a command under Seatbelt may do with files. Every path is
// absolute, as the kernel sees it: with its symlinks resolved (on macOS
// /tmp is /private/tmp), since Seatbelt matches the path a file is
// reached by in the end.
type Policy struct {
	// Write are the folders the command may write, with all in them: the
	// workspace, its private temporary folder, and the paths the user
	// named.
	Write []string
	// ReadOnly are paths it may read but neither change, remove, rename
	// nor make, even inside Write: the git directory.
	ReadOnly []string
	// Hide are paths it may neither read nor write: the secret places.
	Hide []string
	// Shared are folders of temporary files shared with other programs
	// (/tmp, the user's TMPDIR), hidden as Hide is but for what of Write
	// lies in them.
	Shared []string
	// Private are folders whose files may not be read, but for what of
	// Write and Show lies in them: the home folders. What is in them may
	// still be looked up (its size, its time), so that a path through
	// them resolves.
	Private []string
	// Show are paths inside Private that may be read: the toolchains,
	// git's configuration, a git directory outside the workspace.
	Show []string
}

// maxString bounds the length of one string in a profile: sandbox-exec
// refuses a string of more than 1025 bytes.
const maxString = 1000

// Profile returns the Seatbelt profile, in SBPL, that runs a command as p
// says, and as Seatbelt runs a bash command of the harness: everything
// not allowed is denied; programs may run and start others; they may read
// every file but for the hidden, shared and private places (in a private
// one, what of Write and Show lies there may be read), and write only the
// folders of Write (and the devices every shell writes: /dev/null, the
// standard output, ptys made in the sandbox), never what is read-only;
// a folder of Write that holds something hidden or read-only cannot be
// renamed or removed, lest its content be taken out of reach of the
// rules, which match paths; no network, not even the local one, and no
// service of the system that could reach it (DNS, the keychain, the
// clipboard, launching apps), only those that name users, log and tell
// the time zone. Later rules win over earlier ones, so the denials come
// last. A path that SBPL cannot hold (a control character, or longer than
// 1000 bytes) is an error: no rule is dropped.
func (p Policy) Profile() (string, error) {
	var b profileBuilder
	b.line("(version 1)")
	b.line("; Written by harness for one bash command.")
	b.line("(deny default)")
	b.line("(allow file-read*)")
	b.line(seatbeltBase)
	b.rule("allow file-write*", "subpath", p.Write)
	var carve []string
	for _, w := range p.Write {
		carve = append(carve, fmt.Sprintf("(require-not (subpath %s))", b.quote(w)))
	}
	for _, shared := range p.Shared {
		if within(p.Write, shared) {
			continue // the user let commands write it
		}
		b.line(fmt.Sprintf("(deny file-read* file-write* (require-all (subpath %s) %s))", b.quote(shared), strings.Join(carve, " ")))
	}
	for _, dir := range p.Private {
		if within(p.Write, dir) {
			continue // the user let commands write it
		}
		var open []string
		for _, x := range slices.Concat(p.Write, p.Show) {
			if fence.Within(dir, x) {
				open = append(open, fmt.Sprintf("(require-not (subpath %s))", b.quote(x)))
			}
		}
		b.line(fmt.Sprintf("(deny file-read-data (require-all (subpath %s)%s))", b.quote(dir), strings.TrimRight(" "+strings.Join(open, " "), " ")))
	}
	b.rule("deny file-write*", "subpath", p.ReadOnly)
	b.rule("deny file-write-unlink", "literal", p.holders())
	b.rule("deny file-read* file-write*", "subpath", p.Hide)
	b.line("(deny network*)")
	if b.err != nil {
		return "", b.err
	}
	return b.String(), nil
}

// holders returns the folders strictly inside a folder of Write that hold
// something hidden or read-only, each once, sorted.
func (p Policy) holders() []string {
	inWrite := func(dir string) bool {
		return slices.ContainsFunc(p.Write, func(w string) bool { return w != dir && fence.Within(w, dir) })
	}
	var out []string
	for _, x := range slices.Concat(p.ReadOnly, p.Hide) {
		for dir := filepath.Dir(x); inWrite(dir); dir = filepath.Dir(dir) {
			if !slices.Contains(out, dir) {
				out = append(out, dir)
			}
		}
	}
	slices.Sort(out)
	return out
}

// seatbeltBase is what every command may do besides reading files and
// writing its folders: run programs, signal and look at its own, read the
// hardware's and the system's names and sizes (but not what other
// processes were started with, nor their environment, which holds the
// harness's keys), reach the few services of the system that plain
// programs need, share memory and semaphores, make ptys and use those it
// made (not the terminals of the user, read though every file else may
// be), and write the devices every shell writes.
const seatbeltBase = `(deny file-read* file-write* file-ioctl
  (literal "/dev/tty")
  (regex #"^/dev/ttys[0-9]+$"))
(allow process-exec process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read
  (sysctl-name-prefix "hw.")
  (sysctl-name-prefix "machdep.cpu.")
  (sysctl-name-prefix "kern.proc.pid.")
  (sysctl-name-prefix "kern.proc.pgrp.")
  (sysctl-name "kern.argmax")
  (sysctl-name "kern.boottime")
  (sysctl-name "kern.hostname")
  (sysctl-name "kern.maxfiles")
  (sysctl-name "kern.maxfilesperproc")
  (sysctl-name "kern.maxproc")
  (sysctl-name "kern.ngroups")
  (sysctl-name "kern.osproductversion")
  (sysctl-name "kern.osrelease")
  (sysctl-name "kern.ostype")
  (sysctl-name "kern.osvariant_status")
  (sysctl-name "kern.osversion")
  (sysctl-name "kern.secure_kernel")
  (sysctl-name "kern.usrstack64")
  (sysctl-name "kern.version")
  (sysctl-name "sysctl.proc_cputype")
  (sysctl-name "sysctl.proc_translated")
  (sysctl-name "vm.loadavg")
  (sysctl-name "vm.pagesize"))
(allow sysctl-write (sysctl-name "kern.grade_cputype"))
(allow mach-host*)
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.opendirectoryd.membership")
  (global-name "com.apple.system.notification_center")
  (global-name "com.apple.system.logger")
  (global-name "com.apple.logd")
  (global-name "com.apple.bsd.dirhelper"))
(allow user-preference-read)
(allow ipc-posix-sem)
(allow ipc-posix-shm)
(allow pseudo-tty)
(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))
(allow file-read* file-write* file-ioctl
  (require-all (regex #"^/dev/ttys[0-9]+$") (extension "com.apple.sandbox.pty")))
(allow file-write* file-ioctl
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/stdout")
  (literal "/dev/stderr")
  (literal "/dev/dtracehelper")
  (subpath "/dev/fd"))`

// profileBuilder writes a profile, keeping the first path it cannot
// quote.
type profileBuilder struct {
	strings.Builder
	err error
}

func (b *profileBuilder) line(s string) {
	b.WriteString(s)
	b.WriteByte('\n')
}

// rule writes "(action (filter path)...)" for paths, or nothing when
// there are none.
func (b *profileBuilder) rule(action, filter string, paths []string) {
	if len(paths) == 0 {
		return
	}
	b.WriteString("(" + action)
	for _, p := range paths {
		b.WriteString(fmt.Sprintf("\n  (%s %s)", filter, b.quote(p)))
	}
	b.line(")")
}

// quote returns s as an SBPL string literal, noting an error for a string
// SBPL cannot hold.
func (b *profileBuilder) quote(s string) string {
	q, err := quoteSBPL(s)
	if err != nil && b.err == nil {
		b.err = err
	}
	return q
}

// errUnquotable is wrapped by the error for a path a profile cannot hold.
var errUnquotable = errors.New("a Seatbelt profile cannot hold this path")

// quoteSBPL returns s as an SBPL string literal: in double quotes, with a
// backslash before each backslash and double quote. A string with a
// control character or invalid UTF-8, or longer than maxString, is an
// error.
func quoteSBPL(s string) (string, error) {
	if len(s) > maxString {
		return "", fmt.Errorf("%w: %.40q... is longer than %d bytes", errUnquotable, s, maxString)
	}
	if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", fmt.Errorf("%w: %q holds a control character or is not UTF-8", errUnquotable, s)
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`, nil
}

// policy returns the policy of c, run with tmp as its private
// temporary folder: the workspace, tmp and the paths of Config.Write
// writable; c's read-only paths read-only, even those that do not exist
// yet; the secret places of the home folder, those of the Config and
// those of c hidden (see hidden); the shared temporary folders (/tmp and
// TMPDIR) hidden too; and the home folders private, but for the
// toolchains and git's configuration in them (see toolDirs) and c's
// read-only paths.
func (seatbelt) policy(s *Sandbox, c Command, tmp string) Policy {
	var p Policy
	for _, w := range slices.Concat([]string{s.cfg.Dir, tmp}, s.cfg.Write) {
		if w = realOrClean(w); !slices.Contains(p.Write, w) {
			p.Write = append(p.Write, w)
		}
	}
	for _, r := range c.ReadOnly {
		if r = realOrClean(r); !slices.Contains(p.ReadOnly, r) {
			p.ReadOnly = append(p.ReadOnly, r)
		}
	}
	p.Hide = s.hidden(c)
	for _, t := range []string{os.TempDir(), "/tmp"} {
		if t = realOrClean(t); !slices.Contains(p.Shared, t) {
			p.Shared = append(p.Shared, t)
		}
	}
	for _, d := range []string{s.cfg.Home, "/Users", "/var/root"} {
		if d == "" {
			continue
		}
		if d = realOrClean(d); d != "/" && !slices.Contains(p.Private, d) {
			p.Private = append(p.Private, d)
		}
	}
	for _, x := range slices.Concat(s.toolDirs(), p.ReadOnly) {
		if x = realOrClean(x); within(p.Private, x) && !slices.Contains(p.Show, x) {
			p.Show = append(p.Show, x)
		}
	}
	return p
}

// realOrClean returns p with its symlinks resolved, or as far as it
// exists: a path that is not there yet is matched where it would be.
func realOrClean(p string) string {
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	if dir := filepath.Dir(p); dir != p {
		return filepath.Join(realOrClean(dir), filepath.Base(p))
	}
	return p
}
