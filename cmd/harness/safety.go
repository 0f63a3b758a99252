package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"harness/approve"
	"harness/guard"
	"harness/loop"
	"harness/protocol"
	"harness/sandbox"
	"harness/tools"
)

// safetyFlags choose how commands run and when the user is asked. Their
// zero values mean the defaults, so a command that only shows the tools
// (harness prompt) can build them without parsing any.
type safetyFlags struct {
	Sandbox         string        `default:"auto" enum:"auto,bwrap,landlock,seatbelt,none" env:"HARNESS_SANDBOX"`
	SandboxHide     []string      `placeholder:"PATH" sep:"none"`
	SandboxWrite    []string      `placeholder:"PATH" sep:"none"`
	SandboxRead     []string      `placeholder:"PATH" sep:"none"`
	BashTimeout     time.Duration `default:"2m"`
	BashMaxFileSize byteSize      `default:"1GiB"`
	BashAllow       []string      `placeholder:"NAME"`
	BashBlock       []string      `placeholder:"NAME"`
	Approve         string        `default:"auto" enum:"auto,edits,ask,deny,all" env:"HARNESS_APPROVE"`
}

// help is the help of each flag of safetyFlags, by field (see flagHelper).
func (safetyFlags) help(field string) string {
	switch field {
	case "Sandbox":
		return "How bash commands are sandboxed: auto uses, on Linux, bubblewrap (bwrap) where it works, else Landlock where the kernel has it; on macOS, Seatbelt (sandbox-exec); on Windows, none; and says so once when it falls back; bwrap, landlock and seatbelt require that one; none runs commands checked by the command guard only."
	case "SandboxHide":
		return "Hide PATH from commands, besides ~/.ssh, ~/.aws, ~/.gnupg and the other known secret places (in a sandbox). Repeatable."
	case "SandboxWrite":
		return "Let commands write PATH, such as a build cache (in a sandbox, where otherwise only the workspace and a private temporary folder are writable); an ignored folder of the workspace named so is no longer hidden. Repeatable."
	case "SandboxRead":
		return "Let commands read PATH, such as a toolchain in your home folder (in a sandbox, where the home folders are shut but for the usual toolchains and caches). Repeatable."
	case "BashTimeout":
		return "Most time one bash command may take; then it and everything it started are killed."
	case "BashMaxFileSize":
		return "Largest file a bash command may write (such as 100MiB, 2GiB, or bytes); a program writing past it is stopped there."
	case "BashAllow":
		return "Add NAME to the commands bash may run (default: read-only tools and common build and test commands). Repeatable."
	case "BashBlock":
		return "Refuse the command NAME even when allowed. Repeatable."
	case "Approve":
		return "When to ask you: auto asks before writes and commands, edits before commands only (file edits run; for unattended runs), ask before every call, deny refuses every call, all never asks (for tests and throwaway sandboxes). Secrets are asked about in every mode but all, which refuses them. Without a terminal a question counts as no."
	}
	return ""
}

// commands builds what the bash tool of ws runs commands with: the command
// guard's policy and the sandbox, as the flags say. Toolchains keep their
// caches in the folder caches ("": none of the harness's).
func (s *safetyFlags) commands(ws *tools.Workspace, caches string) (*guard.Policy, *sandbox.Sandbox, error) {
	policy, err := guard.New(s.BashAllow, s.BashBlock)
	if err != nil {
		return nil, nil, fmt.Errorf("--bash-allow/--bash-block: %w", err)
	}
	mode := sandbox.Mode(s.Sandbox)
	if mode == "" {
		mode = sandbox.Auto
	}
	box, err := sandbox.New(sandbox.Config{
		Mode:        mode,
		Dir:         ws.Root(),
		Write:       homePaths(s.SandboxWrite),
		Read:        homePaths(s.SandboxRead),
		Hide:        homePaths(s.SandboxHide),
		Timeout:     s.BashTimeout,
		MaxFileSize: int64(s.BashMaxFileSize),
		Caches:      caches,
	})
	if err != nil {
		return nil, nil, err
	}
	return policy, box, nil
}

// homePaths expands a leading ~/ in paths given in a way no shell expanded.
func homePaths(paths []string) []string {
	home, err := os.UserHomeDir()
	out := make([]string, len(paths))
	for i, p := range paths {
		if rest, ok := strings.CutPrefix(p, "~/"); ok && err == nil {
			p = filepath.Join(home, rest)
		}
		out[i] = p
	}
	return out
}

