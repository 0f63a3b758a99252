package tools

import (
	"context"
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "abc", 0},
		{"abc", "", 3},
		{"scr", "src", 1},
		{"readm.md", "readme.md", 1},
		{"kitten", "sitting", 3},
		{"héllo", "hello", 1},
		{"ca", "abc", 3},
	}
	for _, tt := range tests {
		if got := distance(tt.a, tt.b); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestClosestName(t *testing.T) {
	names := []string{"Makefile", "README.md", "go.mod", "main.go", "notes.txt", "src"}
	tests := []struct {
		want, got string
	}{
		{"READM.md", "README.md"},
		{"readme.md", "README.md"},
		{"README", "README.md"},
		{"README.txt", "README.md"},
		{"mian.go", "main.go"},
		{"makefile", "Makefile"},
		{"go.mod", "go.mod"},
		{"sr", "src"},
		{"scr", "src"},
		{"nothing-like-it.rs", ""},
		{"x", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := closestName(tt.want, names); got != tt.got {
				t.Errorf("closestName(%q) = %q, want %q", tt.want, got, tt.got)
			}
		})
	}
}

// TestDidYouMean: a path that does not exist gets the closest name the
// model may see, in the folder it names, or in a folder close to it; never
// a hidden, secret or ignored one.
func TestDidYouMean(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		"README.md":         "hi\n",
		"src/app/main.go":   "package main\n",
		".hidden/READNE.md": "no\n",
		".env":              "KEY=1\n",
		".gitignore":        "build/\n*.log\n",
		"build/READMF.md":   "ignored\n",
		"debug.log":         "ignored\n",
		"secrets.txt":       "a secret name\n",
		"docs/":             "",
	})
	tests := []struct {
		name, path string
		dir        bool
		want       string
	}{
		{"a typo", "READM.md", false, "did you mean README.md? If not, "},
		{"a folder too", "scr/app/mian.go", false, "did you mean src/app/main.go? If not, "},
		{"a folder for list_files", "dosc", true, "did you mean docs? If not, "},
		{"a file is no folder", "READM.md", true, ""},
		{"not a hidden file", ".envv", false, ""},
		{"in a hidden folder named, as list_files shows it", ".hidden/READNE.mdd", false, "did you mean .hidden/READNE.md? If not, "},
		{"not in the git folder", ".git/HAED", false, ""},
		{"not an ignored file", "debug.lg", false, ""},
		{"not in an ignored folder", "build/READMF.mdd", false, ""},
		{"not a secret", "deploy.ky", false, ""},
		{"nothing close", "zzz/qqq.rs", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			abs, err := ws.Resolve(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if got := didYouMean(context.Background(), ws, abs, tt.dir); got != tt.want {
				t.Errorf("didYouMean(%q) = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
}

// TestToolsSuggestPaths: read_file, edit_file and list_files say which
// path was meant.
func TestToolsSuggestPaths(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"README.md": "hi\n", "src/main.go": "package main\n"})
	tests := []struct {
		name string
		tool Tool
		args map[string]any
		want string
	}{
		{"read_file", ReadFile(ws), map[string]any{"path": "READM.md"},
			"no such file: READM.md; did you mean README.md? If not, use list_files to see what exists"},
		{"edit_file", EditFile(ws), map[string]any{"path": "src/mian.go", "old_text": "a", "new_text": "b"},
			"no such file: src/mian.go; did you mean src/main.go? If not, to create it, call edit_file with an empty old_text"},
		{"list_files", ListFiles(ws), map[string]any{"path": "scr"},
			"no such directory: scr; did you mean src? If not, list its parent to see what exists"},
		{"read_file, nothing close", ReadFile(ws), map[string]any{"path": "zzzz.rs"},
			"no such file: zzzz.rs; use list_files to see what exists"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run(t, tt.tool, tt.args)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
