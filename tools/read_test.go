package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"
)

// numbered returns lines "line 1\n" to "line n\n".
func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	wide := strings.Repeat("x", 99) + "\n" // 100 bytes a line
	long := strings.Repeat("é", 40000)     // 80,000 bytes on one line
	ws := newWorkspace(t, map[string]string{
		"small.txt":  "hello\nworld\n",
		"noeol.txt":  "a\nb",
		"ten.txt":    numbered(1, 10),
		"big.txt":    numbered(1, 5234),
		"wide.txt":   strings.Repeat(wide, 1000),
		"long.txt":   long + "\nnext\n",
		"empty.txt":  "",
		"sub/a.txt":  "a\n",
		"nul.bin":    "text\x00more",
		"latin1.txt": "caf\xe9\n",
	})
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		wantErr error // errors.Is target; nil means success
	}{
		{"whole", map[string]any{"path": "small.txt"}, "hello\nworld\n", nil},
		{"no final newline", map[string]any{"path": "noeol.txt"}, "a\nb", nil},
		{"limit without final newline", map[string]any{"path": "noeol.txt", "limit": int64(1)},
			"a\n[showing lines 1-1 of 2; call read_file with offset=2 to read on]", nil},
		{"offset and limit", map[string]any{"path": "ten.txt", "offset": int64(3), "limit": int64(2)},
			"line 3\nline 4\n[showing lines 3-4 of 10; call read_file with offset=5 to read on]", nil},
		{"offset to the end", map[string]any{"path": "ten.txt", "offset": int64(9)}, "line 9\nline 10\n", nil},
		{"offset zero is the start", map[string]any{"path": "ten.txt", "offset": int64(0), "limit": int64(1)},
			"line 1\n[showing lines 1-1 of 10; call read_file with offset=2 to read on]", nil},
		{"line cap", map[string]any{"path": "big.txt"},
			numbered(1, 2000) + "[showing lines 1-2000 of 5234; call read_file with offset=2001 to read on]", nil},
		{"limit above the cap", map[string]any{"path": "big.txt", "offset": int64(2001), "limit": int64(5000)},
			numbered(2001, 4000) + "[showing lines 2001-4000 of 5234; call read_file with offset=4001 to read on]", nil},
		{"last part", map[string]any{"path": "big.txt", "offset": int64(4001)}, numbered(4001, 5234), nil},
		{"byte cap", map[string]any{"path": "wide.txt"},
			strings.Repeat(wide, 655) + "[showing lines 1-655 of 1000; call read_file with offset=656 to read on]", nil},
		{"empty", map[string]any{"path": "empty.txt"}, "[the file is empty]", nil},
		{"offset past the end", map[string]any{"path": "ten.txt", "offset": int64(11)}, "", errAny},
		{"negative offset", map[string]any{"path": "ten.txt", "offset": int64(-1)}, "", errAny},
		{"negative limit", map[string]any{"path": "ten.txt", "limit": int64(-1)}, "", errAny},
		{"missing", map[string]any{"path": "nope.txt"}, "", fs.ErrNotExist},
		{"directory", map[string]any{"path": "sub"}, "", errNotRegular},
		{"nul byte", map[string]any{"path": "nul.bin"}, "", errBinary},
		{"not utf-8", map[string]any{"path": "latin1.txt"}, "", errBinary},
		{"outside", map[string]any{"path": "../x.txt"}, "", ErrOutsideWorkspace},
	}
	read := ReadFile(ws)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := run(t, read, tt.args)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("body =\n%.300q\nwant\n%.300q", got, tt.want)
			}
		})
	}

	t.Run("long line", func(t *testing.T) {
		got, err := run(t, read, map[string]any{"path": "long.txt"})
		if err != nil {
			t.Fatal(err)
		}
		text, marker, _ := strings.Cut(got, "\n[")
		if len(text) > maxReadBytes || !utf8.ValidString(text) || !strings.HasPrefix(long, text) {
			t.Errorf("cut line: %d bytes, valid UTF-8 %v, a prefix of the line %v", len(text), utf8.ValidString(text), strings.HasPrefix(long, text))
		}
		if want := "showing lines 1-1 of 2; line 1 is longer than 64 KiB and was cut; call read_file with offset=2 to read on]"; marker != want {
			t.Errorf("marker = %q, want %q", marker, want)
		}
	})
}

// errAny stands for any error in test tables.
var errAny = errors.New("any error")

func checkErr(t *testing.T, err, want error) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want == nil:
	case err == nil:
		t.Fatalf("no error, want one wrapping %v", want)
	case want != errAny && !errors.Is(err, want):
		t.Fatalf("error %q does not wrap %v", err, want)
	}
}
