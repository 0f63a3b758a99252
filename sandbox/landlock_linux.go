package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"harness/fence"
)

// Landlock's file system rights, as sets.
const (
	llRead  = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	llWrite = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM | unix.LANDLOCK_ACCESS_FS_REFER | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	// llDevice is what /dev needs: read and write the devices there
	// (/dev/null, /dev/tty), make nothing.
	llDevice = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	// llFile are the rights that mean something for a file that is not
	// a folder; a rule for one may hold no other.
	llFile = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
)

// maxRules bounds the rules of one command: a folder that holds something
// hidden is opened up one entry at a time.
const maxRules = 20000

// systemDirs are the folders every command may read: programs, libraries,
// the system's configuration (but for its secret places), and the
// kernel's view of devices. Not /tmp, /run, /var, /home nor /root; of
// /proc, see grantProc.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix", "/snap", "/sys"}

// launchVar, set in its environment, makes a program that calls Launch
// first the sandbox's launcher: it reads the rules from descriptor 3.
const launchVar = "HARNESS_SANDBOX_LAUNCH"

// launchSpec is what the launcher is told.
type launchSpec struct {
	ABI   int          `json:"abi"`
	Rules []launchRule `json:"rules"`
	// Seccomp is the filter that keeps the command from making Unix
	// sockets (see unixSocketFilter), or empty.
	Seccomp []byte `json:"seccomp,omitempty"`
}

type launchRule struct {
	Path   string `json:"path"`
	Access uint64 `json:"access"`
}

// Launch makes this program the sandbox's launcher when the sandbox
// started it as one, and does nothing otherwise. Call it first thing in
// main, and in TestMain of tests that run commands under Landlock. As the
// launcher it reads the rules the sandbox sent, restricts the process
// with Landlock and replaces it with the command (its arguments), so it
// returns only an error, for main to print before exiting with status
// 126: the command did not run.
func Launch() error {
	if os.Getenv(launchVar) == "" {
		return nil
	}
	os.Unsetenv(launchVar)
	in := os.NewFile(3, "landlock rules")
	if in == nil {
		return errors.New("sandbox launcher: no rules on descriptor 3")
	}
	var spec launchSpec
	err := json.NewDecoder(io.LimitReader(in, 64<<20)).Decode(&spec)
	in.Close()
	if err != nil {
		return fmt.Errorf("sandbox launcher: reading the rules: %w", err)
	}
	if len(os.Args) < 2 {
		return errors.New("sandbox launcher: no command to run")
	}
	path, err := exec.LookPath(os.Args[1])
	if err != nil {
		return fmt.Errorf("sandbox launcher: %w", err)
	}
	// Landlock restricts the thread that asks, not the process, and so
	// does PR_SET_NO_NEW_PRIVS; execve replaces the whole process with
	// one that inherits the calling thread's restrictions. So one locked
	// thread restricts itself and execs: the runtime's other threads,
	// gone with the exec, need no restricting.
	runtime.LockOSThread()
	if err := restrict(spec); err != nil {
		return fmt.Errorf("sandbox launcher: Landlock: %w", err)
	}
	return fmt.Errorf("sandbox launcher: %w", syscall.Exec(path, os.Args[1:], os.Environ()))
}

// abiRights are the rights each Landlock ABI, from 1, adds to the ABI
// before it (see include/uapi/linux/landlock.h): file system rights, net
// rights and scopes. A command is denied every right its kernel's ABI
// knows but those its rules grant; rights newer than that ABI are masked
// off, and a kernel newer than this table is treated as its last ABI.
var abiRights = []unix.LandlockRulesetAttr{
	1:  {Handled_access_fs: unix.LANDLOCK_ACCESS_FS_MAKE_SYM<<1 - 1}, // the 13 rights from EXECUTE to MAKE_SYM
	2:  {Handled_access_fs: unix.LANDLOCK_ACCESS_FS_REFER},
	3:  {Handled_access_fs: unix.LANDLOCK_ACCESS_FS_TRUNCATE},
	4:  {Handled_access_net: unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP},
	5:  {Handled_access_fs: unix.LANDLOCK_ACCESS_FS_IOCTL_DEV},
	6:  {Scoped: unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL},
	7:  {}, // audit logging
	8:  {}, // restricting all threads at once
	9:  {Handled_access_fs: unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX},
	10: {Handled_access_net: unix.LANDLOCK_ACCESS_NET_BIND_UDP | unix.LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP},
	11: {},
}

// handled returns what a ruleset for ABI abi handles: every right and
// scope that ABI knows.
func handled(abi int) unix.LandlockRulesetAttr {
	var h unix.LandlockRulesetAttr
	for _, r := range abiRights[1 : min(abi, len(abiRights)-1)+1] {
		h.Handled_access_fs |= r.Handled_access_fs
		h.Handled_access_net |= r.Handled_access_net
		h.Scoped |= r.Scoped
	}
	return h
}

