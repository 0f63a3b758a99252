package tools

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	"harness/gitdir"
	"harness/sandbox"
)

// censusRun is one run in the workspace at root that keeps its census in
// file: the paths its commands must not see, relative to root, and how
// many folders it read from the disk.
func censusRun(t *testing.T, root, file string) (hidden []string, reads int) {
	t.Helper()
	ws := censusWorkspace(t, root, file)
	paths, err := ws.Hidden()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		hidden = append(hidden, ws.Rel(p))
	}
	return hidden, ws.census.reads
}

// censusWorkspace opens the workspace at root for a run that keeps its
// census in file, and trusts every folder's times at once: the tests wait
// out the clock's tick themselves (age).
func censusWorkspace(t *testing.T, root, file string) *Workspace {
	t.Helper()
	ws, err := NewWorkspace(root)
	must(t, err)
	ws.KeepCensus(file)
	ws.census.settle = settleAfter(0)
	return ws
}

// TestCensusSeesEveryChange runs twice in a workspace, changing it
// between the runs: the second run takes the folders that did not change
// from the census, and whatever changed still hides what it must.
func TestCensusSeesEveryChange(t *testing.T) {
	needCensus(t)
	files := map[string]string{
		".gitignore":    "build/\n",
		"sub/notes.txt": "notes\n",
		"sub/data.txt":  "data\n",
		"other/a.txt":   "a\n",
		"build/out.bin": "x\n",
	}
	tests := []struct {
		name   string
		change func(t *testing.T, root string)
		hidden string // a path the second run must hide
	}{
		{"a secret file made", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "sub", ".env"), "KEY=1\n")
		}, "sub/.env"},
		{"a file renamed to a secret's name", func(t *testing.T, root string) {
			must(t, os.Rename(filepath.Join(root, "sub", "notes.txt"), filepath.Join(root, "sub", "id_rsa")))
		}, "sub/id_rsa"},
		{"the ignore file written in place", func(t *testing.T, root string) {
			f, err := os.OpenFile(filepath.Join(root, ".gitignore"), os.O_WRONLY|os.O_APPEND, 0)
			must(t, err)
			_, err = f.WriteString("sub/data.txt\n")
			must(t, err)
			must(t, f.Close())
		}, "sub/data.txt"},
		{"a secret file made and the folder's time set back", func(t *testing.T, root string) {
			dir := filepath.Join(root, "sub")
			fi := mustLstat(t, dir)
			write(t, filepath.Join(dir, "server.pem"), "x\n")
			must(t, os.Chtimes(dir, fi.ModTime(), fi.ModTime()))
			if !mustLstat(t, dir).ModTime().Equal(fi.ModTime()) {
				t.Fatal("the folder's time was not set back")
			}
		}, "sub/server.pem"},
		{"a folder swapped for another of the same name and time", func(t *testing.T, root string) {
			dir := filepath.Join(root, "sub")
			fi := mustLstat(t, dir)
			other := filepath.Join(filepath.Dir(root), "swap")
			must(t, os.MkdirAll(other, 0o755))
			write(t, filepath.Join(other, "notes.txt"), "notes\n")
			write(t, filepath.Join(other, "data.txt"), "data\n")
			write(t, filepath.Join(other, ".netrc"), "machine x\n")
			must(t, os.Chtimes(other, fi.ModTime(), fi.ModTime()))
			must(t, os.Rename(dir, filepath.Join(filepath.Dir(root), "gone")))
			must(t, os.Rename(other, dir))
			must(t, os.Chtimes(root, mustLstat(t, root).ModTime(), mustLstat(t, root).ModTime()))
		}, "sub/.netrc"},
		{".git/info/exclude written", func(t *testing.T, root string) {
			write(t, filepath.Join(root, ".git", "info", "exclude"), "other/a.txt\n")
		}, "other/a.txt"},
		{"a folder made in a folder taken from the census", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "other", "deep", ".aws", "credentials"), "x\n")
		}, "other/deep/.aws"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			root := filepath.Join(base, "ws")
			writeFiles(t, root, files)
			file := filepath.Join(base, "state", "census")
			first, reads := censusRun(t, root, file)
			if reads == 0 {
				t.Fatal("the first run read no folder")
			}
			if slices.Contains(first, tt.hidden) {
				t.Fatalf("%s hidden before it was made: %v", tt.hidden, first)
			}
			if _, again := censusRun(t, root, file); again != 0 {
				t.Fatalf("a run in an unchanged workspace read %d folders; want them all from the census", again)
			}
			time.Sleep(50 * time.Millisecond) // past the tick of the clock that stamps the folders
			tt.change(t, root)
			second, _ := censusRun(t, root, file)
			if !slices.Contains(second, tt.hidden) {
				t.Errorf("after the change the run hides %v; want %s among them", second, tt.hidden)
			}
			if !slices.Contains(second, "build") {
				t.Errorf("the run hides %v; want build, which .gitignore ignores, among them", second)
			}
		})
	}
}

