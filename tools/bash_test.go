package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"harness/approve"
	"harness/guard"
	"harness/protocol"
	"harness/sandbox"
)

// fakeShell records the commands it is given, does what do does, and
// returns res.
type fakeShell struct {
	got []sandbox.Command
	res sandbox.Result
	err error
	do  func()
}

func (s *fakeShell) Run(_ context.Context, c sandbox.Command) (sandbox.Result, error) {
	s.got = append(s.got, c)
	if s.do != nil {
		s.do()
	}
	return s.res, s.err
}

func policy(t *testing.T) *guard.Policy {
	t.Helper()
	p, err := guard.New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBashRefusesBeforeRunning(t *testing.T) {
	ws := secretWorkspace(t)
	sh := &fakeShell{}
	bash := Bash(ws, policy(t), sh)
	tests := []struct {
		cmd, want string
	}{
		{"rm -rf build", "at line 1, column 1 (rm -rf build): rm deletes files"},
		{"ls && cat /etc/passwd", "outside the workspace"},
		{"cat .env", "protected as a secret"},
		{"grep KEY app.log", `.gitignore ignores it (pattern "*.log")`},
		{"cat build/out.txt", "ignores it"},
		{"cat certs/server.pem", "*.pem"},
		{"cat .npmrc", ".npmrc"},
		{"cat ops/.ssh/config", ".ssh"},
		{"echo x > .netrc", ".netrc"},
		{"echo x > .git/config", "git directory"},
		{"echo A=1 > .env.local", "protected as a secret"},
		{"ls -R .git", "git directory"},
		{"touch .git/hooks/pre-commit", "git directory"},
		{"mkdir -p sub/.git/hooks", "git directory"},
		{"cat $HOME/.ssh/id_rsa", "variable expansion"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			_, err := run(t, bash, map[string]any{"command": tt.cmd})
			if err == nil || !errors.Is(err, guard.ErrRefused) {
				t.Fatalf("err = %v, want a refusal", err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "Nothing was run") {
				t.Errorf("refusal %q does not say %q and that nothing ran", err, tt.want)
			}
		})
	}
	if len(sh.got) != 0 {
		t.Errorf("refused commands reached the shell: %+v", sh.got)
	}
}

func TestBashRunsWithHiddenSecrets(t *testing.T) {
	ws := secretWorkspace(t)
	sh := &fakeShell{res: sandbox.Result{Output: "ok\n"}}
	body, err := run(t, Bash(ws, policy(t), sh), map[string]any{"command": "go test ./..."})
	if err != nil || body != "ok\n[exit status 0]" {
		t.Fatalf("body %q, err %v", body, err)
	}
	got := sh.got[0]
	if got.Script != "go test ./..." {
		t.Errorf("script %q", got.Script)
	}
	for _, secret := range []string{".env", "deploy.key", "certs/server.pem", "id_rsa", "deploy/id_ed25519", ".npmrc", "ops/.ssh"} {
		if !slices.Contains(got.Hide, filepath.Join(ws.Root(), secret)) {
			t.Errorf("%s is not hidden from the command: %q", secret, got.Hide)
		}
	}
	for _, ignored := range []string{"app.log", "build", "local.txt", "sub/x.tmp", "excluded.txt"} {
		if !slices.Contains(got.Hide, filepath.Join(ws.Root(), ignored)) {
			t.Errorf("%s, which .gitignore ignores, is not hidden from the command: %q", ignored, got.Hide)
		}
	}
	if !slices.Equal(got.ReadOnly, []string{filepath.Join(ws.Root(), ".git")}) {
		t.Errorf("read-only paths %q, want the whole git directory", got.ReadOnly)
	}
	if len(got.Replace) != 0 {
		t.Errorf("a configuration without credentials was replaced: %+v", got.Replace)
	}
}

// The command sees the git configuration without the password of its
// remote; the file itself is untouched.
func TestBashRedactsGitConfig(t *testing.T) {
	config := "[remote \"origin\"]\n\turl = https://user:hunter2@example.com/repo\n"
	ws := newWorkspace(t, map[string]string{".git/config": config, ".git/HEAD": "ref: refs/heads/main\n"})
	sh := &fakeShell{}
	run(t, Bash(ws, policy(t), sh), map[string]any{"command": "git remote -v"})
	got := sh.got[0].Replace
	if len(got) != 1 || got[0].Path != filepath.Join(ws.Root(), ".git", "config") || strings.Contains(string(got[0].Data), "hunter2") || !strings.Contains(string(got[0].Data), "https://example.com/repo") {
		t.Errorf("replaced %+v", got)
	}
	if readString(t, filepath.Join(ws.Root(), ".git", "config")) != config {
		t.Error("the configuration itself changed")
	}
}

// What a command changes in the git directory is put back, and the result
// is an ERROR that names it: here test code that made a hook where there
// was no hooks folder, and a commondir pointing to a repository of its
// own (holes 1a and 1c of the second security round).
func TestBashPutsBackTheGitDir(t *testing.T) {
	ws := newWorkspace(t, map[string]string{".git/config": "[core]\n", ".git/HEAD": "ref: refs/heads/main\n", "main.go": "package main\n"})
	sh := &fakeShell{res: sandbox.Result{Output: "ok\n"}, do: func() {
		writeFiles(t, ws.Root(), map[string]string{
			".git/hooks/post-checkout": "#!/bin/sh\nid\n",
			".git/commondir":           "../evil\n",
			"evil/config":              "[core]\n\tfsmonitor = ./pwn\n",
		})
	}}
	_, err := run(t, Bash(ws, policy(t), sh), map[string]any{"command": "go test ./..."})
	if !errors.Is(err, ErrProtected) || !errors.Is(err, ErrMayHaveChanged) {
		t.Fatalf("err = %v, want one wrapping ErrProtected and ErrMayHaveChanged", err)
	}
	for _, want := range []string{"ok\n[exit status 0]", ".git/commondir (created)", ".git/hooks (created)", "put back"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the result does not say %q:\n%v", want, err)
		}
	}
	for _, p := range []string{".git/hooks", ".git/commondir"} {
		if _, err := os.Lstat(filepath.Join(ws.Root(), p)); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	// A command that leaves the git directory alone succeeds as before.
	sh.do = nil
	if body, err := run(t, Bash(ws, policy(t), sh), map[string]any{"command": "go test ./..."}); err != nil || body != "ok\n[exit status 0]" {
		t.Errorf("body %q, err %v", body, err)
	}
}

func TestBashResult(t *testing.T) {
	tests := []struct {
		name string
		res  sandbox.Result
		want string
		ok   bool
	}{
		{"success", sandbox.Result{Output: "PASS\n"}, "PASS\n[exit status 0]", true},
		{"no newline", sandbox.Result{Output: "x"}, "x\n[exit status 0]", true},
		{"no output", sandbox.Result{}, "(no output)\n[exit status 0]", true},
		{"failure", sandbox.Result{Output: "FAIL\n", Exit: 1}, "FAIL\n[exit status 1]", false},
		{"timeout", sandbox.Result{Output: "slow\n", Exit: -1, TimedOut: true, Elapsed: 2 * time.Minute}, "slow\n[killed after 2m0s: the command ran out of time", false},
		{"flood", sandbox.Result{Output: "y\n", Exit: -1, Flooded: true}, "y\n[stopped: the command wrote more output than the limit", false},
		{"read-only", sandbox.Result{Output: "mkdir /root/.cache: read-only file system\n", Exit: 1, Tier: sandbox.Bwrap}, "--sandbox-write", false},
		{"landlock", sandbox.Result{Output: "touch: cannot touch 'x': Permission denied\n", Exit: 1, Tier: sandbox.Landlock}, "under Landlock", false},
		{"too large", sandbox.Result{Output: "File size limit exceeded\n", Exit: 153, FileTooLarge: true}, "[exit status 153] [a file the command wrote reached the size limit", false},
		{"notice", sandbox.Result{Output: "ok\n", Notice: "this and later commands run under Landlock instead of the bubblewrap sandbox: why"}, "ok\n[exit status 0] [this and later commands run under Landlock instead of the bubblewrap sandbox: why]", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := bashResult(tt.res, nil)
			if tt.ok {
				if err != nil || body != tt.want {
					t.Errorf("got %q, %v; want %q", body, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %q, %v; want an error holding %q", body, err, tt.want)
			}
		})
		// The same output streamed to a spool, as under Outputs, gives the
		// same text.
		t.Run(tt.name+"/streamed", func(t *testing.T) {
			o := WithOutputs(mustSet(t), "")
			defer o.Close()
			sp := &spool{o: o, base: "out_1"}
			io.WriteString(sp, tt.res.Output)
			res := tt.res
			res.Output = ""
			body, err := bashResult(res, sp)
			want, wantErr := bashResult(tt.res, nil)
			if body != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Errorf("streamed: %q, %v; not %q, %v", body, err, want, wantErr)
			}
		})
	}
}

// The bash tool's inspection refuses a command line as the tool would,
// and carries the line it let through to the tool.
func TestBashInspect(t *testing.T) {
	ws := secretWorkspace(t)
	ts := inspecting(t, ws, policy(t))
	if in := ts.Inspect(t.Context(), protocol.Call{Name: "bash", Args: map[string]any{"command": "sudo ls"}}); !errors.Is(in.Refusal, guard.ErrRefused) || in.With != nil {
		t.Errorf("sudo: %+v", in)
	}
	in := ts.Inspect(t.Context(), protocol.Call{Name: "bash", Args: map[string]any{"command": "ls"}})
	if in.Refusal != nil || in.Subject != "ls" || in.With == nil || in.Edits {
		t.Fatalf("ls: %+v", in)
	}
	if line := checkedLine(in.With(t.Context()), "ls"); line == nil || line.String() != "ls" {
		t.Errorf("ls: the context carries %v", line)
	}
	if line := checkedLine(in.With(t.Context()), "ls -l"); line != nil {
		t.Errorf("ls: the context carries %v for another command", line)
	}
	if in := ts.Inspect(t.Context(), protocol.Call{Name: "read_file", Args: map[string]any{"path": "/etc/passwd"}}); in.Refusal != nil {
		t.Errorf("another tool: %+v", in)
	}
}

// End to end without bwrap: the guard passes the command, the sandbox runs
// it in the workspace with a clean environment.
func TestBashRuns(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "hello\n", "b.txt": "world\n"})
	t.Setenv("HARNESS_TEST_TOKEN", "tok-leak")
	sb, err := sandbox.New(sandbox.Config{Mode: sandbox.None, Dir: ws.Root()})
	if err != nil {
		t.Fatal(err)
	}
	bash := Bash(ws, policy(t), sb)
	body, err := run(t, bash, map[string]any{"command": "cat *.txt | wc -l && printenv HARNESS_TEST_TOKEN"})
	if err == nil || !strings.Contains(err.Error(), "2\n[exit status 1]") || strings.Contains(err.Error(), "tok-leak") {
		t.Errorf("body %q, err %v", body, err)
	}
	body, err = run(t, bash, map[string]any{"command": "mkdir -p out && echo done > out/x.txt && cat out/x.txt"})
	if err != nil || body != "done\n[exit status 0]" {
		t.Errorf("body %q, err %v", body, err)
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), "out", "x.txt")); err != nil {
		t.Error(err)
	}
}

