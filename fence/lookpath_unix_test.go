//go:build unix

package fence

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A program on a folder of the PATH inside the workspace, or linked into
// it, is never the one found; one outside it is, whatever the order.
func TestLookPathOutsideRoot(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	prog := func(dir string) string {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "tool")
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inside := prog(filepath.Join(root, "bin"))
	linkDir := filepath.Join(other, "links")
	if err := os.MkdirAll(linkDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(inside, filepath.Join(linkDir, "tool")); err != nil {
		t.Fatal(err)
	}
	good := prog(filepath.Join(other, "bin"))
	// A folder of the workspace on the PATH is passed by even where its
	// program is a link to one outside: the model may change the link.
	linksIn := filepath.Join(root, "links")
	if err := os.MkdirAll(linksIn, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(good, filepath.Join(linksIn, "tool")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path []string
		want string // "" for not found
	}{
		{[]string{filepath.Join(root, "bin"), filepath.Join(other, "bin")}, good},
		{[]string{linkDir, filepath.Join(other, "bin")}, good},
		{[]string{"bin", filepath.Join(other, "bin")}, good},
		{[]string{filepath.Join(root, "bin")}, ""},
		{[]string{linkDir}, ""},
		{[]string{linksIn}, ""},
		{[]string{linksIn, filepath.Join(other, "bin")}, good},
	} {
		t.Setenv("PATH", strings.Join(tt.path, string(os.PathListSeparator)))
		got, err := LookPath("tool", root)
		switch {
		case tt.want == "" && !errors.Is(err, exec.ErrNotFound):
			t.Errorf("PATH=%q: found %q, %v; want none", tt.path, got, err)
		case tt.want != "" && got != tt.want:
			t.Errorf("PATH=%q: found %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
	if _, err := LookPath(inside, root); err == nil {
		t.Errorf("a program named by its path in the workspace was found")
	}
	if got, err := LookPath(good, root); err != nil || got != good {
		t.Errorf("a program named by its path outside: %q, %v", got, err)
	}
}