// TestCensusUnderOtherGlobalRules checks that a folder the census kept
// under the rules of one run is read whole by a run under other rules:
// here, the user's global excludes file, outside the workspace, ignores a
// file the first run had no reason to keep.
func TestCensusUnderOtherGlobalRules(t *testing.T) {
	needCensus(t)
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	writeFiles(t, root, map[string]string{"sub/notes.txt": "notes\n", "sub/plan.txt": "plan\n"})
	config := filepath.Join(base, "config")
	t.Setenv("XDG_CONFIG_HOME", config)
	file := filepath.Join(base, "state", "census")
	if first, _ := censusRun(t, root, file); slices.Contains(first, "sub/plan.txt") {
		t.Fatalf("hidden before any rule ignored it: %v", first)
	}
	write(t, filepath.Join(config, "git", "ignore"), "plan.txt\n")
	if second, _ := censusRun(t, root, file); !slices.Contains(second, "sub/plan.txt") {
		t.Errorf("after the global excludes changed the run hides %v; want sub/plan.txt among them", second)
	}
}

// TestCensusFollowsLinks checks that a run that takes an unchanged folder
// from the census still finds in it a link, made before any run, to a
// file the rules protect: that file's other names send the walk to every
// file of the folders it reads.
func TestCensusFollowsLinks(t *testing.T) {
	if _, ok := markOf(mustLstat(t, t.TempDir())); !ok || runtime.GOOS == "windows" {
		t.Skip("no change times or identities here: no census is kept")
	}
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	writeFiles(t, root, map[string]string{".gitignore": "local.yml\n", "local.yml": "token: abc\n", "src/main.go": "package main\n"})
	if err := os.Link(filepath.Join(root, "local.yml"), filepath.Join(root, "src", "notes.txt")); err != nil {
		t.Skip("no hard links:", err)
	}
	file := filepath.Join(base, "state", "census")
	for _, run := range []string{"first", "second"} {
		if got, _ := censusRun(t, root, file); !slices.Contains(got, "src/notes.txt") {
			t.Errorf("the %s run hides %v; want the link src/notes.txt among them", run, got)
		}
	}
}

