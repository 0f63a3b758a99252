package tools

import (
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// backtrackSegs is the matcher matchSegs replaced: plain backtracking,
// exponential in the number of "**" on a miss. The tests hold the new one
// to its answers on ordinary patterns.
func backtrackSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return len(name) > 0
			}
			for i := 0; i <= len(name); i++ {
				if backtrackSegs(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "/")
}

// manyStars is a rule of 24 "**" then x, and a path 24 folders deep that
// it does not match: the backtracking matcher took hours on it.
func manyStars() (pat, name []string) {
	return split(strings.Repeat("**/", 24) + "x"), split(strings.Repeat("d/", 24) + "f.txt")
}

func TestMatchSegsManyStars(t *testing.T) {
	pat, name := manyStars()
	if matchSegs(pat, name) {
		t.Errorf("%q matched %q", strings.Join(pat, "/"), strings.Join(name, "/"))
	}
	name[len(name)-1] = "x"
	if !matchSegs(pat, name) {
		t.Errorf("%q did not match %q", strings.Join(pat, "/"), strings.Join(name, "/"))
	}
	// Stars between fixed segments cannot be collapsed away.
	alt := split(strings.Repeat("**/d/", 24) + "x")
	if matchSegs(alt, split(strings.Repeat("d/", 23)+"x")) {
		t.Error("24 fixed d segments matched 23 folders")
	}
	if !matchSegs(alt, split(strings.Repeat("d/", 30)+"x")) {
		t.Error("24 fixed d segments did not match 30 folders")
	}
}

func BenchmarkMatchSegsManyStars(b *testing.B) {
	pat, name := manyStars()
	alt := split(strings.Repeat("**/d/", 24) + "x")
	for b.Loop() {
		matchSegs(pat, name)
		matchSegs(alt, name)
	}
}

func TestMatchSegsAgrees(t *testing.T) {
	pats := []string{
		"", "**", "**/x", "x", "*.txt", "**/*.txt", "a/**", "a/**/b", "a/**/**/b", "**/**",
		"a/*/b", "**/a/**", "a/b/c", "[a-c]", "a/[!b]", "**/d/**/x", "a/**/*/b", "*/**",
		"[", "a/[/b",
	}
	names := []string{
		"", "x", "a", "a/b", "a/x/b", "a/x/y/b", "d/x", "d/d/x", "b/a/c", "a/b/c", "f.txt",
		"a/f.txt", "a/b/c/d", "a/c", "c", "[",
	}
	for _, p := range pats {
		for _, n := range names {
			pat := split(p)
			for i := range pat {
				pat[i] = strings.ReplaceAll(pat[i], "[!", "[^")
			}
			if got, want := matchSegs(pat, split(n)), backtrackSegs(pat, split(n)); got != want {
				t.Errorf("matchSegs(%q, %q) = %v, the backtracking matcher says %v", p, n, got, want)
			}
		}
	}
}

func FuzzMatchSegs(f *testing.F) {
	f.Add("a/**/b", "a/x/b")
	f.Add("**/**/x", "d/d/x")
	f.Add("**/*.go", "tools/a.go")
	f.Add("a/**", "a")
	f.Fuzz(func(t *testing.T, p, n string) {
		pat, name := split(p), split(n)
		if len(pat) > 12 || len(name) > 12 {
			return // the backtracking matcher is too slow beyond
		}
		if got, want := matchSegs(pat, name), backtrackSegs(pat, name); got != want {
			t.Errorf("matchSegs(%q, %q) = %v, the backtracking matcher says %v", p, n, got, want)
		}
	})
}

// FuzzSegMatch: the shortcuts of segMatch answer as path.Match does, for
// a name of one segment.
func FuzzSegMatch(f *testing.F) {
	for _, seed := range [][2]string{{"*.go", "a.go"}, {"build", "build"}, {"*", ""}, {`\*.go`, "*.go"}, {"*.g?", "a.go"}, {"[ab]", "a"}, {"*", "x"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		if strings.Contains(name, "/") {
			return
		}
		ok, err := path.Match(pat, name)
		if want := err == nil && ok; segMatch(pat, name) != want {
			t.Errorf("segMatch(%q, %q) = %v, path.Match says %v (%v)", pat, name, !want, want, err)
		}
	})
}

