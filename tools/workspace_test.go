package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linkedWorkspace returns a workspace and, beside it, a folder outside it
// holding secret.txt, with symlinks in the workspace pointing in and out.
func linkedWorkspace(t *testing.T) (ws *Workspace, outside string) {
	t.Helper()
	ws = newWorkspace(t, map[string]string{"real.txt": "real\n", "sub/a.txt": "a\n"})
	outside = filepath.Join(filepath.Dir(ws.Root()), "outside")
	writeFiles(t, outside, map[string]string{"secret.txt": "secret\n"})
	links := map[string]string{
		"out-dir":     outside,
		"out-file":    filepath.Join(outside, "secret.txt"),
		"out-rel":     "../outside/secret.txt",
		"dangling":    filepath.Join(outside, "missing.txt"),
		"chain":       "dangling",
		"in-link":     "real.txt",
		"dangling-in": "new.txt",
		"sub/up":      "../real.txt",
		"loop":        "loop",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws.Root(), name)); err != nil {
			t.Fatal(err)
		}
	}
	return ws, outside
}

func TestNewWorkspace(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	writeFiles(t, dir, map[string]string{"real/": "", "file.txt": "x"})
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	realResolved, err := filepath.EvalSymlinks(real)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		root     string
		wantRoot string
		wantErr  bool
	}{
		{"directory", real, realResolved, false},
		{"through symlink", filepath.Join(dir, "link"), realResolved, false},
		{"missing", filepath.Join(dir, "missing"), "", true},
		{"file", filepath.Join(dir, "file.txt"), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := NewWorkspace(tt.root)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err == nil && ws.Root() != tt.wantRoot {
				t.Errorf("Root() = %s, want %s", ws.Root(), tt.wantRoot)
			}
		})
	}
}

func TestNewWorkspaceRelative(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	ws, err := NewWorkspace(".")
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(ws.Root()) {
		t.Errorf("Root() = %s, want an absolute path", ws.Root())
	}
}

func TestResolve(t *testing.T) {
	ws, outside := linkedWorkspace(t)
	root := ws.Root()
	const out = "OUTSIDE" // the error wraps ErrOutsideWorkspace
	const bad = "BAD"     // some other error
	tests := []struct {
		path string
		want string // relative to root, or out or bad
	}{
		{"", "."},
		{".", "."},
		{"real.txt", "real.txt"},
		{"sub/../real.txt", "real.txt"},
		{"sub/a.txt/", "sub/a.txt"},
		{"new/dir/file.txt", "new/dir/file.txt"},
		{filepath.Join(root, "sub", "a.txt"), "sub/a.txt"},
		{root, "."},
		{"in-link", "real.txt"},
		{"sub/up", "real.txt"},
		{"dangling-in", "new.txt"},
		{"..", out},
		{"../x", out},
		{"sub/../../x", out},
		{"../ws/real.txt/../../outside", out},
		{"/etc/passwd", out},
		{filepath.Join(outside, "secret.txt"), out},
		{"out-dir", out},
		{"out-dir/secret.txt", out},
		{"out-dir/new.txt", out},
		// The kernel follows out-dir before going up from where it leads:
		// cleaning the text first would make this root/outside/secret.txt.
		{"out-dir/../outside/secret.txt", out},
		{"out-dir/../outside/new.txt", out},
		{"out-file", out},
		{"out-rel", out},
		{"dangling", out},
		{"chain", out},
		{"a\x00b", bad},
		{"loop", bad},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := ws.Resolve(tt.path)
			switch tt.want {
			case out:
				if !errors.Is(err, ErrOutsideWorkspace) {
					t.Fatalf("Resolve = %q, %v; want an error wrapping ErrOutsideWorkspace", got, err)
				}
				msg := err.Error()
				if !strings.Contains(msg, `"`+tt.path+`"`) || !strings.Contains(msg, root) {
					t.Errorf("error %q does not name the path and the root", msg)
				}
			case bad:
				if err == nil || errors.Is(err, ErrOutsideWorkspace) {
					t.Fatalf("Resolve = %q, %v; want an error not about the workspace bounds", got, err)
				}
			default:
				want := filepath.Join(root, filepath.FromSlash(tt.want))
				if err != nil || got != want {
					t.Fatalf("Resolve = %q, %v; want %q", got, err, want)
				}
			}
		})
	}
}

// An absolute path that reaches the root through a symlink is inside.
func TestResolveThroughLinkedRoot(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "a"})
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(ws.Root(), link); err != nil {
		t.Fatal(err)
	}
	got, err := ws.Resolve(filepath.Join(link, "a.txt"))
	if want := filepath.Join(ws.Root(), "a.txt"); err != nil || got != want {
		t.Errorf("Resolve = %q, %v; want %q", got, err, want)
	}
}

func TestRel(t *testing.T) {
	ws := newWorkspace(t, nil)
	tests := []struct{ abs, want string }{
		{ws.Root(), "."},
		{filepath.Join(ws.Root(), "a", "b.txt"), "a/b.txt"},
		{filepath.Dir(ws.Root()), filepath.Dir(ws.Root())},
		{ws.Root() + "x", ws.Root() + "x"},
		// outside once cleaned: shown as given, never as "../x"
		{ws.Root() + "/a/../../x", ws.Root() + "/a/../../x"},
	}
	for _, tt := range tests {
		if got := ws.Rel(tt.abs); got != tt.want {
			t.Errorf("Rel(%q) = %q, want %q", tt.abs, got, tt.want)
		}
	}
}