// TestCensusUnderRulesChangedInTheRun checks the two walks of a run that
// takes its folders from the census, when the ignore rules change after
// the census was kept: at the start of the run, the file they now ignore
// is protected by its identity, and renamed it stays hidden; during the
// run, a file a new rule ignores is hidden, though the folder that holds
// it was kept under the rules of the start.
func TestCensusUnderRulesChangedInTheRun(t *testing.T) {
	if _, ok := markOf(mustLstat(t, t.TempDir())); !ok || runtime.GOOS == "windows" {
		t.Skip("no change times or identities here: no census is kept")
	}
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	writeFiles(t, root, map[string]string{".gitignore": "*.log\n", "sub/data.txt": "data\n", "other/a.txt": "a\n"})
	file := filepath.Join(base, "state", "census")
	censusRun(t, root, file)
	time.Sleep(2 * fineRacy) // past the tick of the clock that stamps the folders
	f, err := os.OpenFile(filepath.Join(root, ".gitignore"), os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	_, err = f.WriteString("sub/data.txt\n")
	must(t, err)
	must(t, f.Close())

	run := func() *Workspace {
		ws := censusWorkspace(t, root, file)
		mustHidden(t, ws)
		return ws
	}
	ws := run()
	must(t, os.Rename(filepath.Join(root, "sub", "data.txt"), filepath.Join(root, "sub", "renamed.txt")))
	if got := rels(ws, mustHidden(t, ws)); !slices.Contains(got, "sub/renamed.txt") {
		t.Errorf("the file the start's rules ignored, renamed: hidden %v; want sub/renamed.txt among them", got)
	}
	ws = run() // under the rules the census was last kept under
	f, err = os.OpenFile(filepath.Join(root, ".gitignore"), os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	_, err = f.WriteString("other/a.txt\n")
	must(t, err)
	must(t, f.Close())
	if got := rels(ws, mustHidden(t, ws)); !slices.Contains(got, "other/a.txt") {
		t.Errorf("a file a rule made during the run ignores: hidden %v; want other/a.txt among them", got)
	}
}

// TestCensusRefused checks that a census file that cannot be trusted is
// not used: every folder is read from the disk.
func TestCensusRefused(t *testing.T) {
	needCensus(t)
	tests := []struct {
		name  string
		spoil func(t *testing.T, file string)
	}{
		{"a byte changed", func(t *testing.T, file string) {
			data, err := os.ReadFile(file)
			must(t, err)
			data[len(data)/2] ^= 1
			must(t, os.WriteFile(file, data, 0o600))
		}},
		{"cut short", func(t *testing.T, file string) {
			data, err := os.ReadFile(file)
			must(t, err)
			must(t, os.WriteFile(file, data[:len(data)-1], 0o600))
		}},
		{"empty", func(t *testing.T, file string) {
			must(t, os.WriteFile(file, nil, 0o600))
		}},
		{"writable by others", func(t *testing.T, file string) {
			if runtime.GOOS == "windows" {
				t.Skip("no modes here")
			}
			must(t, os.Chmod(file, 0o666))
		}},
		{"owned by another user", func(t *testing.T, file string) {
			if os.Getuid() != 0 {
				t.Skip("only root can give a file away")
			}
			must(t, os.Chown(file, 65534, 65534))
		}},
		{"a link to the census", func(t *testing.T, file string) {
			must(t, os.Rename(file, file+".real"))
			must(t, os.Symlink(file+".real", file))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			root := filepath.Join(base, "ws")
			writeFiles(t, root, map[string]string{"a/x.txt": "x", "b/y.txt": "y", "b/c/z.txt": "z"})
			file := filepath.Join(base, "census")
			_, all := censusRun(t, root, file)
			if _, reads := censusRun(t, root, file); reads != 0 {
				t.Fatalf("a run after the first read %d folders; want none", reads)
			}
			tt.spoil(t, file)
			if _, reads := censusRun(t, root, file); reads != all {
				t.Errorf("with the census %s, a run read %d folders; want all %d", tt.name, reads, all)
			}
		})
	}
}

// TestCensusOfAnotherWorkspace checks that a census is only ever used in
// the workspace it was made in.
func TestCensusOfAnotherWorkspace(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	writeFiles(t, root, map[string]string{"a/x.txt": "x"})
	folders := map[string]*censusFolder{root: {entries: []fs.DirEntry{&keptEntry{dir: root, name: "a", typ: fs.ModeDir}}}}
	data, ok := encodeCensus(root, folders)
	if !ok {
		t.Fatal("not encoded")
	}
	if _, err := decodeCensus(data, root); err != nil {
		t.Fatalf("its own workspace: %v", err)
	}
	if _, err := decodeCensus(data, filepath.Join(base, "other")); err == nil {
		t.Error("another workspace took the census")
	}
}

// TestDecodeCensusRefusesBadEntries checks the names a census may hold:
// each one entry of its folder, in order, in a folder of the workspace.
func TestDecodeCensusRefusesBadEntries(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ws")
	tests := []struct {
		name    string
		dir     string
		entries []string
		ok      bool
	}{
		{"plain", filepath.Join(root, "a"), []string{"b", "c"}, true},
		{"out of order", root, []string{"c", "b"}, false},
		{"twice", root, []string{"b", "b"}, false},
		{"a path for a name", root, []string{"b/c"}, false},
		{"dot dot", root, []string{".."}, false},
		{"empty name", root, []string{""}, false},
		{"a folder outside", filepath.Dir(root), []string{"b"}, false},
		{"a folder not clean", root + "/a/../b", []string{"b"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &censusFolder{rules: ruleMark{1}, count: len(tt.entries)}
			for _, n := range tt.entries {
				f.kept = append(f.kept, &keptEntry{dir: tt.dir, name: n})
			}
			data, _ := encodeCensus(root, map[string]*censusFolder{tt.dir: f})
			_, err := decodeCensus(data, root)
			if (err == nil) != tt.ok {
				t.Errorf("decode: %v; want ok %v", err, tt.ok)
			}
		})
	}
}

func mustLstat(t *testing.T, p string) fs.FileInfo {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, p, text string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte(text), 0o644))
}