// TestFolderChain checks that a chain gives, in a depth-first walk, the
// value of each folder above where the walk is, and nothing for one it
// has left or never held.
func TestFolderChain(t *testing.T) {
	root := string(filepath.Separator) + "ws"
	p := func(rel string) string {
		if rel == "" {
			return root
		}
		return root + string(filepath.Separator) + filepath.FromSlash(rel)
	}
	var c folderChain[int]
	steps := []struct {
		push string // pushed with its index, when not "-"
		ask  map[string]int
	}{
		{"", map[string]int{"": 1}},
		{"a", map[string]int{"": 1, "a": 2}},
		{"a/b", map[string]int{"": 1, "a": 2, "a/b": 3}},
		{"a/bc", map[string]int{"": 1, "a": 2, "a/b": 0, "a/bc": 4}}, // a/b is not above a/bc
		{"ab", map[string]int{"": 1, "a": 0, "a/bc": 0, "ab": 5}},
		{"ab/x/y", map[string]int{"ab": 5, "ab/x/y": 6, "ab/x": 0}},
		{"z", map[string]int{"": 1, "ab": 0, "ab/x/y": 0, "z": 7}},
	}
	for i, st := range steps {
		c.push(p(st.push), i+1)
		for rel, want := range st.ask {
			if got := c.of(p(rel)); got != want {
				t.Errorf("after %q: of(%q) = %d, want %d", st.push, rel, got, want)
			}
		}
	}
	var rels folderChain[bool] // paths from the root, "" for it
	rels.push("", true)
	rels.push("a", true)
	if rels.push("b", false); rels.of("a") || !rels.of("") {
		t.Error("a relative chain kept a beside b, or let go of the root")
	}
}

// TestChainedMark checks that the marks a depth-first walk takes from a
// chain are those the start's folders keep, folder by folder, that the rules and
// the folder's path both change a mark, and that a folder with few rules
// is marked without the heap.
func TestChainedMark(t *testing.T) {
	ig := newIgnores(nil)
	ig.frozen = true
	ig.rules[""] = parseIgnore(strings.NewReader("*.log\n"), "", ".gitignore")
	ig.rules["a/b"] = parseIgnore(strings.NewReader("!keep.log\nbuild/\n"), "a/b", "a/b/.gitignore")
	marks := newStartFolders(0)
	var chain folderChain[ruleMark]
	seen := map[ruleMark]string{}
	for _, rel := range []string{"", "a", "a/b", "a/b/c", "a/bc", "b", "b/a/b", "a/b"} {
		want, got := markIn(marks, ig, rel), markIn(&chain, ig, rel)
		if got != want {
			t.Errorf("the chain's mark of %q is not the start's", rel)
		}
		if kept, ok := marks.find(rel); !ok || kept != want {
			t.Errorf("the start's folders keep %x, %v for %q; want %x", kept, ok, rel, want)
		}
		if other, ok := seen[got]; ok && other != rel {
			t.Errorf("%q and %q have one mark", rel, other)
		}
		seen[got] = rel
	}
	other := newIgnores(nil)
	other.frozen = true
	other.rules[""] = ig.rules[""]
	other.rules["a/b"] = parseIgnore(strings.NewReader("!keep.log\n"), "a/b", "a/b/.gitignore")
	if markIn(newStartFolders(0), other, "a/b/c") == markIn(marks, ig, "a/b/c") {
		t.Error("other rules above a folder left its mark as it was")
	}
	rules := ig.rules["a/b"]
	if n := testing.AllocsPerRun(100, func() { markWith(ruleMark{}, "a/b", rules) }); n != 0 {
		t.Errorf("a mark took %v allocations", n)
	}
}

// A link at .git/info/exclude is followed, as git follows it, both by the
// rules of the start and by those of the moment, which decide before the
// start's are read: a file it ignores is secret from the first read on,
// and hidden from commands.
func TestLinkedExcludeFollowed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need privileges on Windows")
	}
	ws := linkedRules(t, excludeFile, "notes.txt")
	private := filepath.Join(ws.Root(), "private.txt")
	write(t, private, "token\n")
	if ws.Secret(private) == "" {
		t.Error("before the start's rules were read, private.txt was not secret")
	}
	if ws.Secret(filepath.Join(ws.Root(), "notes.txt")) != "" {
		t.Error("notes.txt was secret")
	}
	if got := rels(ws, mustHidden(t, ws)); !slices.Contains(got, "private.txt") {
		t.Errorf("hidden %q, want private.txt among them", got)
	}
	if ws.Secret(private) == "" {
		t.Error("after the start's rules were read, private.txt was not secret")
	}
}

