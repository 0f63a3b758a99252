//go:build linux

package tools

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"
)

// The tests here each hold a guard of the walks that find what commands
// must not see, one that only a change made at a chosen moment of a walk
// shows. Such a walk is held at that moment by a lock it waits for, or
// by a sync.Once another goroutine is inside; stackReached tells when it
// got there.

// stackReached waits until a goroutine's stack holds every one of fns, the
// names of functions of this package as a traceback gives them (such as
// "(*census).size"): a call made in another goroutine has got that far.
func stackReached(t *testing.T, fns ...string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		n := runtime.Stack(buf, true)
		for _, g := range bytes.Split(buf[:n], []byte("\n\n")) {
			if !slices.ContainsFunc(fns, func(fn string) bool { return !bytes.Contains(g, []byte("harness/tools."+fn+"(")) }) {
				return
			}
		}
	}
	t.Fatalf("no goroutine reached %q in a minute", fns)
}

// hiddenCall is what a call of Hidden returned.
type hiddenCall struct {
	paths []string
	err   error
}

// hiddenIn calls ws.Hidden in a goroutine, and returns what it returns
// on the channel.
func hiddenIn(ws *Workspace) <-chan hiddenCall {
	done := make(chan hiddenCall, 1)
	go func() {
		paths, err := ws.Hidden()
		done <- hiddenCall{paths, err}
	}()
	return done
}

// hiddenOf returns the paths of the call of Hidden that done tells of.
func hiddenOf(t *testing.T, ws *Workspace, done <-chan hiddenCall) []string {
	t.Helper()
	got := <-done
	must(t, got.err)
	return rels(ws, got.paths)
}

// settledPast waits until the last change of p is older than the margin
// its times call for (racyFor): a walk that begins after is to trust
// them. It sleeps: the file system's clock, which no hook sets, stamps
// them.
func settledPast(t *testing.T, p string) {
	t.Helper()
	fi := mustLstat(t, p)
	ch := changeTime(fi)
	last := max(fi.ModTime().UnixNano(), ch)
	time.Sleep(time.Until(time.Unix(0, last).Add(racyFor(fi.ModTime(), ch) + 10*time.Millisecond)))
}

// A walk where folders are not watched takes a folder the start's walk
// read, just before, as that walk looked at it, and trusts that look
// when it had settled by when the start's walk began: a folder that
// changed after the walk itself began, but long enough before the
// start's walk, does not have the list walked again.
func TestHiddenTrustsWhatSettledBeforeTheStart(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a/x.go": "", "b/.env": "K=v\n"})
	age(t, ws.Root())
	ws.hidden.noWatch = true
	// The walk waits for the census, before the start's walk begins.
	ws.census.mu.Lock()
	done := hiddenIn(ws)
	stackReached(t, "(*hiddenList).walk", "(*census).size")
	writeFiles(t, ws.Root(), map[string]string{"a/new.go": ""})
	settledPast(t, filepath.Join(ws.Root(), "a"))
	ws.census.mu.Unlock()
	if got := hiddenOf(t, ws, done); !slices.Equal(got, []string{"b/.env"}) {
		t.Errorf("hidden %q", got)
	}
	if ws.hidden.reads != 0 {
		t.Fatalf("the walk read %d folders again; want all taken from the start's walk", ws.hidden.reads)
	}
	mustHidden(t, ws)
	if ws.hidden.walks != 1 {
		t.Errorf("%d walks; a folder settled before the start's walk began should not be distrusted", ws.hidden.walks)
	}
}

// When the rules of the start are read by another call while a walk of
// Hidden is about to read them itself, that walk has nothing of theirs
// to take: it reads every folder, and trusts what it saw as a walk of
// its own, rather than as one that began at the zero time.
func TestHiddenWhenTheStartIsReadByAnotherCall(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a/x.go": "", "b/.env": "K=v\n"})
	age(t, ws.Root())
	ws.hidden.noWatch = true
	in, release, out := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(out)
		ws.startOnce.Do(func() { // as begin does, when the rules are asked for elsewhere
			close(in)
			<-release
			ws.start = startIgnoresReading(ws.root, ws.global, maxSecretScan, nil, ws.census, time.Now())
			ws.started.Store(true)
		})
	}()
	<-in
	done := hiddenIn(ws)
	stackReached(t, "(*hiddenList).walk", "(*Workspace).beginWith") // past its look at whether the start was read
	close(release)
	<-out
	if got := hiddenOf(t, ws, done); !slices.Equal(got, []string{"b/.env"}) {
		t.Errorf("hidden %q", got)
	}
	mustHidden(t, ws)
	if ws.hidden.walks != 1 {
		t.Errorf("%d walks for two calls on a workspace that did not change", ws.hidden.walks)
	}
}

