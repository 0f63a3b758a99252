//go:build linux || darwin

package gitdir

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ctime is a file's change time, as the workspace gives it.
func ctime(fi fs.FileInfo) int64 {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	return statCtime(st)
}

// A survey after one reads again only the folders that changed, and
// still finds a repository planted where nothing else changed, even when
// the command set the folders' modification times back.
func TestSurveysReadOnlyWhatChanged(t *testing.T) {
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/objects/": "", ".git/refs/": ""}
	for _, d := range []string{"a", "b", "c/d", "c/e"} {
		files[d+"/f.txt"] = "x"
	}
	root := tree(t, files)
	// A folder changed this recently would be read again each time
	// (TestSurveysReadRecentFoldersAgain): here every one is trusted.
	defer func(s time.Duration) { settle = s }(settle)
	settle = -time.Hour
	sv := NewSurveys(ctime)
	s := SnapWith(root, sv)
	if s.shapes.reads == 0 {
		t.Fatal("the first survey read no folder")
	}
	if changes, err := s.Restore(); err != nil || len(changes) > 0 {
		t.Fatalf("nothing changed, yet %v, %v", changes, err)
	}
	if r := sv.last.reads; r != 0 {
		t.Errorf("a survey after no change read %d folders", r)
	}

	// A command plants a repository deep down and sets the times of its
	// folder back.
	s = SnapWith(root, sv)
	if s.shapes.reads != 0 {
		t.Errorf("a survey before the command read %d folders, and nothing had changed", s.shapes.reads)
	}
	write(t, root, map[string]string{"c/d/HEAD": "ref: refs/heads/main\n", "c/d/refs/heads/": ""})
	old := time.Now().Add(-time.Hour)
	for _, d := range []string{"c/d", "c"} {
		if err := os.Chtimes(filepath.Join(root, d), old, old); err != nil {
			t.Fatal(err)
		}
	}
	got := restored(t, s)
	if want := []string{"c/d/HEAD (made a repository)", "c/d/refs (made a repository)"}; !slices.Equal(got, want) {
		t.Errorf("changes = %q, want %q", got, want)
	}
	// c and c/d changed (setting times back is a change too), and
	// c/d/refs and c/d/refs/heads are new: the others are not read.
	if r := sv.last.reads; r != 4 {
		t.Errorf("the survey after the command read %d folders; want the 4 that changed", r)
	}
}

// A folder whose change time is too recent to trust is read again: a
// change in the same tick of the file system's clock would not show.
func TestSurveysReadRecentFoldersAgain(t *testing.T) {
	root := tree(t, map[string]string{"a/f.txt": "x", "b/f.txt": "x"})
	sv := NewSurveys(ctime)
	sv.survey(root, nil)
	if s := sv.survey(root, nil); s.reads != 3 {
		t.Errorf("a second survey read %d folders; want all 3, just made", s.reads)
	}
}

