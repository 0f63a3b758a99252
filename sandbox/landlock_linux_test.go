package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Under Landlock a command writes the workspace and its private
// temporary folder, and nothing else: not beside the workspace, not the
// shared /tmp, not the home folder.
func TestLandlockWritesOnlyTheWorkspace(t *testing.T) {
	ws, outside := dirs(t)
	home := filepath.Join(outside, "home")
	os.MkdirAll(home, 0o755)
	s := landlocked(t, Config{Dir: ws, Home: home})
	res := run(t, s, fmt.Sprintf(`echo in > inside.txt; echo out > %[1]s/escaped.txt; echo home > %[2]s/h.txt; echo t > "$TMPDIR/t" && cat "$TMPDIR/t"; echo shared > /tmp/harness-landlock-test-%[3]d; echo done`, outside, home, os.Getpid()))
	for _, p := range []string{filepath.Join(outside, "escaped.txt"), filepath.Join(home, "h.txt"), fmt.Sprintf("/tmp/harness-landlock-test-%d", os.Getpid())} {
		if _, err := os.Stat(p); err == nil {
			os.Remove(p)
			t.Errorf("the command wrote %s", p)
		}
	}
	if b, err := os.ReadFile(filepath.Join(ws, "inside.txt")); err != nil || string(b) != "in\n" {
		t.Errorf("the command could not write in the workspace: %v\n%s", err, res.Output)
	}
	if !strings.Contains(res.Output, "\nt\n") || !strings.HasSuffix(res.Output, "done\n") || strings.Count(res.Output, "Permission denied") != 3 {
		t.Errorf("output: %s", res.Output)
	}
	if res.Tier != Landlock {
		t.Errorf("tier %q", res.Tier)
	}
}

