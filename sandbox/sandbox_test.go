package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"harness/fence"
)

// dirs returns a workspace and a folder beside it, both resolved. They are
// made outside /tmp when they can be, since inside bwrap /tmp is an empty
// private folder that would hide the folder beside the workspace anyway.
func dirs(t *testing.T) (ws, outside string) {
	t.Helper()
	parent := ""
	if fi, err := os.Stat("/var/tmp"); err == nil && fi.IsDir() {
		parent = "/var/tmp"
	}
	base, err := os.MkdirTemp(parent, "sandbox-test-")
	if err != nil {
		base, err = os.MkdirTemp("", "sandbox-test-")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if base, err = filepath.EvalSymlinks(base); err != nil {
		t.Fatal(err)
	}
	ws, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return ws, outside
}

func newSandbox(t *testing.T, cfg Config) *Sandbox {
	t.Helper()
	if cfg.Env == nil {
		cfg.Env = Env(os.Environ(), cfg.Dir)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// writeTree writes each file of files, at its absolute path, with its
// folders; the files may be run.
func writeTree(t *testing.T, files map[string]string) {
	t.Helper()
	for path, content := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// envWithPath returns the environment of commands in ws, with dirs
// added to the end of PATH.
func envWithPath(ws string, dirs ...string) []string {
	env := Env(os.Environ(), ws)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = kv + string(filepath.ListSeparator) + strings.Join(dirs, string(filepath.ListSeparator))
		}
	}
	return env
}

// stops checks that script, run in ws with no sandbox, prints without (or
// the test proves nothing: what the sandbox should stop is not there to
// stop), and run in boxed, a sandbox of that workspace, prints within.
// what says what the sandbox stopped, for the error.
func stops(t *testing.T, ws string, boxed *Sandbox, script, without, within, what string) {
	t.Helper()
	if res := run(t, newSandbox(t, Config{Mode: None, Dir: ws}), script); res.Output != without {
		t.Fatalf("without a sandbox %q prints %q, not %q: the test proves nothing", script, res.Output, without)
	}
	if res := run(t, boxed, script); res.Output != within {
		t.Errorf("under %s, %s: %q", boxed.Tier(), what, res.Output)
	}
}

// isolated returns a sandbox that runs commands in bwrap, or skips the test
// when bwrap cannot run here, unless HARNESS_REQUIRE_BWRAP is set, as CI
// sets it, so that a broken install fails instead of passing quietly.
func isolated(t *testing.T, cfg Config) *Sandbox {
	t.Helper()
	cfg.Mode = Bwrap
	s := newSandbox(t, cfg)
	if err := s.Start(context.Background()); err != nil {
		if os.Getenv("HARNESS_REQUIRE_BWRAP") != "" {
			t.Fatalf("HARNESS_REQUIRE_BWRAP is set and %v", err)
		}
		t.Skipf("skipped: this test needs bubblewrap, and %v", err)
	}
	return s
}

// landlocked returns a sandbox that runs commands under Landlock, or
// skips the test where the kernel cannot, unless HARNESS_REQUIRE_LANDLOCK
// is set, as CI sets it where the kernel has Landlock.
func landlocked(t *testing.T, cfg Config) *Sandbox {
	t.Helper()
	cfg.Mode = Landlock
	s := newSandbox(t, cfg)
	if err := s.Start(context.Background()); err != nil {
		if os.Getenv("HARNESS_REQUIRE_LANDLOCK") != "" {
			t.Fatalf("HARNESS_REQUIRE_LANDLOCK is set and %v", err)
		}
		t.Skipf("skipped: this test needs Landlock, and %v", err)
	}
	return s
}

func run(t *testing.T, s *Sandbox, script string) Result {
	t.Helper()
	res, err := s.Run(context.Background(), Command{Script: script})
	if err != nil {
		t.Fatalf("Run(%q): %v", script, err)
	}
	return res
}

func TestRunOutputAndExit(t *testing.T) {
	ws, _ := dirs(t)
	for _, mode := range []Mode{None, Bwrap} {
		t.Run(string(mode), func(t *testing.T) {
			var s *Sandbox
			if mode == Bwrap {
				s = isolated(t, Config{Dir: ws})
			} else {
				s = newSandbox(t, Config{Mode: None, Dir: ws})
			}
			res := run(t, s, "echo out; echo err >&2; pwd; exit 3")
			if want := "out\nerr\n" + ws + "\n"; res.Output != want || res.Exit != 3 {
				t.Errorf("got %q exit %d, want %q exit 3", res.Output, res.Exit, want)
			}
			// No input: a command that reads stdin ends at once.
			if res := run(t, s, "cat; echo done"); res.Output != "done\n" {
				t.Errorf("reading stdin: %q", res.Output)
			}
		})
	}
}

func TestEnv(t *testing.T) {
	ws := "/work/ws"
	environ := []string{
		"PATH=/usr/bin:.::bin:/work/ws/node_modules/.bin:/bin",
		"HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C",
		"OPENAI_API_KEY=sk-abc", "GITHUB_TOKEN=ghp_x", "AWS_SECRET_ACCESS_KEY=x", "AWS_ACCESS_KEY_ID=AKIA",
		"OLLAMA_HOST=127.0.0.1:11434", "SSH_AUTH_SOCK=/tmp/agent", "LD_PRELOAD=/x.so", "BASH_ENV=/x",
		"GOPROXY=https://user:pass@proxy.example", "GOPATH=/home/u/go", "LC_SESSION_TOKEN=x",
	}
	got := Env(environ, ws)
	want := []string{"PATH=/usr/bin:/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "GOPATH=/home/u/go"}
	for _, kv := range want {
		if !slices.Contains(got, kv) {
			t.Errorf("missing %s", kv)
		}
	}
	for _, kv := range got {
		name, _, _ := strings.Cut(kv, "=")
		if strings.Contains(kv, "sk-abc") || strings.Contains(kv, "pass@") || strings.Contains(name, "TOKEN") ||
			slices.Contains([]string{"OLLAMA_HOST", "SSH_AUTH_SOCK", "LD_PRELOAD", "BASH_ENV", "AWS_ACCESS_KEY_ID"}, name) {
			t.Errorf("kept %s", kv)
		}
	}
	if !slices.Contains(got, "GIT_TERMINAL_PROMPT=0") || !slices.Contains(got, "GIT_CONFIG_VALUE_1=/dev/null") {
		t.Errorf("fixed settings missing from %q", got)
	}
}

// Each variable is kept or dropped on its own.
func TestEnvVariables(t *testing.T) {
	tests := []struct {
		kv   string
		kept bool
	}{
		{"LC_CTYPE=C.UTF-8", true},
		{"LC_TELEPHONE=C", true},
		{"LC_MY_API_KEY=abc", false}, // ssh passes any LC_ on; only locale categories are kept
		{"LC_TERMINAL=iTerm2", false},
		{"LC_SESSION_TOKEN=x", false},
		{"GOPROXY=https://proxy.golang.org,direct", true},
		{"GOPROXY=https://user:pass@proxy.example", false},
		{"GOPROXY=https://TOKEN@proxy.example", false}, // a user name alone can be a token
		{"GOPROXY=https://proxy.example,https://u:p@other.example", false},
		{"GONOSUMDB=example.com/*", true},
		{"GOFLAGS=-mod=mod -trimpath", true},
		{"GOFLAGS=-ldflags=-X=main.token=ghp_abcdefghijklmnopqrstuvwxyz0123456789", false},
		{"GOFLAGS=-ldflags=-X=main.apiKey=sk-live-abcdefghijklmnopqrstuv", false},
		{"GOPROXY=https://proxy.example/?access_token=abcdefgh12345", false},
		{"GONOSUMDB=glpat-abcdefghij0123456789", false},
		{"GOPRIVATE=*.corp.example.com", true},
		{"GITHUB_TOKEN=ghp_x", false},
		{"EDITOR=vi", false},
		{"PATH", false}, // no "=": not a variable
	}
	for _, tt := range tests {
		got := slices.Contains(Env([]string{tt.kv}, "/ws"), tt.kv)
		if got != tt.kept {
			t.Errorf("Env kept %s: %v, want %v", tt.kv, got, tt.kept)
		}
	}
	// PATH loses what is inside the workspace once cleaned, and keeps a
	// sibling whose name starts with the workspace's.
	if got := Env([]string{"PATH=/usr/bin:/ws/../ws/bin:/ws/:/wsx/bin:bin"}, "/ws"); got[0] != "PATH=/usr/bin:/wsx/bin" {
		t.Errorf("Env made %s", got[0])
	}
}

// No name on the list of kept variables has a secret's name: the list and
// the secret vocabulary agree.
func TestKeepVarsAreNoSecrets(t *testing.T) {
	for name := range keepVars {
		if fence.SecretVar(name) {
			t.Errorf("%s is kept, but its name is a secret's", name)
		}
	}
}

// The environment reaches the command as Env made it.
func TestRunCleanEnv(t *testing.T) {
	ws, _ := dirs(t)
	t.Setenv("HARNESS_TEST_API_KEY", "sk-leak")
	s, err := New(Config{Mode: None, Dir: ws})
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, s, "env")
	if strings.Contains(res.Output, "sk-leak") || !strings.Contains(res.Output, "PAGER=cat") {
		t.Errorf("env of the command:\n%s", res.Output)
	}
}

func TestTimeoutKillsProcessGroup(t *testing.T) {
	ws, _ := dirs(t)
	s := newSandbox(t, Config{Mode: None, Dir: ws, Timeout: 300 * time.Millisecond})
	began := time.Now()
	// The background child prints its pid and would outlive the shell.
	res := run(t, s, "sleep 60 & echo $!; sleep 60")
	if d := time.Since(began); d > 5*time.Second {
		t.Fatalf("Run took %v after a 300ms timeout", d)
	}
	if !res.TimedOut || res.Exit != -1 {
		t.Errorf("TimedOut %v, Exit %d; want a timed-out kill", res.TimedOut, res.Exit)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(res.Output))
	if err != nil {
		t.Fatalf("no pid printed: %q", res.Output)
	}
	if alive(pid) {
		t.Errorf("the background child %d still runs", pid)
	}
}

// Even a command that ends normally leaves nothing running behind.
func TestLeftoversKilled(t *testing.T) {
	ws, _ := dirs(t)
	s := newSandbox(t, Config{Mode: None, Dir: ws})
	res := run(t, s, "sleep 60 >/dev/null 2>&1 & echo $!")
	pid, err := strconv.Atoi(strings.TrimSpace(res.Output))
	if err != nil {
		t.Fatalf("no pid printed: %q", res.Output)
	}
	if alive(pid) {
		t.Errorf("the background child %d outlived the command", pid)
	}
}

func TestCancel(t *testing.T) {
	ws, _ := dirs(t)
	s := newSandbox(t, Config{Mode: None, Dir: ws})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	began := time.Now()
	_, err := s.Run(ctx, Command{Script: "sleep 60"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's error", err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("Run took %v after cancel", d)
	}
}

func TestOutputCapped(t *testing.T) {
	ws, _ := dirs(t)
	s := newSandbox(t, Config{Mode: None, Dir: ws, MaxOutput: 1000})
	res := run(t, s, "seq 1 100000")
	if len(res.Output) > 1100 || res.Omitted == 0 {
		t.Fatalf("output of %d bytes, %d omitted", len(res.Output), res.Omitted)
	}
	if !strings.HasPrefix(res.Output, "1\n2\n3\n") || !strings.HasSuffix(res.Output, "99999\n100000\n") || !strings.Contains(res.Output, "bytes of output left out") {
		t.Errorf("output does not keep its start, its end and a marker:\n%s", res.Output)
	}
	if res.Exit != 0 || res.Flooded {
		t.Errorf("exit %d flooded %v", res.Exit, res.Flooded)
	}
}

func TestFloodStopped(t *testing.T) {
	ws, _ := dirs(t)
	s := newSandbox(t, Config{Mode: None, Dir: ws, Flood: 1 << 20})
	began := time.Now()
	res := run(t, s, "yes flood")
	if d := time.Since(began); d > 10*time.Second {
		t.Fatalf("a flood ran for %v", d)
	}
	if !res.Flooded || res.Exit != -1 || len(res.Output) > DefaultMaxOutput+100 {
		t.Errorf("flooded %v exit %d, %d bytes kept", res.Flooded, res.Exit, len(res.Output))
	}
}

// A command's Output writer gets the whole output, however long, until a
// flood stops it, and none of it is kept in the Result.
func TestOutputStreamed(t *testing.T) {
	ws, _ := dirs(t)
	s := newSandbox(t, Config{Mode: None, Dir: ws, MaxOutput: 1000, Flood: 1 << 20})
	var whole bytes.Buffer
	res, err := s.Run(context.Background(), Command{Script: "seq 1 100000; echo err >&2", Output: &whole})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := exec.Command("seq", "1", "100000").Output()
	if whole.String() != string(want)+"err\n" {
		t.Errorf("the writer got %d bytes, want %d", whole.Len(), len(want)+4)
	}
	if res.Output != "" || res.Omitted != 0 || res.Exit != 0 {
		t.Errorf("result %+v, want no output kept and exit 0", res)
	}
	whole.Reset()
	res, err = s.Run(context.Background(), Command{Script: "yes flood", Output: &whole})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Flooded || res.Output != "" || whole.Len() <= 1<<20 || whole.Len() > 1<<20+1<<17 {
		t.Errorf("flooded %v, %d bytes kept, the writer got %d", res.Flooded, len(res.Output), whole.Len())
	}
}

func TestInvalidUTF8(t *testing.T) {
	ws, _ := dirs(t)
	s := newSandbox(t, Config{Mode: None, Dir: ws})
	res := run(t, s, `printf 'a\377b'`)
	if res.Output != "a\uFFFDb" {
		t.Errorf("output %q", res.Output)
	}
}

func TestNewChecksConfig(t *testing.T) {
	ws, _ := dirs(t)
	for _, cfg := range []Config{
		{Mode: "docker", Dir: ws},
		{Mode: None, Dir: "relative"},
		{Mode: None, Dir: ws, Write: []string{filepath.Join(ws, "missing")}},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

func TestBwrapArgs(t *testing.T) {
	ws, outside := dirs(t)
	home := filepath.Join(outside, "home")
	for _, p := range []string{".ssh/id_rsa", ".netrc"} {
		path := filepath.Join(home, p)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte("secret"), 0o600)
	}
	os.WriteFile(filepath.Join(ws, ".env"), []byte("X=1"), 0o600)
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "config"), nil, 0o644)
	s := newSandbox(t, Config{Mode: Bwrap, Dir: ws, Home: home, Write: []string{outside}, Hide: []string{filepath.Dir(ws)}, MaxFileSize: 1 << 20, MaxMemory: 1 << 20, MaxProcs: 99})
	// No control group holds the processes here (see below): RLIMIT_NPROC does.
	procs := "ulimit -u 99 2>/dev/null; "
	list, files, err := new(bwrap).args(s, Command{
		Script:   "go test ./...",
		Hide:     []string{filepath.Join(ws, ".env"), filepath.Join(ws, "missing")},
		ReadOnly: []string{filepath.Join(ws, ".git"), "/etc/passwd"},
		Replace:  []File{{Path: filepath.Join(ws, ".git", "config"), Data: []byte("[core]\n")}, {Path: filepath.Join(ws, "nothing")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll(files)
	// The file that exists, and the seccomp filter where there is one.
	filter, _ := unixSocketFilter()
	if want := map[bool]int{true: 2, false: 1}[filter != nil]; len(files) != want {
		t.Fatalf("%d files for bwrap, want %d", len(files), want)
	}
	args := strings.Join(list, " ")
	seccomp := ""
	if filter != nil {
		seccomp = "--seccomp 4 "
	}
	for _, want := range []string{
		"--die-with-parent --new-session --unshare-all --cap-drop ALL --unshare-user --disable-userns --ro-bind / / --dev /dev --size 536870912 --tmpfs /dev/shm --remount-ro /dev --proc /proc --size 536870912 --tmpfs /tmp ",
		"--bind " + ws + " " + ws + " --bind " + outside + " " + outside,
		// home lies in a path of Write: it is hidden once that is mounted
		"--tmpfs " + home + " --remount-ro " + home,
		"--tmpfs " + filepath.Join(home, ".ssh") + " --remount-ro " + filepath.Join(home, ".ssh"),
		"--ro-bind /dev/null " + filepath.Join(home, ".netrc"),
		"--ro-bind /dev/null " + filepath.Join(ws, ".env"),
		"--ro-bind " + filepath.Join(ws, ".git") + " " + filepath.Join(ws, ".git") + " --ro-bind-data 3 " + filepath.Join(ws, ".git", "config"),
		seccomp + "--chdir " + ws + ` -- bash --noprofile --norc -c ulimit -f 1024 2>/dev/null; ulimit -d 1024 2>/dev/null; ` + procs + `exec "$0" --noprofile --norc -o pipefail -c "$1" bash go test ./...`,
	} {
		if !strings.Contains(args, want) {
			t.Errorf("args lack %q:\n%s", want, args)
		}
	}
	for _, bad := range []string{"missing", "nothing", "/etc/passwd", ".aws", "--tmpfs " + filepath.Dir(ws) + " "} {
		if strings.Contains(args, bad) {
			t.Errorf("args hold %q:\n%s", bad, args)
		}
	}
}

// Under bwrap, RLIMIT_NPROC holds a command's processes where no control
// group does, and only in a user namespace of its own, where it counts
// them alone.
func TestBwrapArgsProcs(t *testing.T) {
	ws, _ := dirs(t)
	s := newSandbox(t, Config{Mode: Bwrap, Dir: ws, MaxProcs: 77})
	for _, tt := range []struct {
		groups   *cgroups
		nouserns bool
		want     bool
	}{
		{nil, false, true},
		{&cgroups{}, false, false},
		{nil, true, false},
	} {
		s.groups = tt.groups
		list, files, err := (&bwrap{nouserns: tt.nouserns}).args(s, Command{Script: "true"})
		if err != nil {
			t.Fatal(err)
		}
		closeAll(files)
		if got := strings.Contains(strings.Join(list, " "), "ulimit -u 77 2>/dev/null;"); got != tt.want {
			t.Errorf("with a control group %v, without a user namespace %v: RLIMIT_NPROC set %v, want %v", tt.groups != nil, tt.nouserns, got, tt.want)
		}
	}
}

// TestBwrapArgsPrivate: the home folder is mounted empty first, then its
// toolchains and the workspace in it, and made read-only last; the secret
// places in it need nothing more, being out of sight already.
func TestBwrapArgsPrivate(t *testing.T) {
	_, outside := dirs(t)
	home := filepath.Join(outside, "home")
	ws := filepath.Join(home, "src", "ws")
	for _, d := range []string{ws, filepath.Join(home, "go", "bin"), filepath.Join(home, ".ssh"), filepath.Join(home, ".local", "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=/usr/bin:" + filepath.Join(home, "go", "bin") + ":" + filepath.Join(home, ".local", "bin")}
	s := newSandbox(t, Config{Mode: Bwrap, Dir: ws, Home: home, Env: env})
	list, files, err := new(bwrap).args(s, Command{Script: "true"})
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll(files)
	args := strings.Join(list, " ")
	order := []string{
		"--tmpfs /tmp ",
		"--size 1048576 --tmpfs " + home + " ",
		"--ro-bind " + filepath.Join(home, "go", "bin") + " " + filepath.Join(home, "go", "bin") + " ",
		"--ro-bind " + filepath.Join(home, ".local", "bin") + " " + filepath.Join(home, ".local", "bin") + " ",
		"--bind " + ws + " " + ws + " ",
		"--remount-ro " + home + " ",
		"--chdir " + ws,
	}
	at := 0
	for _, want := range order {
		i := strings.Index(args[at:], want)
		if i < 0 {
			t.Fatalf("args lack %q after position %d:\n%s", want, at, args)
		}
		at += i + len(want)
	}
	for _, bad := range []string{".ssh", filepath.Join(home, "go") + " ", filepath.Join(home, ".local") + " "} {
		if strings.Contains(args, bad) {
			t.Errorf("args hold %q:\n%s", bad, args)
		}
	}
	if _, err := os.Stat("/run"); err == nil && !strings.Contains(args, "--tmpfs /run ") {
		t.Errorf("/run, where services keep their sockets, is not shut:\n%s", args)
	}
}

func TestBwrapWritesOnlyTheWorkspace(t *testing.T) {
	ws, outside := dirs(t)
	s := isolated(t, Config{Dir: ws})
	res := run(t, s, "echo in > inside.txt; echo out > "+outside+"/escaped.txt; echo tmp > /tmp/t; ls -A /tmp")
	if _, err := os.Stat(filepath.Join(outside, "escaped.txt")); err == nil {
		t.Error("the command wrote outside the workspace")
	}
	if b, err := os.ReadFile(filepath.Join(ws, "inside.txt")); err != nil || string(b) != "in\n" {
		t.Errorf("the command could not write in the workspace: %v", err)
	}
	if !strings.Contains(res.Output, "Read-only file system") {
		t.Errorf("output: %s", res.Output)
	}
	if !strings.HasSuffix(res.Output, "\nt\n") {
		t.Errorf("/tmp is not private and empty: %q", res.Output)
	}
	if _, err := os.Stat("/tmp/t"); err == nil && !strings.Contains(ws, "/tmp/t") {
		b, _ := os.ReadFile("/tmp/t")
		if string(b) == "tmp\n" {
			t.Error("the command wrote the real /tmp")
		}
	}
}

func TestBwrapWritePaths(t *testing.T) {
	ws, outside := dirs(t)
	s := isolated(t, Config{Dir: ws, Write: []string{outside}})
	run(t, s, "echo cache > "+outside+"/cache.txt")
	if _, err := os.Stat(filepath.Join(outside, "cache.txt")); err != nil {
		t.Errorf("a --sandbox-write path was not writable: %v", err)
	}
}

// A listener on the host's loopback is out of reach: the command has its
// own network, with nothing in it. Without bwrap the same command reaches
// it, which shows the test can fail.
func TestBwrapNoNetwork(t *testing.T) {
	checkNoNetwork(t, isolated)
}

// checkNoNetwork checks that a command run in the sandbox box makes
// cannot reach a listener on the host's loopback, which the same command
// reaches without a sandbox: the check can fail.
func checkNoNetwork(t *testing.T, box func(*testing.T, Config) *Sandbox) {
	t.Helper()
	ws, _ := dirs(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	script := fmt.Sprintf("(echo hi > /dev/tcp/127.0.0.1/%d) 2>/dev/null && echo connected || echo unreachable", port)
	stops(t, ws, box(t, Config{Dir: ws}), script, "connected\n", "unreachable\n", "a command reached the host's network")
}

func TestBwrapHidesSecrets(t *testing.T) {
	ws, outside := dirs(t)
	home := filepath.Join(outside, "home")
	files := map[string]string{
		filepath.Join(home, ".ssh", "id_ed25519"):  "PRIVATE KEY",
		filepath.Join(home, ".aws", "credentials"): "aws_secret",
		filepath.Join(home, ".netrc"):              "machine x password p",
		filepath.Join(home, ".bash_history"):       "export TOKEN=from-history",
		filepath.Join(home, ".config", "x", "tok"): "unlisted-token",
		filepath.Join(outside, "extra", "token"):   "extra-token",
		filepath.Join(ws, ".env"):                  "API_KEY=workspace-secret",
		filepath.Join(ws, "visible.txt"):           "visible",
	}
	for path, content := range files {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := isolated(t, Config{Dir: ws, Home: home, Hide: []string{filepath.Join(outside, "extra")}})
	var script strings.Builder
	for path := range files {
		fmt.Fprintf(&script, "cat %s 2>/dev/null; ", path)
	}
	script.WriteString("echo; ls -A " + filepath.Join(home, ".ssh") + " 2>/dev/null")
	res, err := s.Run(context.Background(), Command{Script: script.String(), Hide: []string{filepath.Join(ws, ".env")}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "visible\n" {
		t.Errorf("the sandbox showed more than the plain workspace file:\n%s", res.Output)
	}
	// The same command without bwrap sees everything: the test can fail.
	plain := run(t, newSandbox(t, Config{Mode: None, Dir: ws}), script.String())
	for _, secret := range []string{"PRIVATE KEY", "id_ed25519", "from-history", "unlisted-token"} {
		if !strings.Contains(plain.Output, secret) {
			t.Errorf("without bwrap %q is not there to hide:\n%s", secret, plain.Output)
		}
	}
}

// TestBwrapHomeShowsTools: in a workspace inside the home folder, a
// command runs the toolchains of the home folder and reads git's
// configuration, but sees nothing else of it: not git's credentials
// beside its configuration, nor the state of programs beside a folder of
// PATH (the harness's sessions among them).
func TestBwrapHomeShowsTools(t *testing.T) {
	checkHomeShowsTools(t, "bwrap", isolated)
}

// checkHomeShowsTools checks, for the sandbox box makes, what
// TestBwrapHomeShowsTools says.
func checkHomeShowsTools(t *testing.T, tier string, box func(*testing.T, Config) *Sandbox) {
	t.Helper()
	_, outside := dirs(t)
	home := filepath.Join(outside, "home")
	ws := filepath.Join(home, "src", "ws")
	files := map[string]string{
		filepath.Join(home, "go", "bin", "tool"):                            "#!/bin/sh\necho tool-ran\n",
		filepath.Join(home, ".local", "bin", "helper"):                      "#!/bin/sh\necho helper-ran\n",
		filepath.Join(home, ".config", "git", "config"):                     "[user]\nname = git-config-read\n",
		filepath.Join(home, ".config", "git", "credentials"):                "https://user:git-credential@example.com",
		filepath.Join(home, ".local", "state", "harness", "sessions", "s1"): "session-content",
		filepath.Join(ws, "main.go"):                                        "workspace-file",
	}
	writeTree(t, files)
	env := envWithPath(ws, filepath.Join(home, "go", "bin"), filepath.Join(home, ".local", "bin"))
	script := "tool; helper; cat main.go; echo; cat " + filepath.Join(home, ".config", "git", "config") +
		"; cat " + filepath.Join(home, ".config", "git", "credentials") + " " + filepath.Join(home, ".local", "state", "harness", "sessions", "s1") + " 2>/dev/null; ls -A " + home
	res := run(t, box(t, Config{Dir: ws, Home: home, Env: env}), script)
	for _, want := range []string{"tool-ran", "helper-ran", "workspace-file", "git-config-read"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("the command could not reach %q:\n%s", want, res.Output)
		}
	}
	for _, secret := range []string{"git-credential", "session-content"} {
		if strings.Contains(res.Output, secret) {
			t.Errorf("the command read %q:\n%s", secret, res.Output)
		}
	}
	plain := run(t, newSandbox(t, Config{Mode: None, Dir: ws, Home: home, Env: env}), script)
	for _, secret := range []string{"git-credential", "session-content"} {
		if !strings.Contains(plain.Output, secret) {
			t.Errorf("without %s %q is not there to hide:\n%s", tier, secret, plain.Output)
		}
	}
}

// TestBwrapHomeWritable: a workspace that is the home folder, or a home
// folder the user made writable, is seen and written as it is, its secret
// places still hidden.
func TestBwrapHomeWritable(t *testing.T) {
	_, outside := dirs(t)
	home := filepath.Join(outside, "home")
	ws := filepath.Join(home, "src", "ws")
	writeTree(t, map[string]string{
		filepath.Join(home, "notes.txt"):          "home-notes",
		filepath.Join(home, ".ssh", "id_ed25519"): "PRIVATE KEY",
		filepath.Join(ws, "main.go"):              "workspace-file",
	})
	script := "cat notes.txt .ssh/id_ed25519 src/ws/main.go 2>/dev/null; echo; echo made > made.txt && echo written"
	for name, cfg := range map[string]Config{
		"workspace is home":  {Dir: home, Home: home},
		"home made writable": {Dir: ws, Home: home, Write: []string{home}},
	} {
		t.Run(name, func(t *testing.T) {
			os.Remove(filepath.Join(home, "made.txt"))
			s := isolated(t, cfg)
			res := run(t, s, "cd "+home+" && "+script)
			if res.Output != "home-notesworkspace-file\nwritten\n" {
				t.Errorf("output %q, want the home folder's plain files, written", res.Output)
			}
		})
	}
}

// TestBwrapRead: a toolchain outside its usual places shows only its
// folder of PATH, until the user names it (--sandbox-read); a folder
// beside it stays shut either way.
func TestBwrapRead(t *testing.T) {
	_, outside := dirs(t)
	home := filepath.Join(outside, "home")
	ws := filepath.Join(home, "src", "ws")
	tool := filepath.Join(home, "sdk", "tool")
	writeTree(t, map[string]string{
		filepath.Join(tool, "bin", "run"):            "#!/bin/sh\ncat \"$(dirname \"$0\")/../lib/data\" 2>/dev/null || echo no-lib\n",
		filepath.Join(tool, "lib", "data"):           "tool-data",
		filepath.Join(home, "sdk", "other", "notes"): "sibling-notes",
		filepath.Join(ws, "main.go"):                 "package main",
	})
	env := envWithPath(ws, filepath.Join(tool, "bin"))
	script := "run; cat " + filepath.Join(home, "sdk", "other", "notes") + " 2>/dev/null; true"
	if res := run(t, isolated(t, Config{Dir: ws, Home: home, Env: env}), script); res.Output != "no-lib\n" {
		t.Errorf("without --sandbox-read: %q, want the folder of PATH alone", res.Output)
	}
	if res := run(t, isolated(t, Config{Dir: ws, Home: home, Env: env, Read: []string{tool}}), script); res.Output != "tool-data" {
		t.Errorf("with --sandbox-read %s: %q, want the toolchain whole and nothing beside it", tool, res.Output)
	}
}

// TestBwrapShutsSockets: a Unix socket where services keep theirs (/run)
// is not there for a command, so it cannot be connected to; without bwrap
// it is.
func TestBwrapShutsSockets(t *testing.T) {
	ws, _ := dirs(t)
	dir, err := os.MkdirTemp("/run", "harness-test-")
	if err != nil {
		t.Skipf("skipped: cannot make a folder in /run: %v", err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "service.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("skipped: cannot listen on a Unix socket: %v", err)
	}
	defer ln.Close()
	script := "test -S " + sock + " && echo socket-seen || echo no-socket"
	stops(t, ws, isolated(t, Config{Dir: ws}), script, "socket-seen\n", "no-socket\n", "a command sees a socket in /run")
}

func TestBwrapReadOnlyInWorkspace(t *testing.T) {
	ws, _ := dirs(t)
	cfg := filepath.Join(ws, ".git", "config")
	os.MkdirAll(filepath.Dir(cfg), 0o755)
	os.WriteFile(cfg, []byte("[core]\n"), 0o644)
	s := isolated(t, Config{Dir: ws})
	if _, err := s.Run(context.Background(), Command{Script: "echo '[alias] x = !id' >> .git/config; echo ok > .git/other", ReadOnly: []string{cfg}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(cfg); string(b) != "[core]\n" {
		t.Errorf(".git/config changed to %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "other")); err != nil {
		t.Errorf("the rest of .git was not writable: %v", err)
	}
}

func TestBwrapOwnProcesses(t *testing.T) {
	ws, _ := dirs(t)
	s := isolated(t, Config{Dir: ws})
	res := run(t, s, "ls /proc | grep -c '^[0-9]'")
	if n, err := strconv.Atoi(strings.TrimSpace(res.Output)); err != nil || n > 5 {
		t.Errorf("the command sees %q processes; want only its own", res.Output)
	}
}

func TestBwrapTimeout(t *testing.T) {
	ws, _ := dirs(t)
	s := isolated(t, Config{Dir: ws, Timeout: 300 * time.Millisecond})
	began := time.Now()
	res := run(t, s, "sleep 60 & sleep 60")
	if !res.TimedOut || time.Since(began) > 5*time.Second {
		t.Errorf("TimedOut %v after %v", res.TimedOut, time.Since(began))
	}
}

func TestAutoFallsBack(t *testing.T) {
	ws, _ := dirs(t)
	s := newSandbox(t, Config{Mode: Auto, Dir: ws, Bwrap: "no-such-bwrap-program"})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s.Isolated() || !strings.Contains(s.Fallback(), "not installed") {
		t.Errorf("Isolated %v, Fallback %q", s.Isolated(), s.Fallback())
	}
	if res := run(t, s, "echo ran"); res.Output != "ran\n" {
		t.Errorf("output %q", res.Output)
	}
	strict := newSandbox(t, Config{Mode: Bwrap, Dir: ws, Bwrap: "no-such-bwrap-program"})
	if err := strict.Start(context.Background()); !errors.Is(err, ErrUnavailable) {
		t.Errorf("mode bwrap without bwrap: err = %v", err)
	}
}

// TestAutoFindsOutOnFirstUse: in mode Auto nothing is started until the
// first command, whose result alone tells of the fallback.
func TestAutoFindsOutOnFirstUse(t *testing.T) {
	ws, _ := dirs(t)
	broken := filepath.Join(t.TempDir(), "bwrap")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho no namespaces here >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := newSandbox(t, Config{Mode: Auto, Dir: ws, Bwrap: broken})
	if !s.Installed() {
		t.Fatal("Installed is false for a program that exists")
	}
	if s.Fallback() != "" {
		t.Fatal("the probe ran before the first command")
	}
	first := run(t, s, "echo one")
	if first.Output != "one\n" || !strings.Contains(first.Notice, "no namespaces here") {
		t.Errorf("first command: output %q, notice %q", first.Output, first.Notice)
	}
	if second := run(t, s, "echo two"); second.Notice != "" {
		t.Errorf("the notice was given twice: %q", second.Notice)
	}
	if s.TakeNotice() != "" {
		t.Error("the notice could be taken again")
	}
	if newSandbox(t, Config{Mode: Auto, Dir: ws, Bwrap: "no-such-bwrap-program"}).Installed() {
		t.Error("Installed is true for a missing program")
	}
}

// TestProbeOutlivesACancelledCaller: the first command's context being
// cancelled (a Ctrl-C) must not decide, for the whole run, that bwrap
// does not work.
func TestProbeOutlivesACancelledCaller(t *testing.T) {
	ws, _ := dirs(t)
	isolated(t, Config{Dir: ws}) // skips where bwrap cannot run
	s := newSandbox(t, Config{Mode: Auto, Dir: ws})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if !s.Isolated() || s.Fallback() != "" {
		t.Errorf("a cancelled first caller turned bwrap off: fallback %q", s.Fallback())
	}
}

// TestPipefail: a pipeline fails when any command in it fails, so a failing
// test run piped through tail is not reported as passing.
func TestPipefail(t *testing.T) {
	ws, _ := dirs(t)
	s := newSandbox(t, Config{Mode: None, Dir: ws})
	if res := run(t, s, "false | cat"); res.Exit == 0 {
		t.Errorf("a failing pipeline exited 0: %+v", res)
	}
}

// TestChildHoldingOutput: a command whose shell exits while a process it
// started in a new session still holds the output ran, and says so with
// the shell's status; it is not "could not be started".
func TestChildHoldingOutput(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid program here")
	}
	ws, _ := dirs(t)
	s := newSandbox(t, Config{Mode: None, Dir: ws})
	res, err := s.Run(context.Background(), Command{Script: "setsid sleep 5 & echo started"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Exit != 0 || !strings.Contains(res.Output, "started") {
		t.Errorf("result %+v", res)
	}
}

// A file written past MaxFileSize stops at the limit, in every tier, and
// the result says so; a command that writes less is not stopped.
func TestFileSizeLimit(t *testing.T) {
	ws, _ := dirs(t)
	for _, mode := range []Mode{None, Bwrap, Landlock} {
		t.Run(string(mode), func(t *testing.T) {
			s := tiered(t, mode, Config{Dir: ws, MaxFileSize: 64 << 10})
			res := run(t, s, "seq 1 1000000 > big.txt; echo after")
			fi, err := os.Stat(filepath.Join(ws, "big.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() > 64<<10 {
				t.Errorf("big.txt is %d bytes, more than the limit", fi.Size())
			}
			if !strings.Contains(res.Output, "after") {
				t.Errorf("the shell itself was stopped: %q", res.Output)
			}
			if res := run(t, s, "seq 1 1000000 > big.txt"); !res.FileTooLarge || res.Exit == 0 {
				t.Errorf("the result does not tell of the limit: %+v", res)
			}
			if res := run(t, s, "seq 1 1000 > small.txt"); res.FileTooLarge || res.Exit != 0 {
				t.Errorf("a small file was stopped: %+v", res)
			}
		})
	}
}

// tiered returns a sandbox of mode, skipping the test where that cannot
// run (unless CI requires it, see isolated and landlocked).
func tiered(t *testing.T, mode Mode, cfg Config) *Sandbox {
	t.Helper()
	switch mode {
	case Bwrap:
		return isolated(t, cfg)
	case Landlock:
		return landlocked(t, cfg)
	}
	cfg.Mode = mode
	return newSandbox(t, cfg)
}

// Under bwrap the whole git directory is read-only when the command says
// so: nothing can be made in it, not even where nothing was.
func TestBwrapGitDirReadOnly(t *testing.T) {
	ws, _ := dirs(t)
	git := filepath.Join(ws, ".git")
	os.MkdirAll(git, 0o755)
	os.WriteFile(filepath.Join(git, "config"), []byte("[core]\n"), 0o644)
	s := isolated(t, Config{Dir: ws})
	script := "mkdir -p .git/hooks && echo id > .git/hooks/post-checkout; echo ../evil > .git/commondir; mv .git gd; echo ok > inside.txt"
	if _, err := s.Run(context.Background(), Command{Script: script, ReadOnly: []string{git}}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"hooks", "commondir"} {
		if _, err := os.Lstat(filepath.Join(git, p)); err == nil {
			t.Errorf(".git/%s was made", p)
		}
	}
	if fi, err := os.Lstat(git); err != nil || !fi.IsDir() {
		t.Errorf(".git was moved: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "inside.txt")); err != nil {
		t.Errorf("the workspace was not writable: %v", err)
	}
}

// A replaced file is what the command reads; the real one is untouched.
func TestBwrapReplace(t *testing.T) {
	ws, _ := dirs(t)
	cfg := filepath.Join(ws, "config")
	os.WriteFile(cfg, []byte("url = https://u:hunter2@example.com\n"), 0o644)
	s := isolated(t, Config{Dir: ws})
	res, err := s.Run(context.Background(), Command{Script: "cat config; echo x >> config", Replace: []File{{Path: cfg, Data: []byte("url = https://example.com\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Output, "url = https://example.com\n") || strings.Contains(res.Output, "hunter2") {
		t.Errorf("the command read %q", res.Output)
	}
	if b, _ := os.ReadFile(cfg); string(b) != "url = https://u:hunter2@example.com\n" {
		t.Errorf("the real file changed: %q", b)
	}
}

// A hidden path inside a folder the user made writable in the workspace
// (a build's output, ignored by .gitignore) stays visible and writable.
func TestBwrapWriteUnhides(t *testing.T) {
	ws, _ := dirs(t)
	target := filepath.Join(ws, "target")
	os.MkdirAll(target, 0o755)
	os.WriteFile(filepath.Join(ws, "ignored.txt"), []byte("IGNORED-CONTENT"), 0o644)
	s := isolated(t, Config{Dir: ws, Write: []string{target}})
	res, err := s.Run(context.Background(), Command{Script: "echo built > target/out; cat ignored.txt", Hide: []string{target, filepath.Join(ws, "ignored.txt")}})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(target, "out")); string(b) != "built\n" {
		t.Errorf("target was not writable: %q", res.Output)
	}
	if strings.Contains(res.Output, "IGNORED-CONTENT") {
		t.Errorf("a hidden file outside target was shown: %q", res.Output)
	}
}

// Git uses the workspace's own repository wherever it runs in it, or none,
// never a folder shaped like a git directory that a command left, whose
// configuration names programs to run (hole 2 of the third security
// round), under every tier.
func TestGitUsesTheWorkspaceRepositoryOnly(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	for _, mode := range []Mode{None, Bwrap, Landlock} {
		t.Run(string(mode), func(t *testing.T) {
			ws, _ := dirs(t)
			bare := filepath.Join(ws, "docs")
			for _, args := range [][]string{{"init", "-q", "--bare", bare}, {"--git-dir", bare, "config", "alias.x", "!touch ran"}} {
				if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
					t.Fatalf("git %q: %v\n%s", args, err, out)
				}
			}
			var s *Sandbox
			switch mode {
			case Bwrap:
				s = isolated(t, Config{Dir: ws})
			case Landlock:
				s = landlocked(t, Config{Dir: ws})
			default:
				s = newSandbox(t, Config{Mode: None, Dir: ws})
			}
			res := run(t, s, "cd docs && git x; git rev-parse --git-dir")
			if _, err := os.Lstat(filepath.Join(bare, "ran")); err == nil {
				t.Errorf("git ran the alias of a repository in the workspace:\n%s", res.Output)
			}
			if !strings.Contains(res.Output, "not a git repository: '"+filepath.Join(ws, ".git")+"'") {
				t.Errorf("git did not look for the workspace's own repository alone:\n%s", res.Output)
			}
			if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v\n%s", err, out)
			}
			res = run(t, s, "cd docs && git rev-parse --absolute-git-dir")
			if got := strings.TrimSpace(res.Output); got != filepath.Join(ws, ".git") {
				t.Errorf("in docs, git's repository is %q, want the workspace's", got)
			}
			// A command that drops GIT_DIR: git finds the bare repository
			// and refuses it, and reaches none by its path.
			res = run(t, s, "unset GIT_DIR GIT_WORK_TREE; (cd docs && git x); git remote add d ./docs && git fetch d")
			if _, err := os.Lstat(filepath.Join(bare, "ran")); err == nil {
				t.Errorf("without GIT_DIR, git ran the alias of a bare repository:\n%s", res.Output)
			}
			if !strings.Contains(res.Output, "transport 'file' not allowed") {
				t.Errorf("git fetched from a repository named by a remote of a local path:\n%s", res.Output)
			}
		})
	}
}
