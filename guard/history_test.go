package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The git commands that print files from history or the index read the
// paths their pathspecs reach, every path without one; those that print
// names, messages or types only read none.
func TestHistoryReads(t *testing.T) {
	ws := newTestWorkspace(t)
	p, _ := New(nil, nil)
	all := []string{"."}
	for _, tt := range []struct {
		cmd  string
		want []string
	}{
		{"git log -p", all},
		{"git --no-pager log -p", all},
		{"git log -p -- .", all},
		{"git log -p -- sub ./a.txt", []string{"sub", "a.txt"}},
		{"git log -p main.go", []string{"main.go"}},
		{"git log -p --follow -- main.go", all},
		{"git log -p HEAD~2 main.go", []string{"main.go"}},
		{"git log -p -- '*.go'", all},
		{"git log -p -- ':!main.go'", all},
		{"git log -L 1,2:main.go", all},
		{"git reflog -p", all},
		{"git whatchanged -p", all},
		{"git stash list -p", all},
		{"git stash show", all},
		{"git stash -p", all},
		{"git show", all},
		{"git show HEAD", all},
		{"git show 8eb03cdb", all},
		{"git show HEAD -- sub", []string{"sub"}},
		{"git show HEAD~1:config.local", []string{"config.local"}},
		{"git show HEAD:./sub/x.txt", []string{"sub/x.txt"}},
		{"git show :config.local", []string{"config.local"}},
		{"git show :/first", all},
		{"git for-each-ref '--format=%(raw)' refs/tags", all},
		{"git tag --format '%(*raw)'", all},
		{"git tag -l", nil},
		{"git branch '--format=%(refname)'", nil},
		{"git cat-file -p :/first", all},
		{"git diff", all},
		{"git diff --cached", all},
		{"git diff HEAD HEAD~1", all},
		{"git diff HEAD~1 -- a.txt", []string{"a.txt"}},
		{"git diff HEAD:a.txt HEAD:b.txt", []string{"a.txt", "b.txt"}},
		{"git diff-tree -p HEAD", all},
		{"git diff-files", all},
		{"git grep -e x HEAD", all},
		{"git grep -e x HEAD -- sub", []string{"sub"}},
		{"git grep --cached -e x", all},
		{"git grep -e x HEAD:sub", []string{"sub"}},
		{"git cat-file -p 8eb03cdb", all},
		{"git cat-file blob 8eb03cdb", all},
		{"git cat-file --batch-all-objects --batch", all},
		{"git cat-file -p HEAD:config.local", []string{"config.local"}},
		{"git blame HEAD~1 -- config.local", []string{"HEAD~1", "config.local"}},
		{"git blame main.go", []string{"main.go"}},
		{"git status -v", all},
		{"git commit -v -m x", all},
		{"git add -p", all},
		{"git reset -p", all},
		{"git log -p | rev && git show HEAD:a.txt", all},

		{"git log", nil},
		{"git log --oneline -n 5", nil},
		{"git log --format=%H:%s", nil},
		{"git log --stat", nil},
		{"git log --name-only --all", nil},
		{"git show --stat HEAD", nil},
		{"git show -s HEAD", nil},
		{"git diff --name-only HEAD~1", nil},
		{"git diff --no-index a.txt b.txt", nil},
		{"git whatchanged", nil},
		{"git reflog", nil},
		{"git stash list", nil},
		{"git grep -e x", nil},
		{"git grep -e x sub", nil},
		{"git grep --no-index -e x", nil},
		{"git cat-file -t 8eb03cdb", nil},
		{"git cat-file -s HEAD", nil},
		{"git cat-file --batch-all-objects --batch-check", nil},
		{"git ls-tree -r HEAD", nil},
		{"git rev-list --objects --all", nil},
		{"git rev-parse HEAD:config.local", nil},
		{"git status", nil},
		{"git commit -m x", nil},
		{"git add a.txt", nil},
		{"cat a.txt", nil},
	} {
		t.Run(tt.cmd, func(t *testing.T) {
			l, err := p.Parse(tt.cmd)
			if err != nil {
				t.Fatal(err)
			}
			r, err := p.CheckReads(t.Context(), l, ws)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.History, tt.want) {
				t.Errorf("History = %q, want %q", r.History, tt.want)
			}
		})
	}
}

// In a workspace that is a folder of a larger repository, REV:path is
// taken from the repository's top, and the history read is of the path
// inside the workspace.
func TestHistoryReadsInFolder(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".git", "svc-a/sub"} {
		if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		cmd  string
		want []string
	}{
		{"git show HEAD:svc-a/config.local", []string{"config.local"}},
		{"git show HEAD:./config.local", []string{"config.local"}},
		{"git show HEAD:svc-a", []string{"."}},
		{"git log -p -- sub", []string{"sub"}},
	} {
		t.Run(tt.cmd, func(t *testing.T) {
			w := testWorkspace{root: filepath.Join(top, "svc-a")}
			p, _ := New(nil, nil)
			l, err := p.Parse(tt.cmd)
			if err != nil {
				t.Fatal(err)
			}
			r, err := p.CheckReads(t.Context(), l, w)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.History, tt.want) {
				t.Errorf("History = %q, want %q", r.History, tt.want)
			}
		})
	}
}

func TestCovers(t *testing.T) {
	for _, tt := range []struct {
		spec, p string
		want    bool
	}{
		{".", ".env", true},
		{".env", ".env", true},
		{"sub", "sub/.env", true},
		{"sub", "subway/.env", false},
		{"a.txt", ".env", false},
	} {
		if got := Covers(tt.spec, tt.p); got != tt.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", tt.spec, tt.p, got, tt.want)
		}
	}
}

// Past maxReads pathspecs, a history read counts as of every path, so
// that none is dropped.
func TestHistoryReadsMany(t *testing.T) {
	ws := newTestWorkspace(t)
	p, _ := New(nil, nil)
	var b strings.Builder
	b.WriteString("git log -p --")
	for i := range maxReads + 1 {
		fmt.Fprintf(&b, " d%d", i)
	}
	l, err := p.Parse(b.String())
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.CheckReads(t.Context(), l, ws)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.History, []string{"."}) {
		t.Errorf("History holds %d pathspecs, want only .", len(r.History))
	}
}