// A .gitignore that is a link is skipped, as git skips it, by the rules
// of the start and by those of the moment: the rules it leads to neither
// add protection nor take away what another ignore file gives.
func TestLinkedGitignoreSkipped(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need privileges on Windows")
	}
	ws := newWorkspace(t, map[string]string{".gitignore": "*.secret\n", "shared/rules": "!*.secret\nnotes.txt\n", "sub/x.secret": "pw\n", "sub/notes.txt": "notes\n"})
	must(t, os.Symlink(filepath.Join("..", "shared", "rules"), filepath.Join(ws.Root(), "sub", ".gitignore")))
	for _, when := range []string{"before the start", "after the start"} {
		if ws.Secret(filepath.Join(ws.Root(), "sub", "x.secret")) == "" {
			t.Errorf("%s: sub/x.secret was not secret", when)
		}
		if ws.Secret(filepath.Join(ws.Root(), "sub", "notes.txt")) != "" {
			t.Errorf("%s: sub/notes.txt was secret", when)
		}
		if got := rels(ws, mustHidden(t, ws)); !slices.Equal(got, []string{"sub/x.secret"}) {
			t.Errorf("%s: hidden %q, want only sub/x.secret", when, got)
		}
	}
}

// linkedRules returns a workspace, unchanged for a while, that holds the
// file notes and, at the ignore file at, a link to shared/rules, which
// ignores only private.txt.
func linkedRules(t *testing.T, at, notes string) *Workspace {
	t.Helper()
	ws := newWorkspace(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "shared/rules": "private.txt\n", "shared/other": "other.txt\n", notes: "notes\n"})
	link := filepath.Join(ws.Root(), filepath.FromSlash(at))
	must(t, os.MkdirAll(filepath.Dir(link), 0o755))
	target, err := filepath.Rel(filepath.Dir(link), filepath.Join(ws.Root(), "shared", "rules"))
	must(t, err)
	must(t, os.Symlink(target, link))
	age(t, ws.Root())
	return ws
}

// A secrecy answer that depends on a linked exclude file is not kept: the
// link looks the same when what it leads to is written.
func TestLinkedExcludeAnswerNotKept(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need privileges on Windows")
	}
	ws := linkedRules(t, excludeFile, "notes.txt")
	notes := filepath.Join(ws.Root(), "notes.txt")
	if ws.Secret(notes) != "" {
		t.Fatal("notes.txt was secret before its rule was written")
	}
	write(t, filepath.Join(ws.Root(), "shared", "rules"), "private.txt\nnotes.txt\n")
	if ws.Secret(notes) == "" {
		t.Error("notes.txt was not secret after a rule for it was written through the link")
	}
}

// A linked exclude file is a change of the rules when what it leads to is
// written, or when it is made to lead to another file: what commands must
// not see is found again, and the exclude file is named among those a
// command changed. Nothing else is.
func TestLinkedExcludeChangeSeen(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need privileges on Windows")
	}
	for _, tt := range []struct {
		name, shown string
		change      func(ws *Workspace)
	}{
		{"what it leads to written", "sub/notes.txt", func(ws *Workspace) {
			write(t, filepath.Join(ws.Root(), "shared", "rules"), "private.txt\nnotes.txt\n")
		}},
		{"led elsewhere", "other.txt", func(ws *Workspace) {
			link := filepath.Join(ws.Root(), filepath.FromSlash(excludeFile))
			must(t, os.Remove(link))
			must(t, os.Symlink(filepath.Join("..", "..", "shared", "other"), link))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := linkedRules(t, excludeFile, "sub/notes.txt")
			write(t, filepath.Join(ws.Root(), "other.txt"), "x\n")
			age(t, ws.Root())
			if got := rels(ws, mustHidden(t, ws)); slices.Contains(got, tt.shown) {
				t.Fatalf("hidden %q before the change", got)
			}
			mustHidden(t, ws)
			before := ws.ignoreStamps()
			if got := ws.ignoreFilesChanged(before); len(got) != 0 || ws.hidden.walks != 1 {
				t.Fatalf("before the change: %d walks, changed ignore files %q", ws.hidden.walks, got)
			}
			tt.change(ws)
			if got := ws.ignoreFilesChanged(before); !slices.Equal(got, []string{excludeFile}) {
				t.Errorf("changed ignore files %q, want %s", got, excludeFile)
			}
			if got := rels(ws, mustHidden(t, ws)); !slices.Contains(got, tt.shown) {
				t.Errorf("hidden %q after the change, want %s among them", got, tt.shown)
			}
		})
	}
}