// In a workspace larger than a survey looks at, a shape made in a folder
// the survey before the command never reached is reported and left, lest
// what the user keeps there be taken out; one made in a folder it looked
// at is taken out.
func TestSurveyCutLeavesWhatItDidNotSee(t *testing.T) {
	// The survey looks at the root's 3 entries, at a's none and at b's
	// 4, and stops there: z is past it.
	root := tree(t, map[string]string{"a/": "", "b/1": "x", "b/2": "x", "b/3": "x", "b/4": "x", "z/": ""})
	defer func(n int) { maxSurvey = n }(maxSurvey)
	maxSurvey = 7
	s := SnapWith(root, NewSurveys(ctime))
	if !s.shapes.cut || !s.shapes.visited[filepath.Join(root, "b")] || s.shapes.visited[filepath.Join(root, "z")] {
		t.Fatalf("the survey was cut %v and looked at %v; want b looked at and z not", s.shapes.cut, s.shapes.visited)
	}
	// The command empties b, so that the survey after it reaches z.
	for _, f := range []string{"1", "2", "3", "4"} {
		if err := os.Remove(filepath.Join(root, "b", f)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, root, map[string]string{"a/HEAD": "ref: refs/heads/main\n", "a/refs/": "", "z/HEAD": "ref: refs/heads/main\n", "z/refs/": ""})
	changes, err := s.Restore()
	var got []string
	for _, c := range changes {
		got = append(got, c.String())
	}
	if want := []string{"a/HEAD (made a repository)", "a/refs (made a repository)", "z/HEAD (made a repository)", "z/refs (made a repository)"}; !slices.Equal(got, want) {
		t.Errorf("changes = %q, want %q", got, want)
	}
	if !errors.Is(err, ErrNotRestored) || !strings.Contains(err.Error(), errNotLooked.Error()) {
		t.Errorf("Restore's error = %v, want one that z was not looked at", err)
	}
	if _, err := os.Lstat(filepath.Join(root, "a", "HEAD")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a/HEAD, in a folder looked at, was left: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(root, "z", "HEAD")); err != nil {
		t.Errorf("z/HEAD, in a folder not looked at, was taken out: %v", err)
	}
}

// A survey makes room for as many folders as it is told there are, even
// the first, or after one that kept few because they had just changed: it
// then grows nothing as it goes.
func TestSurveyMakesRoom(t *testing.T) {
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("d%03d/f.txt", i)] = "x"
	}
	root := tree(t, files)
	defer func(s time.Duration) { settle = s }(settle)
	settle = -time.Hour // every folder is kept, and fills the room made
	first := func(size func() int) float64 {
		return testing.AllocsPerRun(50, func() { // many runs: an allocation elsewhere in the process counts too
			sv := NewSurveys(ctime)
			if size != nil {
				sv.SizeWith(size)
			}
			sv.survey(root, nil)
		})
	}
	told, untold := first(func() int { return 301 }), first(nil)
	if told >= untold {
		t.Errorf("a first survey told of 301 folders made %.0f allocations, one told nothing %.0f", told, untold)
	}
	// After a survey that kept nothing, all its folders just made.
	settle = time.Hour
	sv := NewSurveys(ctime)
	sv.survey(root, nil)
	settle = -time.Hour
	after := func(size func() int) float64 {
		return testing.AllocsPerRun(50, func() { // many runs: an allocation elsewhere in the process counts too
			again := NewSurveys(ctime)
			again.last, again.size = sv.last, size
			again.survey(root, nil)
		})
	}
	if told, untold := after(func() int { return 301 }), after(nil); told >= untold {
		t.Errorf("a survey told of 301 folders, after one that kept none, made %.0f allocations, one told nothing %.0f", told, untold)
	}
	// A hint past any survey's bound is not taken at its word.
	sv = NewSurveys(ctime)
	sv.SizeWith(func() int { return math.MaxInt })
	if s := sv.survey(root, nil); s.reads != 301 {
		t.Errorf("a first survey told of math.MaxInt folders read %d; want 301", s.reads)
	}
}

// A survey that finds every folder as the one before it shares that
// one's folders rather than copying them; one that finds a change keeps
// its own, with the folders that did not change shared one by one.
func TestSurveysShareWhatDidNotChange(t *testing.T) {
	root := tree(t, map[string]string{"a/f.txt": "x", "b/f.txt": "x", "c/d/f.txt": "x"})
	defer func(s time.Duration) { settle = s }(settle)
	settle = -time.Hour
	sv := NewSurveys(ctime)
	first := sv.survey(root, nil)
	second := sv.survey(root, nil)
	same := func(a, b survey) bool {
		return len(a.folders) > 0 && fmt.Sprintf("%p", a.folders) == fmt.Sprintf("%p", b.folders)
	}
	if !same(first, second) || second.reads != 0 {
		t.Fatalf("a survey after no change has folders of its own (read %d)", second.reads)
	}
	if err := os.RemoveAll(filepath.Join(root, "b")); err != nil {
		t.Fatal(err)
	}
	third := sv.survey(root, nil)
	if same(second, third) {
		t.Fatal("a survey after a folder went shares the folders of the one before")
	}
	if _, ok := third.folders[filepath.Join(root, "b")]; ok {
		t.Error("a folder that went is still surveyed")
	}
	for _, d := range []string{"a", "c", "c/d"} {
		p := filepath.Join(root, d)
		if third.folders[p] == nil || third.folders[p] != second.folders[p] {
			t.Errorf("%s did not change, yet its record is not the one before", d)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "c", "d", "e"), 0o755); err != nil {
		t.Fatal(err)
	}
	fourth := sv.survey(root, nil)
	if same(third, fourth) || fourth.folders[filepath.Join(root, "c", "d", "e")] == nil || len(fourth.folders) != 5 {
		t.Errorf("a survey after a folder was made has %d folders; want 5, with the new one", len(fourth.folders))
	}
}