// The bash tool's arguments are a typed struct, like every other tool's.
func TestBashSpec(t *testing.T) {
	spec := Bash(newWorkspace(t, nil), policy(t), &fakeShell{}).Spec()
	if spec.Name != "bash" || !spec.Writes || len(spec.Args) != 1 || spec.Args[0].Name != "command" || !spec.Args[0].Required {
		t.Errorf("spec %+v", spec)
	}
	if strings.Contains(spec.Description, "\n") {
		t.Error("the description spans lines")
	}
}

// A command's output streams to the file of its reference as it comes:
// the model gets its head and tail, and read_output all of it, beyond
// what the sandbox would hold in memory.
func TestBashStreamsLongOutputs(t *testing.T) {
	ws := newWorkspace(t, nil)
	sb, err := sandbox.New(sandbox.Config{Mode: sandbox.None, Dir: ws.Root(), MaxOutput: 1000})
	if err != nil {
		t.Fatal(err)
	}
	set, err := NewSet(Bash(ws, policy(t), sb))
	if err != nil {
		t.Fatal(err)
	}
	o := WithOutputs(set, "")
	defer o.Close()
	res := o.Run(t.Context(), protocol.Call{ID: "call_1", Name: "bash", Args: map[string]any{"command": "seq 1 300000"}})
	if !res.OK || !strings.HasPrefix(res.Body, "1\n2\n") || !strings.Contains(res.Body, "the whole output is out_1") || !strings.HasSuffix(res.Body, "299999\n300000\n[exit status 0]") {
		t.Errorf("result %.100q ... %.200q", res.Body, res.Body[max(0, len(res.Body)-200):])
	}
	want, err := exec.Command("seq", "1", "300000").Output()
	if err != nil {
		t.Skip(err)
	}
	if kept, _ := o.Kept("out_1"); kept != string(want)+"[exit status 0]" {
		t.Errorf("kept %d bytes, want the %d of the output and its status", len(kept), len(want))
	}
}

