//go:build unix

package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs f and fails the test when it takes longer than a few
// seconds: a path trick must never make a tool hang.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool hangs")
	}
}

// fileTools returns a call of every file tool on path.
func fileTools(ws *Workspace, path string) map[string]func() (string, error) {
	ctx := context.Background()
	return map[string]func() (string, error){
		"read": func() (string, error) { return ReadFile(ws).run(ctx, map[string]any{"path": path}) },
		"list": func() (string, error) { return ListFiles(ws).run(ctx, map[string]any{"path": path}) },
		"edit": func() (string, error) {
			return EditFile(ws).run(ctx, map[string]any{"path": path, "old_text": "x", "new_text": "y"})
		},
		"create": func() (string, error) {
			return EditFile(ws).run(ctx, map[string]any{"path": path, "old_text": "", "new_text": "y"})
		},
		"write": func() (string, error) { return WriteFile(ws).run(ctx, map[string]any{"path": path, "content": "y"}) },
	}
}

// TestHostilePaths gives every file tool a path built to escape, hang or
// crash it; each must fail, quickly, with an error.
func TestHostilePaths(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "a\n"})
	root := ws.Root()
	links := map[string]string{
		"loop":     "loop",
		"ping":     "pong",
		"pong":     "ping",
		"selfenv":  "/proc/self/environ",
		"selfroot": "/proc/self/root",
		"selfcwd":  "/proc/self/cwd",
		"zero":     "/dev/zero",
		"random":   "/dev/urandom",
		"tty":      "/dev/tty",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	paths := []string{
		"loop", "loop/x", "ping", "pong/x",
		"selfenv", "selfroot/etc/passwd", "selfcwd/a.txt", "zero", "random", "tty",
		"/proc/self/environ", "/proc/self/root/etc/passwd", "/proc/self/fd/0", "/dev/zero", "/dev/stdin", "/dev/tty",
		"a\x00b", "a.txt\x00.png",
		strings.Repeat("a/", 3000) + "x",
		strings.Repeat("x", 300),
		strings.Repeat("../", 100) + "etc/passwd",
	}
	for _, path := range paths {
		for name, call := range fileTools(ws, path) {
			label := name + " " + path
			if len(label) > 60 {
				label = label[:60]
			}
			t.Run(label, func(t *testing.T) {
				within(t, func() {
					body, err := call()
					if err == nil {
						t.Errorf("accepted, body %q", body)
					}
					if strings.Contains(body+errText(err), "PATH=") || len(errText(err)) > 2000 {
						t.Errorf("error leaks or floods: %.200s", errText(err))
					}
				})
			})
		}
	}
	if got := readString(t, filepath.Join(root, "a.txt")); got != "a\n" {
		t.Errorf("a.txt changed to %q", got)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A device node inside the workspace is refused by every tool.
func TestDeviceInWorkspace(t *testing.T) {
	ws := newWorkspace(t, nil)
	dev := filepath.Join(ws.Root(), "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(unixDev(1, 3))); err != nil {
		t.Skip("cannot make a device node here:", err)
	}
	for name, call := range fileTools(ws, "null") {
		if name == "list" || name == "create" {
			continue // listing a file fails for its own reason; create refuses what exists
		}
		t.Run(name, func(t *testing.T) {
			within(t, func() {
				_, err := call()
				checkErr(t, err, ErrNotRegular)
			})
		})
	}
}

func unixDev(major, minor uint32) uint64 {
	return uint64(major)<<8 | uint64(minor)
}

// A FIFO listed or read through a link must not hang either.
func TestFIFOThroughLink(t *testing.T) {
	ws := newWorkspace(t, nil)
	if err := syscall.Mkfifo(filepath.Join(ws.Root(), "pipe"), 0o644); err != nil {
		t.Skip("cannot make a named pipe:", err)
	}
	if err := os.Symlink("pipe", filepath.Join(ws.Root(), "innocent.txt")); err != nil {
		t.Fatal(err)
	}
	within(t, func() {
		_, err := run(t, ReadFile(ws), map[string]any{"path": "innocent.txt"})
		checkErr(t, err, ErrNotRegular)
		got, err := run(t, ListFiles(ws), map[string]any{})
		if err != nil || got != "innocent.txt\npipe" {
			t.Errorf("listing %q, %v", got, err)
		}
	})
}

// swapped makes a workspace with sub/file.txt, resolves it, then replaces
// sub by a symlink to a folder outside holding the same names, as an
// attacker racing the tool would between the check and the use.
func swapped(t *testing.T) (ws *Workspace, resolved, outside string) {
	t.Helper()
	ws = newWorkspace(t, map[string]string{"sub/file.txt": "inside\n"})
	resolved, err := ws.Resolve("sub/file.txt")
	if err != nil {
		t.Fatal(err)
	}
	outside = filepath.Join(filepath.Dir(ws.Root()), "outside")
	writeFiles(t, outside, map[string]string{"file.txt": "outside secret\n"})
	sub := filepath.Join(ws.Root(), "sub")
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, sub); err != nil {
		t.Fatal(err)
	}
	return ws, resolved, outside
}

func TestSwapBeforeOpen(t *testing.T) {
	ws, resolved, _ := swapped(t)
	f, err := openRegular(ws, resolved, "sub/file.txt")
	if err == nil {
		f.Close()
		t.Fatal("opened a file through a folder swapped for a link out of the workspace")
	}
	checkErr(t, err, ErrOutsideWorkspace)
}

func TestSwapBeforeWrite(t *testing.T) {
	ws, resolved, outside := swapped(t)
	err := save(context.Background(), ws, resolved, "sub/file.txt", []byte("overwritten\n"), 0o644)
	checkErr(t, err, ErrOutsideWorkspace)
	if got := readString(t, filepath.Join(outside, "file.txt")); got != "outside secret\n" {
		t.Errorf("the file outside became %q", got)
	}
	noTempFiles(t, filepath.Dir(ws.Root()))
}

// A file swapped for a symlink out of the workspace after the check is
// replaced by the write, never followed.
func TestFinalLinkNotFollowedOnWrite(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"target.txt": "old\n"})
	resolved, err := ws.Resolve("target.txt")
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(ws.Root()), "victim.txt")
	if err := os.WriteFile(outside, []byte("victim\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(resolved)
	if err := os.Symlink(outside, resolved); err != nil {
		t.Fatal(err)
	}
	if err := save(context.Background(), ws, resolved, "target.txt", []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, outside); got != "victim\n" {
		t.Errorf("the write followed the link: the file outside is %q", got)
	}
	fi, err := os.Lstat(resolved)
	if err != nil || fi.Mode()&os.ModeSymlink != 0 || readString(t, resolved) != "new\n" {
		t.Errorf("target.txt is not the new regular file: %v, %v", fi, err)
	}
}

func TestLongPathMessageIsShort(t *testing.T) {
	ws := newWorkspace(t, nil)
	_, err := ws.Resolve(strings.Repeat("a", 100000))
	if err == nil || len(err.Error()) > 300 {
		t.Errorf("err = %.300v", err)
	}
	if errors.Is(err, ErrOutsideWorkspace) {
		t.Error("a long path is reported as outside the workspace")
	}
}