// A linked exclude file made to lead to another file that looks like the
// one it led to (size and times) is a change too: the link's own look
// shows it.
func TestLinkedExcludeSwapToLookAlike(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need privileges on Windows")
	}
	ws := newWorkspace(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "shared/rules": "private.txt\n", "shared/twin": "othersx.txt\n", "othersx.txt": "x\n"})
	link := filepath.Join(ws.Root(), filepath.FromSlash(excludeFile))
	must(t, os.MkdirAll(filepath.Dir(link), 0o755))
	must(t, os.Symlink(filepath.Join("..", "..", "shared", "rules"), link))
	old := time.Now().Add(-time.Hour)
	rules, twin := filepath.Join(ws.Root(), "shared", "rules"), filepath.Join(ws.Root(), "shared", "twin")
	age(t, ws.Root())
	// Together, so that their change times are alike where the clock
	// that stamps them is coarse.
	must(t, os.Chtimes(rules, old, old))
	must(t, os.Chtimes(twin, old, old))
	time.Sleep(fineRacy + 50*time.Millisecond)
	a, errA := os.Stat(rules)
	b, errB := os.Stat(twin)
	if errA != nil || errB != nil || a.Size() != b.Size() || changeTime(a) != changeTime(b) {
		t.Skip("the file system's clock tells the two files apart")
	}
	mustHidden(t, ws)
	before := ws.ignoreStamps()
	must(t, os.Remove(link))
	must(t, os.Symlink(filepath.Join("..", "..", "shared", "twin"), link))
	if got := ws.ignoreFilesChanged(before); !slices.Equal(got, []string{excludeFile}) {
		t.Errorf("changed ignore files %q, want %s", got, excludeFile)
	}
	if got := rels(ws, mustHidden(t, ws)); !slices.Contains(got, "othersx.txt") {
		t.Errorf("hidden %q after the swap, want othersx.txt among them", got)
	}
}

// The file a linked exclude file leads to, written just before a walk,
// may change again within the same tick of the clock, unseen by its
// times: the next check walks again.
func TestLinkedExcludeRecentDistrusted(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need privileges on Windows")
	}
	ws := linkedRules(t, excludeFile, "notes.txt")
	write(t, filepath.Join(ws.Root(), "shared", "rules"), "private.txt\nother.txt\n")
	mustHidden(t, ws)
	mustHidden(t, ws)
	if ws.hidden.walks != 2 {
		t.Errorf("%d walks, want 2: the second after a change too recent to trust", ws.hidden.walks)
	}
}

// A worktree keeps its repository's own ignore rules in its main
// repository's git directory, the common one, and a submodule in the git
// directory the repository above it keeps for it: git reads them there,
// outside the workspace, and so do the rules of the moment and those of
// the start. A file they ignore is secret from the first read on, hidden
// from commands, and a rule written there later is seen.
func TestExcludeOutsideTheWorkspace(t *testing.T) {
	for _, tt := range []struct {
		name string
		// repo makes the repository of the workspace root in outside,
		// and returns its exclude file.
		repo func(root, outside string) string
	}{
		{"worktree", func(root, outside string) string {
			git := filepath.Join(outside, "main", ".git", "worktrees", "wt")
			write(t, filepath.Join(git, "HEAD"), "ref: refs/heads/wt\n")
			write(t, filepath.Join(git, "commondir"), "../..\n")
			write(t, filepath.Join(root, ".git"), "gitdir: "+git+"\n")
			return filepath.Join(outside, "main", ".git", "info", "exclude")
		}},
		{"submodule", func(root, outside string) string {
			git := filepath.Join(outside, "super", ".git", "modules", "sub")
			write(t, filepath.Join(git, "HEAD"), "ref: refs/heads/main\n")
			write(t, filepath.Join(root, ".git"), "gitdir: "+git+"\n")
			return filepath.Join(git, "info", "exclude")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, map[string]string{"private.txt": "token\n", "notes.txt": "notes\n"})
			exclude := tt.repo(ws.Root(), filepath.Dir(ws.Root()))
			write(t, exclude, "private.txt\n")
			age(t, ws.Root())
			private, notes := filepath.Join(ws.Root(), "private.txt"), filepath.Join(ws.Root(), "notes.txt")
			if ws.Secret(private) == "" {
				t.Error("before the start's rules were read, private.txt was not secret")
			}
			if got := rels(ws, mustHidden(t, ws)); !slices.Contains(got, "private.txt") || slices.Contains(got, "notes.txt") {
				t.Errorf("hidden %q, want private.txt and not notes.txt", got)
			}
			if ws.Secret(private) == "" {
				t.Error("after the start's rules were read, private.txt was not secret")
			}
			write(t, exclude, "private.txt\nnotes.txt\n")
			if ws.Secret(notes) == "" {
				t.Error("notes.txt was not secret after a rule for it was written")
			}
			if got := rels(ws, mustHidden(t, ws)); !slices.Contains(got, "notes.txt") {
				t.Errorf("hidden %q after a rule for notes.txt was written, want it among them", got)
			}
		})
	}
}

