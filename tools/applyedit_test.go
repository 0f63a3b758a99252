package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestApplyEdit(t *testing.T) {
	tests := []struct {
		name, text, old, repl string
		want                  string
		err                   error
	}{
		{"replace", "a\nb\n", "b", "B", "a\nB\n", nil},
		{"a block at an unterminated last line", "a\nb", "b\n", "B\n", "a\nB", nil},
		{"no match", "a\n", "x", "y", "", ErrNoMatch},
		{"two matches", "x\nx\n", "x", "y", "", ErrManyMatches},
		{"overlapping matches", "aaa\n", "aa", "b", "", ErrManyMatches},
		{"an empty old text matches nowhere", "a\n", "", "b", "", ErrNoMatch},
		{"an empty text", "", "a", "b", "", ErrNoMatch},
		{"a block of a fragment of a line", "x := wrold()\n", "wrold\n", "world\n", "x := world()\n", nil},
		{"a fragment block keeps a replacement without a line break", "x := wrold()\n", "wrold\n", "world", "x := world()\n", nil},
		{"a block that matches as a line is taken whole", "wrold\nx := wrold()\n", "wrold\n", "world\n", "world\nx := wrold()\n", nil},
		{"a fragment block found twice", "wrold(wrold)\n", "wrold\n", "world\n", "", ErrManyMatches},
		{"a line break alone is not a fragment", "ab\n", "x\n\n", "y", "", ErrNoMatch},
	}
	for _, tt := range tests {
		got, err := ApplyEdit(tt.text, tt.old, tt.repl)
		if got != tt.want || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
			t.Errorf("%s: ApplyEdit(%q, %q, %q) = %q, %v; want %q, %v", tt.name, tt.text, tt.old, tt.repl, got, err, tt.want, tt.err)
		}
	}
}

// ApplyEdit is edit_file: on any file, it gives what edit_file writes, and
// fails where edit_file writes nothing.
func FuzzApplyEdit(f *testing.F) {
	f.Add("a\nb\n", "b", "B")
	f.Add("a\nb", "b\n", "B\n")
	f.Add("aaa\n", "aa", "b")
	f.Add("x = 1\ny\nx = 1", "x = 1", "z")
	f.Add("\r\nline\r\n", "line\r\n", "")
	f.Add("", "a", "b")
	f.Fuzz(func(t *testing.T, text, old, repl string) {
		if old == "" {
			return // edit_file creates a file with it
		}
		ws := newWorkspace(t, map[string]string{"f.txt": text})
		path := filepath.Join(ws.Root(), "f.txt")
		_, editErr := EditFile(ws).run(context.Background(), map[string]any{"path": "f.txt", "old_text": old, "new_text": repl})
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, applyErr := ApplyEdit(text, old, repl)
		switch {
		case (editErr == nil) != (applyErr == nil):
			t.Fatalf("edit_file: %v; ApplyEdit: %v", editErr, applyErr)
		case applyErr == nil && got != string(data):
			t.Fatalf("edit_file wrote %q; ApplyEdit gives %q", data, got)
		}
	})
}
