package tools

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// read_file takes the text the approval step read of a file a moment
// before, as long as the file is the version it read; whatever changed
// since is read, or refused, as without it.
func TestReadTakesHeldText(t *testing.T) {
	needFileIDs(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "a.txt"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, root string)
		want   string // the text read_file shows
		err    error
		taken  bool // the text held is taken
	}{
		{"unchanged", func(*testing.T, string) {}, "first\n", nil, true},
		{"written at the same size, its time set back", func(t *testing.T, root string) {
			p := filepath.Join(root, "a.txt")
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("other\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
			time.Sleep(fineRacy + 50*time.Millisecond) // a version to trust, but another
		}, "other\n", nil, false},
		{"ignored since", func(t *testing.T, root string) {
			writeFiles(t, root, map[string]string{".gitignore": "a.txt\n"})
		}, "", ErrSecret, false},
		{"given another name", func(t *testing.T, root string) {
			if err := os.Link(filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")); err != nil {
				t.Fatal(err)
			}
		}, "", ErrProtected, false},
		{"replaced by a link out of the workspace", func(t *testing.T, root string) {
			p := filepath.Join(root, "a.txt")
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "a.txt"), p); err != nil {
				t.Fatal(err)
			}
		}, "", ErrOutsideWorkspace, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, map[string]string{"a.txt": "first\n"})
			age(t, ws.Root())
			if what := NewSources(ws, nil).Leak("a.txt"); what != "" {
				t.Fatalf("Leak = %q", what)
			}
			if ws.held.text == nil {
				t.Fatal("the text read was not held")
			}
			tt.change(t, ws.Root())
			got, err := run(t, ReadFile(ws), map[string]any{"path": "a.txt"})
			checkErr(t, err, tt.err)
			if got != tt.want {
				t.Errorf("read %q, want %q", got, tt.want)
			}
			if taken := ws.held.text == nil; taken != tt.taken {
				t.Errorf("the text held was taken: %v, want %v", taken, tt.taken)
			}
		})
	}
}

// A file with another name is refused by read_file (openRegular), held
// or not.
func TestReadHeldRefusesLinkedFiles(t *testing.T) {
	needFileIDs(t)
	ws := newWorkspace(t, map[string]string{"a.txt": "first\n"})
	if err := os.Link(filepath.Join(ws.Root(), "a.txt"), filepath.Join(ws.Root(), "b.txt")); err != nil {
		t.Fatal(err)
	}
	age(t, ws.Root())
	NewSources(ws, nil).Leak("a.txt")
	_, err := run(t, ReadFile(ws), map[string]any{"path": "a.txt"})
	checkErr(t, err, ErrProtected)
}

// Only a version that had not changed for a while is held: one written
// a moment ago may change again within the tick of the clock, unseen.
func TestReadHeldOnlySettled(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "first\n"})
	src := NewSources(ws, nil)
	src.Leak("a.txt")
	if ws.held.text != nil {
		t.Error("a file written a moment ago was held")
	}
	src.now = func() time.Time { return time.Now().Add(time.Hour) }
	src.Leak("a.txt")
	if ws.held.text == nil {
		t.Error("a settled file was not held")
	}
}

// A part of a held text reads as the same part of the file read anew.
func TestReadHeldPart(t *testing.T) {
	needFileIDs(t)
	ws := newWorkspace(t, map[string]string{"a.txt": "one\ntwo\nthree\nfour\n"})
	age(t, ws.Root())
	args := map[string]any{"path": "a.txt", "offset": int64(2), "limit": int64(2)}
	want, err := run(t, ReadFile(ws), args)
	if err != nil {
		t.Fatal(err)
	}
	NewSources(ws, nil).Leak("a.txt")
	got, err := run(t, ReadFile(ws), args)
	if err != nil || got != want || ws.held.text != nil {
		t.Errorf("held: %q, %v (taken: %v), want %q", got, err, ws.held.text == nil, want)
	}
}