// Eighty commands that flood their output, each stopped at the flood
// limit: what they wrote goes to files, within the bound of a run, and
// nothing of it stays in memory; a command's output is not even held
// whole while it runs. HeapInuse is read after every call (the peak of
// what the calls leave before a collection) and after a collection at
// the end (what they keep).
func TestBashFloodsStayOnDisk(t *testing.T) {
	ws := newWorkspace(t, nil)
	sb, err := sandbox.New(sandbox.Config{Mode: sandbox.None, Dir: ws.Root(), Flood: 2 << 20})
	if err != nil {
		t.Fatal(err)
	}
	set, err := NewSet(Bash(ws, policy(t), sb))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "outputs")
	o := WithOutputs(set, dir)
	defer o.Close()
	o.maxKept = 16 << 20
	var before, now runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	peak := before.HeapInuse
	for i := range 80 {
		res := o.Run(t.Context(), protocol.Call{ID: protocol.CallID(i + 1), Name: "bash", Args: map[string]any{"command": "seq 1 1000000000"}})
		if res.OK || !strings.Contains(res.Body, "[stopped: the command wrote more output than the limit") || !strings.Contains(res.Body, "99\n100\n[... ") {
			t.Fatalf("call %d: %.300q", i+1, res.Body)
		}
		runtime.ReadMemStats(&now)
		peak = max(peak, now.HeapInuse)
	}
	runtime.GC()
	runtime.ReadMemStats(&now)
	var onDisk int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil {
			onDisk += fi.Size()
		}
	}
	const mib = 1 << 20
	t.Logf("HeapInuse %.1f MiB before, %.1f MiB at the peak, %.1f MiB after; Sys %.1f MiB; %d files, %.1f MiB on disk",
		float64(before.HeapInuse)/mib, float64(peak)/mib, float64(now.HeapInuse)/mib, float64(now.Sys)/mib, len(entries), float64(onDisk)/mib)
	if grew := int64(now.HeapInuse) - int64(before.HeapInuse); grew > 2*mib {
		t.Errorf("the heap kept %d bytes more after 80 floods", grew)
	}
	if grew := int64(peak) - int64(before.HeapInuse); grew > 12*mib {
		t.Errorf("the heap grew by %d bytes at its peak", grew)
	}
	if onDisk > o.maxKept || len(entries) < 7 {
		t.Errorf("%d files of %d bytes on disk, bound %d", len(entries), onDisk, o.maxKept)
	}
}

