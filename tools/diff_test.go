package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"harness/protocol"
)

// afterEdit previews an edit as edit_file makes it: exactly one match, a
// file's missing final newline kept; an edit that would fail has none.
func TestAfterEdit(t *testing.T) {
	file := func(s string) FileText { return FileText{Exists: true, Text: s} }
	tests := []struct {
		name      string
		old, repl string
		before    FileText
		want      string
		ok        bool
	}{
		{"replace", "b", "B", file("a\nb\n"), "a\nB\n", true},
		{"no final newline", "b\n", "B\n", file("a\nb"), "a\nB", true},
		{"no match", "x", "y", file("a\n"), "", false},
		{"overlapping matches", "aa", "b", file("aaa\n"), "", false},
		{"create", "", "new\n", FileText{}, "new\n", true},
		{"create over a file", "", "new\n", file("old\n"), "", false},
		{"edit a missing file", "a", "b", FileText{}, "", false},
	}
	for _, tt := range tests {
		got, ok := afterEdit(tt.before, tt.old, tt.repl)
		if ok != tt.ok || (ok && got.Text != tt.want) {
			t.Errorf("%s: %q, %v; want %q, %v", tt.name, got.Text, ok, tt.want, tt.ok)
		}
	}
	if got := afterWrite(file("old"), "c"); got.Text != "c" || !got.Exists {
		t.Errorf("write: %+v", got)
	}
}

func TestShorten(t *testing.T) {
	diff := "1\n2\n3\n4\n5\n"
	if got := Shorten(diff, 5); got != diff {
		t.Errorf("Shorten kept %q", got)
	}
	if got, want := Shorten(diff, 2), "1\n2\n[... 3 more lines of the diff]\n"; got != want {
		t.Errorf("Shorten = %q, want %q", got, want)
	}
}

// The file tools preview the diff a call would make, say that it only
// edits files, and preview nothing for an edit that would fail.
func TestInspectPreview(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "one\ntwo\n"})
	ts := inspecting(t, ws, policy(t))
	edit := func(old, repl string) protocol.Call {
		return protocol.Call{Name: editName, Args: map[string]any{"path": "a.txt", "old_text": old, "new_text": repl}}
	}
	for _, tt := range []struct {
		call protocol.Call
		want string
	}{
		{edit("two", "2"), "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"},
		{edit("three", "3"), ""},
		{protocol.Call{Name: writeName, Args: map[string]any{"path": "b.txt", "content": "new\n"}}, "--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+new\n"},
		{protocol.Call{Name: readName, Args: map[string]any{"path": "a.txt"}}, ""},
	} {
		in := ts.Inspect(t.Context(), tt.call)
		if in.Preview != tt.want || in.Edits != (tt.call.Name != readName) || in.Subject != tt.call.Args["path"] {
			t.Errorf("%s %v: %+v; want the preview %q", tt.call.Name, tt.call.Args, in, tt.want)
		}
	}
	big := strings.Repeat("line\n", 100)
	if err := os.WriteFile(filepath.Join(ws.Root(), "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	in := ts.Inspect(t.Context(), protocol.Call{Name: writeName, Args: map[string]any{"path": "big.txt", "content": ""}})
	if !strings.HasSuffix(in.Preview, "[... 63 more lines of the diff]\n") {
		t.Errorf("a long diff: %q", in.Preview)
	}
}