// restrict applies spec to the calling thread, and so to what it execs:
// the caller keeps to its thread (runtime.LockOSThread) and execs from it.
// No rule grants a network port, so where the ABI handles TCP (4 and
// later) no connection can be opened nor port bound; where it handles
// scopes (6 and later) no signal or abstract socket reaches outside.
// Landlock before ABI 9 does not see a Unix socket being connected to,
// wherever it lies (Docker's, under /run, included): spec's seccomp
// filter, loaded last, makes none.
func restrict(spec launchSpec) error {
	if spec.ABI < 1 {
		return errors.New("the kernel has no Landlock")
	}
	attr := handled(spec.ABI)
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset (ABI %d): %w", spec.ABI, errno)
	}
	defer unix.Close(int(fd))
	for _, r := range spec.Rules {
		if a := r.Access & attr.Handled_access_fs; a != 0 {
			if err := addRule(int(fd), r.Path, a); err != nil {
				return fmt.Errorf("granting %#x on %s: %w", a, r.Path, err)
			}
		}
	}
	if err := dropCaps(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	if len(spec.Seccomp) > 0 {
		return loadSeccomp(spec.Seccomp)
	}
	return nil
}

// The securebits (include/uapi/linux/securebits.h) that keep a process
// of root's from getting capabilities back: neither by exec (NOROOT) nor
// by changing its user ids (NO_SETUID_FIXUP), each locked.
const (
	secbitNoRoot            = 1 << 0
	secbitNoRootLocked      = 1 << 1
	secbitNoSetuidFixup     = 1 << 2
	secbitNoSetuidFixupLock = 1 << 3
	secbitsNoCapsBack       = secbitNoRoot | secbitNoRootLocked | secbitNoSetuidFixup | secbitNoSetuidFixupLock
)

// dropCaps leaves the calling thread, and what it execs, no capability:
// Landlock restricts the file system, not what root's capabilities allow
// (undo mounts, set the host's name or clock, open raw sockets). Where it
// may (it has CAP_SETPCAP, as root has), it empties the bounding set and
// sets the securebits, so no exec gives any back, not even of a setuid
// or file-capability program; then it clears the ambient, inheritable,
// permitted and effective sets, which any process may.
func dropCaps() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[unix.CAP_SETPCAP/32].Effective&(1<<(unix.CAP_SETPCAP%32)) != 0 {
		for c := 0; c <= lastCap(); c++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
				return fmt.Errorf("prctl(PR_CAPBSET_DROP, %d): %w", c, err)
			}
		}
		if err := unix.Prctl(unix.PR_SET_SECUREBITS, secbitsNoCapsBack, 0, 0, 0); err != nil {
			return fmt.Errorf("prctl(PR_SET_SECUREBITS): %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("prctl(PR_CAP_AMBIENT_CLEAR_ALL): %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// lastCap returns the highest capability the kernel knows, from
// /proc/sys/kernel/cap_last_cap, or the highest this program knows when
// that cannot be read. Dropping one the kernel does not know fails with
// EINVAL, which dropCaps ignores.
func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return 63
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 0 || n > 63 {
		return 63
	}
	return n
}

// addRule adds to the ruleset fd a rule that grants access on path and
// everything beneath it.
func addRule(fd int, path string, access uint64) error {
	f, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer unix.Close(f)
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(f)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(fd), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_add_rule: %w", errno)
	}
	return nil
}

// landlockABI returns the kernel's Landlock ABI version, 0 when it has
// none or it is turned off.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// landlock runs commands under Landlock, through the launcher (see
// Launch), which restricts itself and then becomes the command.
type landlock struct {
	abi      int    // the kernel's Landlock ABI
	launcher string // the launcher's path
}

func (*landlock) name() string { return "Landlock" }

func (*landlock) auto() bool { return true }

// installed reports whether the kernel has Landlock: it needs no program.
func (*landlock) installed(*Sandbox) bool { return landlockABI() > 0 }

// probe returns why commands cannot run under Landlock, or "": the
// kernel must have it, and the launcher must start and run a command.
func (l *landlock) probe(ctx context.Context, s *Sandbox) string {
	abi := landlockABI()
	if abi < 1 {
		return "the kernel has no Landlock (or it is turned off)"
	}
	launcher := s.cfg.Launcher
	if launcher == "" {
		exe, err := os.Executable()
		if err != nil {
			return "Landlock: cannot find this program to start commands with: " + err.Error()
		}
		launcher = exe
	}
	l.abi, l.launcher = abi, launcher
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd, cleanup, err := l.command(ctx, s, Command{Script: "true"})
	if err != nil {
		return "Landlock cannot be set up: " + err.Error()
	}
	defer cleanup()
	if out, err := cmd.CombinedOutput(); err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		return "Landlock fails here: " + msg
	}
	return ""
}

