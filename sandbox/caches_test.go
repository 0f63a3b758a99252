package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Commands get the toolchains' caches in Config.Caches, made by New,
// whatever the user's environment names, and may write them under every
// tier; the user's own Go build cache stays unwritable in a sandbox.
func TestCaches(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("skipped: needs the go command")
	}
	ws, outside := dirs(t)
	caches := filepath.Join(outside, "state", "caches")
	users := filepath.Join(outside, "user-go-build")
	if err := os.Mkdir(users, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(Env(os.Environ(), ws), "GOCACHE="+users, "npm_config_cache="+users, "XDG_CACHE_HOME="+users)
	script := `go env GOCACHE && touch "$(go env GOCACHE)/written" && echo "$npm_config_cache $PIP_CACHE_DIR $XDG_CACHE_HOME"; (echo x > ` + users + `/"$1") 2>/dev/null && echo user-cache-written; true`
	want := filepath.Join(caches, "go-build") + "\n" +
		strings.Join([]string{filepath.Join(caches, "npm"), filepath.Join(caches, "pip"), filepath.Join(caches, "xdg")}, " ") + "\n"
	for _, mode := range []Mode{None, Bwrap, Landlock} {
		t.Run(string(mode), func(t *testing.T) {
			os.RemoveAll(caches)
			s := tiered(t, mode, Config{Dir: ws, Env: env, Caches: caches})
			for _, v := range cacheVars {
				if fi, err := os.Stat(filepath.Join(caches, v.dir)); err != nil || !fi.IsDir() {
					t.Errorf("New did not make the cache %s: %v", v.dir, err)
				}
			}
			// A new file each time: Landlock cannot stop a command from
			// touching one that exists.
			res := run(t, s, strings.ReplaceAll(script, `"$1"`, "written-"+string(mode)))
			got := strings.TrimSuffix(res.Output, "user-cache-written\n")
			if got != want {
				t.Errorf("got %q, want %q", res.Output, want)
			}
			if _, err := os.Stat(filepath.Join(caches, "go-build", "written")); err != nil {
				t.Errorf("the cache was not written: %v", err)
			}
			if sandboxed := mode != None; sandboxed && got != res.Output {
				t.Errorf("under %s a command wrote the user's cache", mode)
			}
		})
	}
}

// The environment names the caches, once each, in place of the user's,
// whatever case a name has (Windows takes names without case).
func TestCachesEnv(t *testing.T) {
	caches := t.TempDir()
	s := newSandbox(t, Config{Mode: None, Dir: t.TempDir(), Env: []string{"PATH=/bin", "GOCACHE=/u", "gocache=/v", "Pip_Cache_Dir=/w"}, Caches: caches})
	real, _ := filepath.EvalSymlinks(caches)
	env := s.env("/tmp/x")
	want := []string{"PATH=/bin", "TMPDIR=/tmp/x"}
	for _, v := range cacheVars {
		want = append(want, v.name+"="+filepath.Join(real, v.dir))
	}
	if !slices.Equal(env, want) {
		t.Errorf("env = %q, want %q", env, want)
	}
	if !slices.Contains(s.cfg.Write, real) {
		t.Errorf("the caches are not among the paths commands may write: %q", s.cfg.Write)
	}
	hidden := filepath.Join(t.TempDir(), "state")
	if _, err := New(Config{Dir: t.TempDir(), Hide: []string{hidden}, Caches: filepath.Join(hidden, "caches")}); !errors.Is(err, ErrHiddenCaches) {
		t.Errorf("New with caches in a hidden folder: %v, want ErrHiddenCaches", err)
	}
	if _, err := os.Stat(hidden); err == nil {
		t.Error("New made the caches in a hidden folder")
	}
	if runtime.GOOS != "windows" {
		if _, err := New(Config{Dir: "/", Caches: "/dev/null/caches"}); err == nil {
			t.Error("New made a caches folder where none can be")
		}
	}
}