// An exclude file in the workspace that is a link leading out of it is
// not read: a link planted there (an unpacked archive) would otherwise
// have the rules quote and probe a file the sandbox keeps from commands.
// That holds at .git/info/exclude and where a .git file or link points
// to a git directory inside the workspace.
func TestExcludeLinkOutOfTheWorkspaceNotFollowed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need privileges on Windows")
	}
	for _, tt := range []struct {
		name string
		git  func(root string) string // makes the repository, returns its exclude file
	}{
		{".git folder", func(root string) string {
			write(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
			return filepath.Join(root, ".git", "info", "exclude")
		}},
		{".git file to a folder inside", func(root string) string {
			write(t, filepath.Join(root, "g", "HEAD"), "ref: refs/heads/main\n")
			write(t, filepath.Join(root, ".git"), "gitdir: g\n")
			return filepath.Join(root, "g", "info", "exclude")
		}},
		{".git link to a folder inside", func(root string) string {
			write(t, filepath.Join(root, "g", "HEAD"), "ref: refs/heads/main\n")
			must(t, os.Symlink("g", filepath.Join(root, ".git")))
			return filepath.Join(root, "g", "info", "exclude")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, map[string]string{"private.txt": "token\n"})
			outside := filepath.Join(filepath.Dir(ws.Root()), "outside-rules")
			write(t, outside, "private.txt\n")
			exclude := tt.git(ws.Root())
			must(t, os.MkdirAll(filepath.Dir(exclude), 0o755))
			must(t, os.Symlink(outside, exclude))
			age(t, ws.Root())
			private := filepath.Join(ws.Root(), "private.txt")
			if why := ws.Secret(private); why != "" {
				t.Errorf("before the start's rules were read, private.txt was secret: %s", why)
			}
			if got := rels(ws, mustHidden(t, ws)); slices.Contains(got, "private.txt") {
				t.Errorf("hidden %q: the rules of the file outside were read", got)
			}
		})
	}
}

// TestStartFoldersKeepOneSlotAFolder checks that a folder's rules and its
// look share one place, that each is told only once kept, and that a
// folder only looked at has no rules known.
func TestStartFoldersKeepOneSlotAFolder(t *testing.T) {
	f := newStartFolders(0)
	look := folderMark{id: id{dev: 1, ino: 2}, mod: 3, change: 4}
	f.look("a", look)
	if _, ok := f.find("a"); ok {
		t.Error("a folder only looked at has rules")
	}
	f.push("a", ruleMark{7})
	f.push("b", ruleMark{8})
	if got, ok := f.looked("a"); !ok || got != look {
		t.Errorf("looked(a) = %+v, %v after its rules were kept", got, ok)
	}
	if _, ok := f.looked("b"); ok {
		t.Error("a folder never looked at has a look")
	}
	if got, ok := f.find("a"); !ok || got != (ruleMark{7}) {
		t.Errorf("find(a) = %x, %v", got, ok)
	}
	if len(f.at) != 2 || len(f.rules) != 2 || len(f.looks) != 2 {
		t.Errorf("two folders took %d, %d, %d places", len(f.at), len(f.rules), len(f.looks))
	}
}
