package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestListFiles(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		"b.txt":          "",
		"a.txt":          "",
		"Z.md":           "",
		"sub/inner.txt":  "",
		".hidden":        "",
		".git/config":    "",
		"empty/":         "",
		"hidden-only/.x": "",
		"a/":             "",
	})
	if err := os.Symlink("sub", filepath.Join(ws.Root(), "link-to-sub")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		wantErr error
	}{
		{"root by default", map[string]any{}, "Z.md\na/\na.txt\nb.txt\nempty/\nhidden-only/\nlink-to-sub/\nsub/", nil},
		{"root as dot", map[string]any{"path": "."}, "Z.md\na/\na.txt\nb.txt\nempty/\nhidden-only/\nlink-to-sub/\nsub/", nil},
		{"subdirectory", map[string]any{"path": "sub"}, "inner.txt", nil},
		{"through symlink", map[string]any{"path": "link-to-sub"}, "inner.txt", nil},
		{"empty", map[string]any{"path": "empty"}, "[empty is empty (hidden entries are not listed)]", nil},
		{"hidden only", map[string]any{"path": "hidden-only"}, "[hidden-only is empty (hidden entries are not listed)]", nil},
		{"a file", map[string]any{"path": "a.txt"}, "", errAny},
		{"missing", map[string]any{"path": "nope"}, "", os.ErrNotExist},
		{"outside", map[string]any{"path": ".."}, "", ErrOutsideWorkspace},
	}
	list := ListFiles(ws)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := run(t, list, tt.args)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("body =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestListFilesCap(t *testing.T) {
	files := map[string]string{}
	for i := range maxEntries + 5 {
		files[fmt.Sprintf("f%04d", i)] = ""
	}
	ws := newWorkspace(t, files)
	got, err := run(t, ListFiles(ws), map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(got, "\n")
	if len(lines) != maxEntries+1 || lines[maxEntries-1] != fmt.Sprintf("f%04d", maxEntries-1) {
		t.Fatalf("got %d lines ending %q, want %d entries and a note", len(lines), lines[len(lines)-1], maxEntries)
	}
	if want := "[5 more entries not shown; list a subdirectory to narrow it]"; lines[maxEntries] != want {
		t.Errorf("note = %q, want %q", lines[maxEntries], want)
	}
}