// TestCensusDistrustsRecentFolders checks that a folder that changed too
// close to its reading for its times to show a change right after is
// read again by the next run: the census does not keep it.
func TestCensusDistrustsRecentFolders(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	writeFiles(t, root, map[string]string{"a/x.txt": "x", "b/y.txt": "y"})
	file := filepath.Join(base, "census")
	run := func() int {
		ws, err := NewWorkspace(root)
		must(t, err)
		ws.KeepCensus(file)
		ws.census.settle = settleAfter(time.Hour) // its folders were made just now
		_, err = ws.Hidden()
		must(t, err)
		return ws.census.reads
	}
	first := run()
	if again := run(); again != first {
		t.Errorf("the second run read %d folders made just now; want all %d again", again, first)
	}
}

// TestCensusKeepsWhatOnlyTheSurveyReads checks that the folders only the
// survey for repositories reads (those inside ignored folders and
// node_modules, which the walks for secrets skip) are kept too: a run
// in an unchanged workspace reads none of them again.
func TestCensusKeepsWhatOnlyTheSurveyReads(t *testing.T) {
	needCensus(t)
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	writeFiles(t, root, map[string]string{
		".gitignore":              "build/\n",
		"build/out/a.o":           "x",
		"node_modules/m/index.js": "x",
		"src/main.go":             "package main",
	})
	file := filepath.Join(base, "census")
	command := func() int {
		ws := censusWorkspace(t, root, file)
		mustHidden(t, ws)
		gitdir.SnapWith(ws.root, ws.surveys)
		ws.surveyed()
		return ws.census.reads
	}
	if first := command(); first == 0 {
		t.Fatal("the first run read no folder")
	}
	if again := command(); again != 0 {
		t.Errorf("a run in an unchanged workspace read %d folders; want none", again)
	}
}

// settleAfter is a census's settle that holds every mark settled once it
// is d old, whatever its times show.
func settleAfter(d time.Duration) func(time.Time, int64) time.Duration {
	return func(time.Time, int64) time.Duration { return d }
}

// TestSurveyTakesWatchedLooks checks the surveys for repositories around
// a command of a run that takes its folders from the census, which take
// the folders the start's walk looked at, watched since, as they looked
// then while the watch saw nothing change: a folder the command gave the
// shape of a git directory is still found after it, and taken out.
func TestSurveyTakesWatchedLooks(t *testing.T) {
	needCensus(t)
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	writeFiles(t, root, map[string]string{"sub/a.txt": "a\n", "other/b.txt": "b\n"})
	file := filepath.Join(base, "census")
	command := func(run func()) []gitdir.Change {
		ws := censusWorkspace(t, root, file)
		mustHidden(t, ws)
		snap := gitdir.SnapWith(ws.root, ws.surveys)
		ws.surveyed()
		run()
		changes, err := snap.Restore()
		must(t, err)
		return changes
	}
	command(func() {}) // the census of the run before
	if changes := command(func() {}); len(changes) != 0 {
		t.Fatalf("a command that did nothing changed %v", changes)
	}
	changes := command(func() {
		write(t, filepath.Join(root, "sub", "HEAD"), "ref: refs/heads/main\n")
		must(t, os.Mkdir(filepath.Join(root, "sub", "refs"), 0o755))
	})
	if len(changes) == 0 {
		t.Fatal("a folder given the shape of a git directory was not found")
	}
	if _, err := os.Lstat(filepath.Join(root, "sub", "HEAD")); err == nil {
		t.Errorf("sub/HEAD was left: changes %v", changes)
	}
}