// go test runs in the default sandbox of a Go module, with no path of
// the user's made writable, and again under Landlock, from the cache the
// first run filled.
func TestGoTestInSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: builds Go's standard library once")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("skipped: needs the go command")
	}
	ws, outside := dirs(t)
	writeTree(t, map[string]string{
		filepath.Join(ws, "go.mod"):    "module example.com/m\n\ngo 1.21\n",
		filepath.Join(ws, "m.go"):      "package m\n\nfunc Two() int { return 2 }\n",
		filepath.Join(ws, "m_test.go"): "package m\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 2 {\n\t\tt.Fatal(Two())\n\t}\n}\n",
	})
	caches := filepath.Join(outside, "caches")
	for _, mode := range []Mode{Bwrap, Landlock} {
		t.Run(string(mode), func(t *testing.T) {
			s := tiered(t, mode, Config{Dir: ws, Caches: caches})
			if res := run(t, s, "go test ./..."); res.Exit != 0 || !strings.HasPrefix(res.Output, "ok ") {
				t.Errorf("go test under %s: exit %d\n%s", mode, res.Exit, res.Output)
			}
		})
	}
}

// realPaths resolves every path as realOrClean does, through links to
// folders, files and nowhere, in folders that are not there or are files,
// whatever it resolved before.
func TestRealPathsAsRealOrClean(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("skipped: makes symlinks")
	}
	root := t.TempDir()
	writeTree(t, map[string]string{filepath.Join(root, "d", "f"): "f", filepath.Join(root, "file"): "x"})
	for link, to := range map[string]string{
		"l": filepath.Join(root, "d"), "lf": filepath.Join(root, "file"), "dangling": filepath.Join(root, "nowhere"),
		"chain": "l", "rel": filepath.Join("..", filepath.Base(root), "d"), "loop": "loop",
	} {
		if err := os.Symlink(to, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	var paths []string
	for _, rel := range []string{"", "d", "d/f", "d/missing", "d/missing/deeper", "l", "l/f", "l/missing/x", "dangling", "dangling/x",
		"file/x", "lf", "chain/f", "chain/missing", "rel/f", "loop", "loop/x", "d/../l/f", "missing/../d"} {
		paths = append(paths, filepath.Join(root, filepath.FromSlash(rel)))
	}
	paths = append(paths, "/", root+"/d/./f", filepath.Dir(root))
	r := realPaths{}
	for range 2 { // the second time from what the first kept
		for i := len(paths) - 1; i >= 0; i-- {
			if got, want := r.of(paths[i]), realOrClean(paths[i]); got != want {
				t.Errorf("realPaths.of(%s) = %s, realOrClean %s", paths[i], got, want)
			}
		}
	}
}

// Without an environment of its own, a sandbox gives commands that of the
// process as it was at New, made only when the first command needs it: a
// run that runs none does not filter it.
func TestEnvAtFirstCommand(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HARNESS_TEST_AT_NEW", "1")
	want := Env(os.Environ(), dir)
	s, err := New(Config{Mode: None, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if s.cfg.Env != nil {
		t.Error("New made the commands' environment")
	}
	t.Setenv("HARNESS_TEST_AT_NEW", "2")
	if got := s.env(""); !slices.Equal(got, want) {
		t.Errorf("env = %q, want the environment at New %q", got, want)
	}
}

// Where Installed found bwrap at start is where the probe runs it: it is
// not looked for again, and a PATH that no longer finds it does not
// matter.
func TestBwrapFoundOnce(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("skipped: bubblewrap runs only on Linux")
	}
	ctx := context.Background()
	s := newSandbox(t, Config{Mode: Bwrap, Dir: t.TempDir()})
	if why := (&bwrap{}).probe(ctx, s); why != "" {
		t.Skipf("skipped: %s", why)
	}
	s = newSandbox(t, Config{Mode: Bwrap, Dir: t.TempDir()})
	if !s.Installed() {
		t.Fatal("Installed: no bwrap where the probe found one")
	}
	t.Setenv("PATH", t.TempDir())
	if why := (&bwrap{}).probe(ctx, s); why != "" {
		t.Errorf("the probe looked for bwrap again: %s", why)
	}
}
