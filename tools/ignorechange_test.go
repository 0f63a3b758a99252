package tools

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestIgnoreFilesChangedByACommand checks that every way a command can
// change an ignore file is seen after it, however the folders are
// watched: one made, written in place, written through a hard link under
// another name, removed, and .git/info/exclude written.
func TestIgnoreFilesChangedByACommand(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, root string)
		want   []string
	}{
		{"nothing", func(*testing.T, string) {}, nil},
		{"another file written", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "sub", "a.txt"), "changed\n")
		}, nil},
		{"one made", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "sub", ".gitignore"), "a.txt\n")
		}, []string{"sub/.gitignore"}},
		{"one written in place", func(t *testing.T, root string) {
			appendTo(t, filepath.Join(root, ".gitignore"), "a.txt\n")
		}, []string{".gitignore"}},
		{"one written through a link", func(t *testing.T, root string) {
			appendTo(t, filepath.Join(root, "sub", "rules.txt"), "a.txt\n")
		}, []string{".gitignore"}},
		{"one removed", func(t *testing.T, root string) {
			must(t, os.Remove(filepath.Join(root, ".gitignore")))
		}, []string{".gitignore"}},
		{"exclude written", func(t *testing.T, root string) {
			appendTo(t, filepath.Join(root, ".git", "info", "exclude"), "a.txt\n")
		}, []string{".git/info/exclude"}},
	}
	for _, noWatch := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				ws := newWorkspace(t, map[string]string{
					".gitignore":        "*.log\n",
					".git/info/exclude": "",
					"sub/a.txt":         "a\n",
				})
				must(t, os.Link(filepath.Join(ws.root, ".gitignore"), filepath.Join(ws.root, "sub", "rules.txt")))
				ws.hidden.noWatch = noWatch
				mustHidden(t, ws)
				before := ws.ignoreStamps()
				time.Sleep(20 * time.Millisecond) // past the tick of the clock that stamps files
				tt.change(t, ws.root)
				got := ws.ignoreFilesChanged(before)
				if !slices.Equal(got, tt.want) {
					t.Errorf("watched %v: changed %q; want %q", !noWatch, got, tt.want)
				}
			})
		}
	}
}

func appendTo(t *testing.T, p, text string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	_, err = f.WriteString(text)
	must(t, err)
	must(t, f.Close())
}

// TestIgnoreFileMadeBeforeAnotherWalk checks that an ignore file a
// command made is seen after it even when a walk of Hidden came between
// (another call that needed the list): that walk watches the folders
// anew, and its watch has seen no change since.
func TestIgnoreFileMadeBeforeAnotherWalk(t *testing.T) {
	ws := newWorkspace(t, map[string]string{".gitignore": "*.log\n", "sub/a.txt": "a\n"})
	mustHidden(t, ws)
	before := ws.ignoreStamps()
	write(t, filepath.Join(ws.root, "sub", ".gitignore"), "a.txt\n")
	mustHidden(t, ws)
	if ws.hidden.walks != 2 {
		t.Fatalf("%d walks; the made file should have brought a second", ws.hidden.walks)
	}
	if got, want := ws.ignoreFilesChanged(before), []string{"sub/.gitignore"}; !slices.Equal(got, want) {
		t.Errorf("changed %q; want %q", got, want)
	}
}
