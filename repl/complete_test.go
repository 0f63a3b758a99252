package repl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"harness/tools"
)

// TestComplete: Tab completes a command's name at the start of the line
// and an @tag's path in the workspace, offering nothing hidden, secret,
// ignored or outside it.
func TestComplete(t *testing.T) {
	root := t.TempDir()
	for name, content := range map[string]string{
		"main.go": "package main\n", "make.md": "#\n", "src/app.go": "package src\n", "src/lib/x.go": "package lib\n",
		".env": "KEY=1\n", "server.key": "key\n", "notes.log": "ignored\n", ".gitignore": "*.log\n",
	} {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	c := &completer{ws: ws, commands: []string{"help", "load", "model", "save", "sessions"}}
	tests := []struct {
		line  string
		pos   int // -1: the end
		start int
		want  []string
	}{
		{"/s", -1, 0, []string{"/save", "/sessions"}},
		{"/", -1, 0, []string{"/help", "/load", "/model", "/save", "/sessions"}},
		{"  /mo", -1, 2, []string{"/model"}},
		{"/model", -1, 0, []string{"/model"}},
		{"/x", -1, 0, nil},
		{"say /s", -1, 4, nil}, // a command only starts the line
		{"/load ", -1, 6, nil},
		{"fix @m", -1, 4, []string{"@main.go", "@make.md"}},
		{"fix @ma in there", 7, 4, []string{"@main.go", "@make.md"}},
		{"@", -1, 0, []string{"@main.go", "@make.md", "@src/", "@workspace"}},
		{"@w", -1, 0, []string{"@workspace"}},
		{"@src/", -1, 0, []string{"@src/app.go", "@src/lib/"}},
		{"@src/l", -1, 0, []string{"@src/lib/"}},
		{"@.e", -1, 0, nil},       // hidden
		{"@ser", -1, 0, nil},      // a secret
		{"@notes", -1, 0, nil},    // ignored by .gitignore
		{"@../", -1, 0, nil},      // outside
		{"@/etc/pas", -1, 0, nil}, // outside
		{"@nothing/", -1, 0, nil}, // no such folder
		{"mail a@m", -1, 5, nil},  // not a tag
		{"été @m", -1, 6, []string{"@main.go", "@make.md"}},
		{"x\u3000@src/a", -1, 4, []string{"@src/app.go"}}, // after a wide space
	}
	for _, tt := range tests {
		pos := tt.pos
		if pos < 0 {
			pos = len(tt.line)
		}
		start, got := c.Complete(context.Background(), tt.line, pos)
		if start != tt.start || !slices.Equal(got, tt.want) {
			t.Errorf("complete(%q, %d) = %d, %q; want %d, %q", tt.line, pos, start, got, tt.start, tt.want)
		}
	}
}

// TestLineHistory: inputs are kept trimmed, blanks not at all, the newest
// historyLimit of them, in a file that a new history reads back.
func TestLineHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "history")
	h := loadHistory(path)
	for i := range historyLimit + 2 {
		if _, err := h.Write(fmt.Sprintf("  input %d \n", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := h.Write("   "); n != historyLimit {
		t.Errorf("after a blank input, %d inputs", n)
	}
	again := loadHistory(path)
	if again.Len() != historyLimit {
		t.Fatalf("read back %d inputs, want %d", again.Len(), historyLimit)
	}
	first, _ := again.GetLine(0)
	last, _ := again.GetLine(historyLimit - 1)
	if first != "input 2" || last != fmt.Sprintf("input %d", historyLimit+1) {
		t.Errorf("oldest %q, newest %q", first, last)
	}
	if _, err := again.GetLine(historyLimit); err == nil {
		t.Error("a line past the end")
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("history file: %v, %v", fi, err)
	}
}

// TestHistoriesAtOnce: two REPLs writing one history file keep each
// other's inputs, and a trim keeps the newest lines of both.
func TestHistoriesAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	a, b := loadHistory(path), loadHistory(path)
	for i := range 3 {
		a.Write(fmt.Sprintf("a%d", i))
		b.Write(fmt.Sprintf("b%d", i))
	}
	got := loadHistory(path).Dump().([]string)
	if want := []string{"a0", "b0", "a1", "b1", "a2", "b2"}; !slices.Equal(got, want) {
		t.Fatalf("read back %q, want %q", got, want)
	}

	// b has written 3 lines; its seventh passes twice its limit, and it
	// trims the file, others' lines counted, to the newest 3.
	a.limit, b.limit = 3, 3
	for i := 3; i < 7; i++ {
		b.Write(fmt.Sprintf("b%d", i))
	}
	if got, want := historyFile(t, path), []string{"b4", "b5", "b6"}; !slices.Equal(got, want) {
		t.Errorf("trimmed to %q, want %q", got, want)
	}
	a.Write("a3")
	if got, want := historyFile(t, path), []string{"b4", "b5", "b6", "a3"}; !slices.Equal(got, want) {
		t.Errorf("after the trim, %q, want %q", got, want)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("the trim left files behind: %v", entries)
	}
}

func historyFile(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}