// TestSurveyOfFoldersOnlyTheStartWalked checks a command that gives the
// shape of a git directory to a folder inside node_modules, which the
// start's walk reads when nothing ignores it, and the walk of what
// commands must not see does not: the survey after the command takes the
// looks of the folders the start's walk read only while the watch of
// every one of them saw no change, so it finds the shape, and it is taken
// out.
func TestSurveyOfFoldersOnlyTheStartWalked(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"main.go": "package main\n", "node_modules/m/index.js": "x\n"})
	age(t, ws.Root())
	time.Sleep(2100 * time.Millisecond) // past the survey's own margin for change times
	sh := &fakeShell{res: sandbox.Result{Output: "ok\n"}, do: func() {
		writeFiles(t, ws.Root(), map[string]string{
			"node_modules/m/HEAD":   "ref: refs/heads/main\n",
			"node_modules/m/config": "[core]\n\tfsmonitor = ./run-me\n",
		})
		for _, d := range []string{"refs", "objects"} {
			must(t, os.Mkdir(filepath.Join(ws.Root(), "node_modules", "m", d), 0o755))
		}
	}}
	_, err := run(t, Bash(ws, policy(t), sh), map[string]any{"command": "go test ./..."})
	if _, lerr := os.Lstat(filepath.Join(ws.Root(), "node_modules", "m", "HEAD")); lerr == nil {
		t.Errorf("node_modules/m/HEAD was left (the call returned %v)", err)
	}
}

// TestCensusRulesWithNUL checks that an ignore file whose one line holds
// NUL bytes does not mark its folder's rules as the two lines it could be
// read as: the census kept under the first must not be trusted under the
// second, which ignores a file the first did not.
func TestCensusRulesWithNUL(t *testing.T) {
	needCensus(t)
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	writeFiles(t, root, map[string]string{
		".gitignore": "zzz\x00.gitignore\x00notes.txt\n",
		"notes.txt":  "notes\n",
	})
	file := filepath.Join(base, "census")
	time.Sleep(200 * time.Millisecond) // past the clock's tick
	if hidden, _ := censusRun(t, root, file); len(hidden) != 0 {
		t.Fatalf("the first run hid %q; its one rule ignores nothing here", hidden)
	}
	// In place: the root folder's times stay as they were.
	write(t, filepath.Join(root, ".gitignore"), "zzz\nnotes.txt\n")
	time.Sleep(200 * time.Millisecond)
	if hidden, _ := censusRun(t, root, file); !slices.Contains(hidden, "notes.txt") {
		t.Errorf("the second run hid %q, want notes.txt, which its rules ignore", hidden)
	}
}

// TestCensusOfOtherSecretNames checks that a census kept by a harness
// that knew other secret names is not trusted: a folder's kept entries
// would lack a name that is secret now.
func TestCensusOfOtherSecretNames(t *testing.T) {
	needCensus(t)
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	writeFiles(t, root, map[string]string{"a/x.txt": "x", "b/y.txt": "y"})
	file := filepath.Join(base, "census")
	time.Sleep(200 * time.Millisecond)
	_, first := censusRun(t, root, file)
	if _, again := censusRun(t, root, file); again >= first {
		t.Fatalf("the second run read %d folders of %d: the census was not used", again, first)
	}
	was := walkedPolicy
	t.Cleanup(func() { walkedPolicy = was })
	walkedPolicy = func() ruleMark { return ruleMark{1} }
	if _, other := censusRun(t, root, file); other != first {
		t.Errorf("under other secret names the run read %d folders from the disk, want all %d", other, first)
	}
}

// needCensus skips a test where the system gives folders no change time
// or identity: no census is kept there.
func needCensus(t *testing.T) {
	t.Helper()
	if _, ok := markOf(mustLstat(t, t.TempDir())); !ok {
		t.Skip("no change times or identities here: no census is kept")
	}
}

// TestCensusSharesFolderPaths checks that a folder the census keeps is
// given, as an entry of the folder above it, the path it is kept under:
// the walks and surveys take that one string in the place of one each.
// Entries that are not kept folders join their folder and name.
func TestCensusSharesFolderPaths(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ws")
	dir := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	entry := func(in, name string, typ fs.FileMode) fs.DirEntry {
		return &keptEntry{dir: dir(in), name: name, typ: typ}
	}
	folders := map[string]*censusFolder{
		root:          {entries: []fs.DirEntry{entry("", ".env", 0), entry("", "a", fs.ModeDir), entry("", "b", fs.ModeDir), entry("", "c", fs.ModeDir)}},
		dir("a"):      {entries: []fs.DirEntry{entry("a", "deep", fs.ModeDir)}},
		dir("a/deep"): {},
		dir("c"):      {}, // b is not kept
	}
	data, ok := encodeCensus(root, folders)
	if !ok {
		t.Fatal("not encoded")
	}
	got, err := decodeCensus(data, root)
	if err != nil {
		t.Fatal(err)
	}
	for d, f := range got {
		for _, e := range f.kept {
			p := gitdir.EntryPath(d, e)
			if want := filepath.Join(d, e.Name()); p != want {
				t.Errorf("the path of %s in %s is %s", e.Name(), d, p)
			}
			if _, isKept := got[p]; isKept && unsafe.StringData(p) != unsafe.StringData(keyOf(got, p)) {
				t.Errorf("%s, a folder kept, has a path of its own", p)
			}
		}
	}
}