// The git directory is read-only: git can read it, nothing can be made,
// changed or moved in it. Nothing can be made beside it either, in the
// folder that holds it; a subfolder is writable.
func TestLandlockGitDirReadOnly(t *testing.T) {
	ws, _ := dirs(t)
	git := filepath.Join(ws, ".git")
	os.MkdirAll(filepath.Join(git, "objects"), 0o755)
	os.WriteFile(filepath.Join(git, "config"), []byte("[core]\n"), 0o644)
	os.MkdirAll(filepath.Join(ws, "src"), 0o755)
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n"), 0o644)
	s := landlocked(t, Config{Dir: ws})
	script := "cat .git/config; mkdir -p .git/hooks; echo id > .git/hooks/post-checkout; echo ../evil > .git/commondir; echo x >> .git/config; " +
		"mv .git gd; echo new > root.txt; echo changed > main.go; echo ok > src/a.txt; ls"
	res, err := s.Run(context.Background(), Command{Script: script, ReadOnly: []string{git}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"hooks", "commondir"} {
		if _, err := os.Lstat(filepath.Join(git, p)); err == nil {
			t.Errorf(".git/%s was made", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(git, "config")); string(b) != "[core]\n" {
		t.Errorf(".git/config = %q", b)
	}
	if fi, err := os.Lstat(git); err != nil || !fi.IsDir() {
		t.Errorf(".git was moved: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "root.txt")); err == nil {
		t.Error("a file was made in the folder that holds .git")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "main.go")); string(b) != "changed\n" {
		t.Errorf("a file beside .git was not writable: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "src", "a.txt")); string(b) != "ok\n" {
		t.Errorf("a subfolder was not writable:\n%s", res.Output)
	}
	if !strings.HasPrefix(res.Output, "[core]\n") || !strings.Contains(res.Output, "main.go\nsrc\n") {
		t.Errorf("git's files or the root's names were not readable:\n%s", res.Output)
	}
}

// What bwrap hides Landlock keeps unreadable: the home folder's secret
// places (here under a fake home), the home folder itself, and the
// workspace's hidden files; a plain workspace file stays readable. The
// same command without Landlock reads them all, so the test can fail.
func TestLandlockHidesSecrets(t *testing.T) {
	ws, outside := dirs(t)
	home := filepath.Join(outside, "home")
	files := map[string]string{
		filepath.Join(home, ".ssh", "id_ed25519"):  "PRIVATE KEY",
		filepath.Join(home, ".aws", "credentials"): "aws_secret",
		filepath.Join(home, "notes.txt"):           "home-notes",
		filepath.Join(ws, ".env"):                  "workspace-secret",
		filepath.Join(ws, "build", "out.txt"):      "ignored-output",
		filepath.Join(ws, "visible.txt"):           "visible",
	}
	for path, content := range files {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var script strings.Builder
	for path := range files {
		fmt.Fprintf(&script, "cat %s 2>/dev/null; ", path)
	}
	script.WriteString("echo; ls -A " + filepath.Join(home, ".ssh") + " 2>/dev/null; grep -r . " + home + " 2>/dev/null")
	hide := []string{filepath.Join(ws, ".env"), filepath.Join(ws, "build")}
	s := landlocked(t, Config{Dir: ws, Home: home})
	res, err := s.Run(context.Background(), Command{Script: script.String(), Hide: hide})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "visible\n" {
		t.Errorf("Landlock showed more than the plain workspace file:\n%s", res.Output)
	}
	plain := run(t, newSandbox(t, Config{Mode: None, Dir: ws, Home: home}), script.String())
	for _, secret := range []string{"PRIVATE KEY", "home-notes", "workspace-secret", "ignored-output"} {
		if !strings.Contains(plain.Output, secret) {
			t.Errorf("without Landlock %q is not there to hide:\n%s", secret, plain.Output)
		}
	}
}

// TestLandlockHomeShowsTools: as TestBwrapHomeShowsTools, under Landlock,
// which grants the files of git's configuration, not their folder, and a
// folder of PATH, not the folder it lies in.
func TestLandlockHomeShowsTools(t *testing.T) {
	checkHomeShowsTools(t, "Landlock", landlocked)
}

// No TCP connection leaves the sandbox where the kernel's Landlock can
// stop it (ABI 4 and later): here, a listener on the host's loopback.
func TestLandlockNoNetwork(t *testing.T) {
	if abi := landlockABI(); abi < 4 {
		t.Skipf("Landlock ABI %d cannot stop TCP connections", abi)
	}
	checkNoNetwork(t, landlocked)
}

// Another process's environment, which may hold the keys the harness
// keeps from commands, cannot be read through /proc: Landlock lets a
// sandboxed process look into no process outside its sandbox.
func TestLandlockCannotReadOtherProcesses(t *testing.T) {
	ws, _ := dirs(t)
	other := exec.Command("sleep", "30")
	other.Env = append(os.Environ(), "HARNESS_TEST_OTHER_SECRET=other-secret-value")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	script := fmt.Sprintf("cat /proc/%d/environ 2>/dev/null | tr '\\0' '\\n' | grep -c other-secret-value", other.Process.Pid)
	stops(t, ws, landlocked(t, Config{Dir: ws}), script, "1\n", "0\n", "the command read another process's environment")
}

// The rules: the workspace root, which holds the git directory and a
// hidden file, is opened up entry by entry; the git directory is only
// read; the hidden file has no rule; the home folder has none.
func TestLandlockRules(t *testing.T) {
	ws, outside := dirs(t)
	home := filepath.Join(outside, "home")
	for _, p := range []string{".git/config", ".env", "src/a.go", "main.go"} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755)
		os.WriteFile(filepath.Join(ws, p), nil, 0o644)
	}
	os.MkdirAll(filepath.Join(home, "go", "bin"), 0o755)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o755)
	s := newSandbox(t, Config{Mode: Landlock, Dir: ws, Home: home, Env: []string{"PATH=/usr/bin:" + home + "/go/bin:" + home}})
	rules, err := new(landlock).rules(s, Command{ReadOnly: []string{filepath.Join(ws, ".git")}, Hide: []string{filepath.Join(ws, ".env")}}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[string]uint64)
	for _, r := range rules {
		got[r.Path] = r.Access
	}
	want := map[string]uint64{
		ws:                               unix.LANDLOCK_ACCESS_FS_READ_DIR,
		filepath.Join(ws, ".git"):        llRead,
		filepath.Join(ws, "src"):         llRead | llWrite,
		filepath.Join(ws, "main.go"):     (llRead | llWrite) & llFile,
		filepath.Join(home, "go", "bin"): llRead,
		"/dev":                           llDevice,
	}
	for path, access := range want {
		if got[path] != access {
			t.Errorf("rule for %s: %#x, want %#x", path, got[path], access)
		}
	}
	for _, path := range []string{filepath.Join(ws, ".env"), home, filepath.Join(home, ".ssh"), "/tmp", "/"} {
		if _, ok := got[path]; ok {
			t.Errorf("%s has a rule", path)
		}
	}
	if i := slices.IndexFunc(rules, func(r launchRule) bool { return strings.HasPrefix(r.Path, "/etc/ssh") }); i >= 0 {
		t.Errorf("rule %+v opens the system's secret places", rules[i])
	}
	if _, err := os.Stat("/etc/ssh"); err == nil && got["/etc"] != unix.LANDLOCK_ACCESS_FS_READ_DIR {
		t.Errorf("/etc, which holds /etc/ssh, has rule %#x; want its names only", got["/etc"])
	}
}

// Each ABI handles every right it knows, as go-landlock's V1 to V11
// configurations did: file rights growing with refer (2), truncate (3),
// ioctl on devices (5) and resolving UNIX sockets (9); TCP from 4, UDP
// from 10; the signal and abstract-socket scopes from 6. A kernel newer
// than the table gets its last ABI's.
func TestLandlockHandled(t *testing.T) {
	for _, tc := range []struct {
		abi             int
		fs, net, scoped uint64
	}{
		{1, 0x1fff, 0, 0},
		{2, 0x3fff, 0, 0},
		{3, 0x7fff, 0, 0},
		{4, 0x7fff, 0x3, 0},
		{5, 0xffff, 0x3, 0},
		{6, 0xffff, 0x3, 0x3},
		{7, 0xffff, 0x3, 0x3},
		{8, 0xffff, 0x3, 0x3},
		{9, 0x1ffff, 0x3, 0x3},
		{10, 0x1ffff, 0xf, 0x3},
		{11, 0x1ffff, 0xf, 0x3},
		{99, 0x1ffff, 0xf, 0x3},
	} {
		h := handled(tc.abi)
		if h.Handled_access_fs != tc.fs || h.Handled_access_net != tc.net || h.Scoped != tc.scoped {
			t.Errorf("ABI %d handles fs %#x net %#x scopes %#x; want %#x %#x %#x", tc.abi, h.Handled_access_fs, h.Handled_access_net, h.Scoped, tc.fs, tc.net, tc.scoped)
		}
	}
	// Every right a rule can grant is handled from the ABI that knows it.
	if all := handled(99).Handled_access_fs; (llRead|llWrite|llDevice|llFile)&^all != 0 {
		t.Errorf("rules may grant %#x, which no ABI handles", (llRead|llWrite|llDevice|llFile)&^all)
	}
}

// A command cannot signal a process outside its sandbox where the ABI
// scopes signals (6 and later), though the process is its user's.
func TestLandlockCannotSignalOutside(t *testing.T) {
	if abi := landlockABI(); abi < 6 {
		t.Skipf("Landlock ABI %d does not scope signals", abi)
	}
	ws, _ := dirs(t)
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	script := fmt.Sprintf("kill -0 %d 2>/dev/null && echo reached || echo stopped", other.Process.Pid)
	stops(t, ws, landlocked(t, Config{Dir: ws}), script, "reached\n", "stopped\n", "the command signalled a process outside")
}

// The launcher says what failed: a kernel without Landlock, or a rule for
// a path gone since the rules were made, whose error is the kernel's.
// The test's thread is never restricted, but it is locked and let go with
// its goroutine, so that no test runs on it if it were.
func TestLandlockRestrictFails(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec launchSpec
		want error
	}{
		{"no Landlock", launchSpec{ABI: 0}, nil},
		{"missing path", launchSpec{ABI: max(landlockABI(), 1), Rules: []launchRule{{Path: filepath.Join(t.TempDir(), "gone"), Access: llRead}}}, unix.ENOENT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.spec.ABI > 0 && landlockABI() < 1 {
				t.Skip("the kernel has no Landlock")
			}
			errc := make(chan error)
			go func() {
				runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
				errc <- restrict(tc.spec)
			}()
			err := <-errc
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("restrict: %v; want an error wrapping %v", err, tc.want)
			}
		})
	}
}