// The rules of an ignore file whose times have not settled are read
// again by each walk, not kept: a rewrite within the same tick of the
// clock leaves its times and size as they were. A write through a
// mapping of the file that is not the page's first leaves them as they
// were at any time, and stands for that rewrite here; the file's time
// is set an hour ahead, so that it cannot settle while the test runs.
func TestRulesOfAnUnsettledIgnoreFileNotKept(t *testing.T) {
	const before, after = "a.txt\n", "b.txt\n" // as long
	ws := newWorkspace(t, map[string]string{".gitignore": before, "a.txt": "", "b.txt": ""})
	gi := filepath.Join(ws.Root(), ".gitignore")
	f, err := os.OpenFile(gi, os.O_RDWR, 0)
	must(t, err)
	defer f.Close()
	m, err := syscall.Mmap(int(f.Fd()), 0, len(before), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		t.Skip("no shared mapping of a file:", err)
	}
	defer syscall.Munmap(m)
	copy(m, before) // the first write through the mapping, which sets the times
	ahead := time.Now().Add(time.Hour)
	must(t, os.Chtimes(gi, ahead, ahead))
	if got := rels(ws, mustHidden(t, ws)); !slices.Equal(got, []string{"a.txt"}) {
		t.Fatalf("hidden %q, want a.txt", got)
	}
	was := stampOf(gi)
	copy(m, after)
	if stampOf(gi) != was {
		t.Skip("a write through the mapping changed the file's times here")
	}
	// The start's rules keep a.txt hidden; the rules as they are now hide
	// b.txt.
	if got := rels(ws, mustHidden(t, ws)); !slices.Equal(got, []string{"a.txt", "b.txt"}) {
		t.Errorf("after the rewrite: hidden %q, want a.txt and b.txt", got)
	}
}

// A folder the start's walk took from the census, and the walk of
// Hidden takes from it, is read whole again when its rules changed
// since; a protected file moved or linked into it after the start's
// walk, before that read, is then among its names, and is looked at:
// the folder is not as the start's walk looked at it. The walk is held
// where it reads the root's ignore file, after it took over the start's
// watch and before it reads the folder.
func TestHiddenLooksAtWhatMovedInBeforeTheReadAgain(t *testing.T) {
	for _, tt := range []struct {
		name string
		move func(from, to string) error
	}{
		{"moved", os.Rename},
		{"linked", os.Link},
	} {
		t.Run(tt.name, func(t *testing.T) {
			needCensus(t)
			base := t.TempDir()
			root := filepath.Join(base, "ws")
			writeFiles(t, root, map[string]string{".gitignore": "local.yml\n", "local.yml": "token: abc\n", "sub/main.go": "package main\n"})
			file := filepath.Join(base, "census")
			age(t, root)
			mustHidden(t, censusWorkspace(t, root, file)) // the run before, which keeps the census
			ws := censusWorkspace(t, root, file)
			ws.files.mu.Lock()
			done := hiddenIn(ws)
			stackReached(t, "(*hiddenList).walk", "(*ruleFiles).get")
			must(t, tt.move(filepath.Join(root, "local.yml"), filepath.Join(root, "sub", "notes.txt")))
			write(t, filepath.Join(root, ".gitignore"), "local.yml\n*.bak\n") // other rules, for every folder
			ws.files.mu.Unlock()
			got := hiddenOf(t, ws, done)
			if !ws.hidden.watching || ws.hidden.reads != 0 {
				t.Skip("the walk did not take the start's folders, watched")
			}
			if !slices.Contains(got, "sub/notes.txt") {
				t.Errorf("hidden %q, want sub/notes.txt among them", got)
			}
		})
	}
}