// enclosing finds the repository a workspace is a folder of, but not one
// a .git file or link points to (anyone who may write above the workspace
// could point it at any folder), not a .git folder that holds no
// repository, and not the home folder's own.
func TestEnclosing(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	t.Setenv("HOME", home)
	repo := func(dir string) {
		for _, d := range []string{filepath.Join(dir, ".git", "objects"), filepath.Join(dir, ".git", "refs")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := func(parts ...string) string {
		p := filepath.Join(append([]string{home}, parts...)...)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	repo(home) // the home folder's dotfiles
	repo(filepath.Join(home, "mono"))
	if l := enclosing(ws("mono", "svc", "api")); l.Git != filepath.Join(home, "mono", ".git") {
		t.Errorf("in a folder of ~/mono: %+v", l)
	}
	if l := enclosing(ws("notes")); l.Git != "" {
		t.Errorf("in ~/notes, only the home folder's repository above: %+v", l)
	}
	ws("pointed", "x")
	if err := os.WriteFile(filepath.Join(home, "pointed", ".git"), []byte("gitdir: ../..\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if l := enclosing(filepath.Join(home, "pointed", "x")); l.Git != "" {
		t.Errorf("through a .git file: %+v", l)
	}
	ws("empty", ".git")
	if l := enclosing(ws("empty", "x")); l.Git != "" {
		t.Errorf("a .git folder with no repository: %+v", l)
	}
	repo(ws("own"))
	if l := enclosing(filepath.Join(home, "own")); l.Git != "" {
		t.Errorf("a workspace with a .git of its own: %+v", l)
	}
}

// yes answers yes to every question.
type yes struct{}

func (yes) Ask(context.Context, approve.Question) (approve.Answer, error) { return approve.Yes, nil }

// TestBashParsesOnce: one bash call through the approval gate and the
// tool, its reads asked about and checked, its result read for whether it
// only read, runs the shell parser once, and runs the line it checked.
func TestBashParsesOnce(t *testing.T) {
	for _, mode := range []approve.Mode{approve.Auto, approve.Ask, approve.All} {
		t.Run(string(mode), func(t *testing.T) {
			ws := newWorkspace(t, map[string]string{"notes.txt": "milk\n"})
			p := policy(t)
			sh := &fakeShell{}
			set, err := NewSet(ReadFile(ws), Bash(ws, p, sh))
			if err != nil {
				t.Fatal(err)
			}
			out := WithOutputs(set, "")
			t.Cleanup(func() { out.Close() })
			src := NewSources(ws, out)
			g := approve.New(out, approve.Config{Mode: mode, Asker: yes{}, Inspector: out, Permit: WithSecrets, Leak: src.Leak})
			call := protocol.Call{ID: "call_1", Name: bashName, Args: map[string]any{"command": "cat notes.txt | rev"}}
			res := g.Run(t.Context(), call)
			if !res.OK || res.Wrote {
				t.Fatalf("result %+v", res)
			}
			if n := p.Parsed(); n != 1 {
				t.Errorf("the shell parser ran %d times for one call, want 1", n)
			}
			if len(sh.got) != 1 || sh.got[0].Script != "cat notes.txt | rev" {
				t.Errorf("ran %+v", sh.got)
			}
		})
	}
}
