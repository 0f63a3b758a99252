//go:build linux || darwin

package gitdir

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