// command returns the command that runs c under Landlock, through the
// launcher, with a private temporary folder that cleanup removes.
func (l *landlock) command(ctx context.Context, s *Sandbox, c Command) (*exec.Cmd, func(), error) {
	tmp, err := os.MkdirTemp("", "harness-cmd-")
	if err != nil {
		return nil, nil, err
	}
	removeTmp := func() { os.RemoveAll(tmp) }
	rules, err := l.rules(s, c, tmp)
	if err != nil {
		removeTmp()
		return nil, nil, err
	}
	filter, err := unixSocketFilter()
	if err != nil {
		removeTmp()
		return nil, nil, err
	}
	data, err := json.Marshal(launchSpec{ABI: l.abi, Rules: rules, Seccomp: filter})
	if err != nil {
		removeTmp()
		return nil, nil, err
	}
	spec, err := dataFile(data)
	if err != nil {
		removeTmp()
		return nil, nil, err
	}
	cmd := exec.CommandContext(ctx, l.launcher, s.shellArgs(c.Script, false)...)
	cmd.Dir = s.cfg.Dir
	cmd.Env = append(s.env(tmp), launchVar+"=1")
	cmd.ExtraFiles = []*os.File{spec}
	return cmd, func() { spec.Close(); removeTmp() }, nil
}

// rules returns the rules that let c read what it may read and
// write what it may write, in the private folder tmp: see the package
// documentation. Landlock only grants, and grants to everything beneath a
// folder: a folder holding something hidden or read-only is opened up
// one entry at a time, its own names readable, so nothing in it can be
// made, renamed or removed.
func (*landlock) rules(s *Sandbox, c Command, tmp string) ([]launchRule, error) {
	p := &planner{deny: s.hidden(c), rules: make(map[string]uint64)}
	for _, r := range c.ReadOnly {
		if real, err := filepath.EvalSymlinks(r); err == nil {
			p.readOnly = append(p.readOnly, real)
		}
	}
	for _, d := range systemDirs {
		p.grant(d, llRead)
	}
	p.grant("/dev", llDevice)
	p.grantProc()
	for _, d := range s.toolDirs() {
		p.grant(d, llRead)
	}
	for _, r := range p.readOnly {
		p.grant(r, llRead) // a worktree's git directory lies elsewhere
	}
	p.grant(s.cfg.Dir, llRead|llWrite)
	p.grant(tmp, llRead|llWrite)
	for _, w := range s.cfg.Write {
		p.grant(w, llRead|llWrite)
	}
	if p.err != nil {
		return nil, p.err
	}
	out := make([]launchRule, 0, len(p.rules))
	for path, access := range p.rules {
		out = append(out, launchRule{Path: path, Access: access})
	}
	slices.SortFunc(out, func(a, b launchRule) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// planner gathers Landlock rules.
type planner struct {
	deny     []string // neither read nor written, nor anything in them
	readOnly []string // read, never written
	rules    map[string]uint64
	err      error
}

// grant lets commands use path, and what is in it, with access: less in
// what is read-only, nothing in what is hidden. A path that does not
// exist is left out.
func (p *planner) grant(path string, access uint64) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return
	}
	fi, err := os.Stat(real)
	if err != nil {
		return
	}
	p.grantReal(real, fi.IsDir(), access)
}

func (p *planner) grantReal(path string, isDir bool, access uint64) {
	if p.err != nil || within(p.deny, path) {
		return
	}
	if within(p.readOnly, path) {
		access &= llRead
	}
	if !isDir {
		p.add(path, access&llFile)
		return
	}
	if !p.holds(path) {
		p.add(path, access)
		return
	}
	p.add(path, unix.LANDLOCK_ACCESS_FS_READ_DIR&access) // its names, nothing more
	entries, err := os.ReadDir(path)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			continue // reached through where it leads, if granted there
		}
		p.grantReal(filepath.Join(path, e.Name()), e.IsDir(), access)
	}
}

// grantProc lets commands read what /proc says of the system (cpuinfo,
// meminfo, sys/...), and nothing of any process, their own included:
// Landlock does not stop a sandboxed process from reading another's
// environment there, and the harness's holds the keys it keeps from
// commands.
func (p *planner) grantProc() {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 || strings.Trim(e.Name(), "0123456789") == "" {
			continue // self, thread-self, mounts, and every process
		}
		p.grantReal(filepath.Join("/proc", e.Name()), e.IsDir(), llRead)
	}
}

// holds reports whether something hidden or read-only lies strictly
// inside the folder dir.
func (p *planner) holds(dir string) bool {
	for _, list := range [][]string{p.deny, p.readOnly} {
		for _, x := range list {
			if x != dir && fence.Within(dir, x) {
				return true
			}
		}
	}
	return false
}

func (p *planner) add(path string, access uint64) {
	if access == 0 {
		return
	}
	if _, ok := p.rules[path]; !ok && len(p.rules) >= maxRules {
		p.err = fmt.Errorf("more than %d Landlock rules would be needed (folders that hold hidden files are opened up one entry at a time)", maxRules)
		return
	}
	p.rules[path] |= access
}
