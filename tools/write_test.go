package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFile(t *testing.T) {
	ws, outside := linkedWorkspace(t)
	secret := filepath.Join(outside, "secret.txt")
	tests := []struct {
		name    string
		path    string
		want    string // body
		wantErr error
		target  string // file that must then hold the content, relative to the root
	}{
		{"create", "new.txt", "created new.txt (8 bytes)", nil, "new.txt"},
		{"create with folders", "a/b/c.txt", "created a/b/c.txt (8 bytes)", nil, "a/b/c.txt"},
		{"replace", "real.txt", "replaced real.txt (8 bytes)", nil, "real.txt"},
		{"through a link inside", "in-link", "replaced real.txt (8 bytes)", nil, "real.txt"},
		{"through a dangling link inside", "dangling-in", "created new.txt (8 bytes)", nil, "new.txt"},
		{"directory", "sub", "", ErrNotRegular, ""},
		{"dotdot", "../outside/secret.txt", "", ErrOutsideWorkspace, ""},
		{"absolute outside", secret, "", ErrOutsideWorkspace, ""},
		{"link to an outside file", "out-file", "", ErrOutsideWorkspace, ""},
		{"link to an outside folder", "out-dir/secret.txt", "", ErrOutsideWorkspace, ""},
		{"dangling link outside", "dangling", "", ErrOutsideWorkspace, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(filepath.Join(ws.Root(), "new.txt"))
			got, err := run(t, WriteFile(ws), map[string]any{"path": tt.path, "content": "content\n"})
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("body = %q, want %q", got, tt.want)
			}
			if tt.target != "" {
				if got := readString(t, filepath.Join(ws.Root(), filepath.FromSlash(tt.target))); got != "content\n" {
					t.Errorf("%s = %q, want the content written", tt.target, got)
				}
			}
			if got := readString(t, secret); got != "secret\n" {
				t.Errorf("the file outside changed to %q", got)
			}
			if _, err := os.Lstat(filepath.Join(outside, "missing.txt")); err == nil {
				t.Error("a file was created outside through a dangling link")
			}
			noTempFiles(t, filepath.Dir(ws.Root()))
		})
	}
}

func TestWriteFileKeepsMode(t *testing.T) {
	tests := []struct {
		name   string
		before os.FileMode // 0 for a new file
		want   os.FileMode
	}{
		{"new file", 0, newFileMode},
		{"private file", 0o600, 0o600},
		{"executable", 0o755, 0o755},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, nil)
			path := filepath.Join(ws.Root(), "f")
			if tt.before != 0 {
				if err := os.WriteFile(path, []byte("old"), tt.before); err != nil {
					t.Fatal(err)
				}
				os.Chmod(path, tt.before)
			}
			if _, err := run(t, WriteFile(ws), map[string]any{"path": "f", "content": "new"}); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != tt.want {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tt.want)
			}
		})
	}
}

func TestWriteAtomicFailures(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, path string) context.Context
	}{
		{"rename over a folder", func(t *testing.T, path string) context.Context {
			writeFiles(t, path, map[string]string{"inside.txt": "x"})
			return context.Background()
		}},
		{"cancelled", func(t *testing.T, path string) context.Context {
			if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "target")
			ctx := tt.setup(t, path)
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			if err := writeAtomic(ctx, root, "target", []byte("new"), 0o644); err == nil {
				t.Fatal("writeAtomic succeeded")
			}
			if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
				if got := readString(t, path); got != "old" {
					t.Errorf("target = %q after a failed write", got)
				}
			}
			noTempFiles(t, dir)
		})
	}
}