// startSandbox starts box now when it must fail early (a sandbox
// required) or costs little (none asked for, the preferred sandbox
// missing, or none on this system), saying through fb when commands will run without the
// preferred one. Starting bwrap to see that it works costs a run a few
// tens of milliseconds: otherwise the first command does it, and its
// result tells of a fallback.
func (s *safetyFlags) startSandbox(ctx context.Context, box *sandbox.Sandbox, fb *fallback) error {
	required := s.Sandbox != "" && s.Sandbox != string(sandbox.Auto) && s.Sandbox != string(sandbox.None)
	if required || s.Sandbox == string(sandbox.None) || !box.Installed() {
		if err := box.Start(ctx); err != nil {
			return fmt.Errorf("--sandbox %s: %w", s.Sandbox, err)
		}
	}
	if box.TakeNotice() != "" {
		fb.tell(box)
	}
	return nil
}

// gate wraps inner in the approval gate of the flags' mode, which asks
// inspector what a call would do and src what the files it reads hold.
// Its questions go to asker (nil: nobody can answer), its decisions to
// decided.
func (s *safetyFlags) gate(inner loop.Tools, inspector approve.Inspector, src *tools.Sources, asker approve.Asker, decided func(approve.Decision)) (*approve.Gate, error) {
	mode, err := approve.ParseMode(s.Approve)
	if s.Approve == "" {
		mode, err = approve.Auto, nil
	}
	if err != nil {
		return nil, err
	}
	return approve.New(inner, approve.Config{
		Mode:      mode,
		Asker:     asker,
		Inspector: inspector,
		Permit:    tools.WithSecrets,
		Leak:      src.Leak,
		Record:    decided,
	}), nil
}

// fallback tells the user, once, that commands run without the preferred
// sandbox of this system, how, and why.
type fallback struct {
	log  io.Writer
	told atomic.Bool
}

func (f *fallback) tell(box *sandbox.Sandbox) {
	if f.told.Swap(true) {
		return
	}
	if box.Tier() == sandbox.Landlock {
		fmt.Fprintf(f.log, "sandbox: bash commands run under Landlock, not bubblewrap (%s): they may write only the workspace (not its git directory) and a private temporary folder, read neither your home folder nor the workspace's secrets, and open no TCP connection where the kernel can stop it; they see the git configuration as it is. Install bubblewrap for the full sandbox, or pass --sandbox landlock to say you mean it.\n", box.Fallback())
		return
	}
	switch sandbox.Preferred() {
	case sandbox.Bwrap:
		fmt.Fprintf(f.log, "sandbox: bash commands run without bubblewrap (%s); the command guard still checks each one. Install bubblewrap for a sandbox, or pass --sandbox none to say you mean it.\n", box.Fallback())
	case sandbox.Seatbelt:
		fmt.Fprintf(f.log, "sandbox: bash commands run without Seatbelt, the macOS sandbox (%s); the command guard still checks each one. Pass --sandbox none to say you mean it.\n", box.Fallback())
	default:
		fmt.Fprintf(f.log, "sandbox: bash commands run without a sandbox (%s): the command guard checks each one, and a command's time and output are limited and everything it started ends with it. Pass --sandbox none to say you mean it.\n", box.Fallback())
	}
}

// byteSize is a size in bytes, given as a number with an optional unit:
// K, M or G, each a power of 1024, alone or followed by B or iB (512K,
// 100MiB, 2GB).
type byteSize int64

func (b *byteSize) UnmarshalText(text []byte) error {
	s := strings.TrimSpace(string(text))
	num := strings.TrimRight(s, "KMGiBkmgb")
	unit := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(s[len(num):]), "B"), "I")
	n, err := strconv.ParseInt(num, 10, 64)
	shift, ok := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30}[unit]
	if err != nil || !ok || n <= 0 || n > math.MaxInt64>>shift {
		return fmt.Errorf("%q is not a size: use a positive number of bytes, or one with K, M or G (such as 512K, 100MiB, 2GiB)", s)
	}
	*b = byteSize(n << shift)
	return nil
}

// sandboxNotice is the outermost layer of a chat's tools: the approval
// gate, which tells the user once when commands turn out to run without
// the sandbox preferred on this system.
type sandboxNotice struct {
	*approve.Gate
	box      *sandbox.Sandbox
	fallback *fallback
}

// Run runs call through the gate. The first command finds out whether
// bwrap works; when it does not, the user is told then, as the model is in
// the command's result.
func (g *sandboxNotice) Run(ctx context.Context, call protocol.Call) protocol.Result {
	res := g.Gate.Run(ctx, call)
	if g.box.Fallback() != "" {
		g.fallback.tell(g.box)
	}
	return res
}

var (
	_ loop.Tools = (*sandboxNotice)(nil)
)
