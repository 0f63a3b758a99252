package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// A change an outside writer makes while the start's walk runs, in a
// folder that walk has read (a secret made) or has yet to read (a
// protected file moved there), is hidden from the first command, whether
// folders are watched or not: unwatched, the walk of what commands must
// not see takes a folder the start's walk read only when it finds it
// unchanged since, and it takes none when the start's watch failed part
// way.
func TestChangeDuringTheStartWalk(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(root string) error
		shown  string
	}{
		{"a secret made where it read", func(root string) error {
			return os.WriteFile(filepath.Join(root, "0b", ".env"), []byte("K=v\n"), 0o600)
		}, "0b/.env"},
		{"a protected file moved where it reads next", func(root string) error {
			return os.Rename(filepath.Join(root, "a", ".env"), filepath.Join(root, "b", "notes.txt"))
		}, "b/notes.txt"},
		// The folder it was in does not change: only the one it reads next
		// shows the link, by its times, as it had no watch yet.
		{"a protected file linked where it reads next", func(root string) error {
			return os.Link(filepath.Join(root, "a", ".env"), filepath.Join(root, "b", "notes.txt"))
		}, "b/notes.txt"},
	} {
		for _, mode := range []string{"times", "watched", "watch of the start lost"} {
			t.Run(fmt.Sprintf("%s, %s", tt.name, mode), func(t *testing.T) {
				files := map[string]string{"a/.env": "API_KEY=x\n", "0b/readme.go": "package b\n", "b/readme.go": "package b\n"}
				for i := range 2000 { // the walk takes a while past a0000
					files[fmt.Sprintf("a%04d/x", i)] = ""
				}
				ws := newWorkspace(t, files)
				age(t, ws.Root())
				ws.hidden.noWatch = mode == "times"
				if mode == "watch of the start lost" {
					ws.hidden.keepMax = 1 // the root only
				}
				// The change is made when the start's walk has read a0000.
				fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
				if err != nil {
					t.Skip(err)
				}
				defer syscall.Close(fd)
				if _, err := syscall.InotifyAddWatch(fd, filepath.Join(ws.Root(), "a0000"), syscall.IN_CLOSE_NOWRITE); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() {
					var buf [4096]byte
					if _, err := syscall.Read(fd, buf[:]); err != nil {
						done <- err
						return
					}
					done <- tt.change(ws.Root())
				}()
				got := rels(ws, mustHidden(t, ws))
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(got, tt.shown) {
					t.Errorf("hidden %q, want %s among them", got, tt.shown)
				}
			})
		}
	}
}