// keyOf returns the key of m equal to k, as the map holds it.
func keyOf[V any](m map[string]V, k string) string {
	for key := range m {
		if key == k {
			return key
		}
	}
	return ""
}

// TestDecodeCensusBoundsFolders checks that a census that claims more
// folders than its bytes could hold is refused before room is made for
// them: each takes at least the 32 bytes of its rules' mark.
func TestDecodeCensusBoundsFolders(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ws")
	b := []byte(censusMagic)
	b = binary.AppendUvarint(b, uint64(len(root)))
	b = append(b, root...)
	b = binary.AppendUvarint(b, 1<<20) // a million folders, in a megabyte
	b = append(b, make([]byte, 1<<20)...)
	sum := sha256.Sum256(b)
	data := append(b, sum[:]...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := decodeCensus(data, root)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a census of a million folders in a megabyte was taken")
	}
	if made := after.TotalAlloc - before.TotalAlloc; made > 8<<20 {
		t.Errorf("refusing it made %d MB of room", made>>20)
	}
}

// TestIgnoreFileInAnyCase: a folder's .gitignore is found, and kept by the
// census, whatever the case of its name, since git on a file system that
// does not tell cases apart reads .GitIgnore as that folder's ignore file.
func TestIgnoreFileInAnyCase(t *testing.T) {
	for name, want := range map[string]bool{
		".gitignore":     true,
		".GitIgnore":     true,
		".GITIGNORE":     true,
		".gitignorx":     false,
		"gitignore":      false,
		".gitignore.bak": false,
	} {
		entries := []fs.DirEntry{&keptEntry{name: "a.txt"}, &keptEntry{name: name}}
		if got := holdsIgnoreFile(entries); got != want {
			t.Errorf("holdsIgnoreFile with %q: %v, want %v", name, got, want)
		}
		if got := walkedName(name); got != want {
			t.Errorf("walkedName(%q): %v, want %v", name, got, want)
		}
	}
}

func TestChosenUnder(t *testing.T) {
	a, b := ruleMark{1}, ruleMark{2}
	for _, tt := range []struct {
		name string
		l    folderList
		want bool
	}{
		{"every entry", folderList{whole: true}, true},
		{"kept under the same rules", folderList{rules: &a}, true},
		{"kept under other rules", folderList{rules: &b}, false},
		{"kept under no rules known", folderList{}, false},
	} {
		if got := tt.l.chosenUnder(a); got != tt.want {
			t.Errorf("%s: chosenUnder = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestSettledFoldersTakenWithProtectedFiles checks that where the start
// protects a file, a run that finds every folder as the census and the
// start's walk saw it takes their kept entries, and reads none of them
// again: the walk knows, folder by folder, that nothing moved in since
// the start (see ignores.steady and unmoved), whether folders are
// watched or only looked at.
func TestSettledFoldersTakenWithProtectedFiles(t *testing.T) {
	needCensus(t)
	for _, watched := range []bool{true, false} {
		t.Run(fmt.Sprintf("watched %v", watched), func(t *testing.T) {
			base := t.TempDir()
			root := filepath.Join(base, "ws")
			writeFiles(t, root, map[string]string{".env": "K=v\n", "src/a.go": "package a\n", "src/b/c.go": "package b\n", "doc/x.md": ""})
			file := filepath.Join(base, "census")
			open := func() *Workspace {
				ws := censusWorkspace(t, root, file)
				ws.hidden.noWatch = !watched
				return ws
			}
			age(t, root)
			mustHidden(t, open()) // the run before, which keeps the census
			ws := open()
			got := rels(ws, mustHidden(t, ws))
			if !slices.Equal(got, []string{".env"}) {
				t.Errorf("hidden %q, want .env", got)
			}
			if ws.census.reads != 0 || ws.hidden.reads != 0 {
				t.Errorf("the walks read %d and %d folders again; want none, all as the census and the start saw them", ws.census.reads, ws.hidden.reads)
			}
		})
	}
}
