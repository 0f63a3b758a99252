package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
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
			"a\n[showing lines 1-1 of 2; 1 line left: call read_file with offset=2 to read on]", nil},
		{"offset and limit", map[string]any{"path": "ten.txt", "offset": int64(3), "limit": int64(2)},
			"line 3\nline 4\n[showing lines 3-4 of 10; 6 lines left: call read_file with offset=5 to read on]", nil},
		{"offset to the end", map[string]any{"path": "ten.txt", "offset": int64(9)}, "line 9\nline 10\n", nil},
		{"offset zero is the start", map[string]any{"path": "ten.txt", "offset": int64(0), "limit": int64(1)},
			"line 1\n[showing lines 1-1 of 10; 9 lines left: call read_file with offset=2 to read on]", nil},
		{"line cap", map[string]any{"path": "big.txt"},
			numbered(1, 2000) + "[showing lines 1-2000 of 5234; 3234 lines left: call read_file with offset=2001 to read on]", nil},
		{"limit above the cap", map[string]any{"path": "big.txt", "offset": int64(2001), "limit": int64(5000)},
			numbered(2001, 4000) + "[showing lines 2001-4000 of 5234; 1234 lines left: call read_file with offset=4001 to read on]", nil},
		{"last part", map[string]any{"path": "big.txt", "offset": int64(4001)}, numbered(4001, 5234), nil},
		{"byte cap", map[string]any{"path": "wide.txt"},
			strings.Repeat(wide, 655) + "[showing lines 1-655 of 1000; 345 lines left: call read_file with offset=656 to read on]", nil},
		{"empty", map[string]any{"path": "empty.txt"}, "[the file is empty]", nil},
		{"offset past the end", map[string]any{"path": "ten.txt", "offset": int64(11)}, "", errAny},
		{"negative offset", map[string]any{"path": "ten.txt", "offset": int64(-1)}, "", errAny},
		{"negative limit", map[string]any{"path": "ten.txt", "limit": int64(-1)}, "", errAny},
		{"missing", map[string]any{"path": "nope.txt"}, "", fs.ErrNotExist},
		{"directory", map[string]any{"path": "sub"}, "", ErrNotRegular},
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
		if want := "showing lines 1-1 of 2; line 1 is longer than 64 KiB and was cut; 1 line left: call read_file with offset=2 to read on]"; marker != want {
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

// TestReadFilePages reads long files part by part with one tool, which
// counts each file's lines once and then starts near the part asked for,
// and checks every part against a tool that has never seen the file.
func TestReadFilePages(t *testing.T) {
	var mixed strings.Builder
	for i := range 9000 {
		// Lines of 1 to 120 bytes, every 997th of 70,000.
		n := 1 + i%120
		if i%997 == 0 {
			n = 70000
		}
		mixed.WriteString(strings.Repeat("ab", n/2) + "\n")
	}
	files := map[string]string{
		"numbered.txt": numbered(1, 30000),
		"mixed.txt":    mixed.String(),
		"noeol.txt":    numbered(1, 20000) + "last",
		"one.txt":      strings.Repeat("x", 300000),
	}
	ws := newWorkspace(t, files)
	known := ReadFile(ws)
	for name := range files {
		for _, limit := range []int64{0, 1, 7, 1500} {
			for offset := int64(1); ; offset += 1 + offset/3 {
				args := map[string]any{"path": name, "offset": offset, "limit": limit}
				got, gotErr := run(t, known, args)
				want, wantErr := run(t, ReadFile(ws), args)
				if got != want || (gotErr == nil) != (wantErr == nil) {
					t.Fatalf("%s offset %d limit %d:\ngot  %.200q, %v\nwant %.200q, %v", name, offset, limit, got, gotErr, want, wantErr)
				}
				if wantErr != nil {
					break
				}
			}
		}
	}
}

// TestReadFileNewVersion changes a long file after a read: a part read
// after must come from the new text, even when the new version has the
// old one's size and modification time.
func TestReadFileNewVersion(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"f.txt": numbered(1, 20000)})
	path := filepath.Join(ws.Root(), "f.txt")
	read := ReadFile(ws)
	if _, err := run(t, read, map[string]any{"path": "f.txt"}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	old := readString(t, path)
	short := strings.ReplaceAll(old, "line ", "l ")
	for _, text := range []string{
		numbered(1, 25000),                                        // grown
		strings.ReplaceAll(old, "line ", "LINE "),                 // same size: the marks still fit
		short + strings.Repeat("z", len(old)-len(short)-1) + "\n", // same size, the lines moved
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if len(text) == len(old) {
			if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}
		for _, offset := range []int64{3000, 17001} {
			args := map[string]any{"path": "f.txt", "offset": offset, "limit": int64(3)}
			got, err := run(t, read, args)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := run(t, ReadFile(ws), args)
			if got != want {
				t.Errorf("after a change, offset %d:\ngot  %q\nwant %q", offset, got, want)
			}
		}
	}
}

// TestReadWindowStops: once a file's lines are counted, a read stops at
// the end of its part; the reader here fails past it.
func TestReadWindowStops(t *testing.T) {
	text := numbered(1, 100)
	w, err := readWindow(context.Background(), bufio.NewReader(strings.NewReader(text)), mark{line: 1}, 1, 1, maxReadBytes, true)
	if err != nil || w.total != 100 || w.index.total != 100 {
		t.Fatalf("counted %d lines (%v), want 100", w.total, err)
	}
	// From line 11 on, then nothing readable after line 13.
	start := len(numbered(1, 10))
	r := io.MultiReader(strings.NewReader(text[start:start+len(numbered(11, 13))]), iotest.ErrReader(errors.New("read past the part")))
	w, err = readWindow(context.Background(), bufio.NewReaderSize(r, 16), mark{line: 11, off: int64(start)}, 12, 2, maxReadBytes, false)
	if err != nil {
		t.Fatal(err)
	}
	if string(w.text) != "line 12\nline 13\n" || w.last != 13 {
		t.Errorf("window %q, last %d", w.text, w.last)
	}
}

func TestLineIndexMarks(t *testing.T) {
	var text strings.Builder
	for i := range 20000 {
		text.WriteString(strings.Repeat("x", i%300) + "\n")
	}
	w, err := readWindow(context.Background(), bufio.NewReader(strings.NewReader(text.String())), mark{line: 1}, 1, 1, maxReadBytes, true)
	if err != nil {
		t.Fatal(err)
	}
	index := w.index
	lines := strings.SplitAfter(text.String(), "\n")
	off := 0
	starts := make([]int, len(lines))
	for i, l := range lines {
		starts[i] = off
		off += len(l)
	}
	prev := mark{line: 1}
	for i, m := range index.marks {
		if int64(starts[m.line-1]) != m.off {
			t.Fatalf("mark %d: line %d at %d, but it begins at %d", i, m.line, m.off, starts[m.line-1])
		}
		// A mark is at the first line start past either bound.
		if m.line-prev.line > markLines || m.off-prev.off > markBytes+int64(len(lines[m.line-2])) {
			t.Fatalf("marks %+v and %+v too far apart", prev, m)
		}
		prev = m
	}
	for _, line := range []int{1, 2, 1024, 1025, 5000, 20000} {
		m := index.near(line)
		if m.line > line || line-m.line >= markLines {
			t.Errorf("near(%d) = %+v", line, m)
		}
	}
}

// sniff looks at the first 8 KiB of a file for NUL bytes, or the whole of
// a shorter one, whatever size it was told the file had when it was
// opened (a file may grow in between), and its reader reads the file from
// the start.
func TestSniff(t *testing.T) {
	text := strings.Repeat("x", 3000) + "\x00" + strings.Repeat("y", 999)
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{int64(len(text)), 0, 100, 2999, 3001, 100000} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		br, head, whole, err := sniff(f, size)
		if err != nil {
			t.Fatalf("told %d bytes: %v", size, err)
		}
		if len(head) != len(text) || !whole || bytes.IndexByte(head, 0) != 3000 {
			t.Errorf("told %d bytes: head of %d bytes (whole %v), NUL at %d; want all %d, NUL at 3000", size, len(head), whole, bytes.IndexByte(head, 0), len(text))
		}
		all, err := io.ReadAll(br)
		if err != nil || string(all) != text {
			t.Errorf("told %d bytes: the reader gave %d bytes, %v; want the whole file", size, len(all), err)
		}
		f.Close()
	}
}

// Of a file longer than it holds, sniff says it has not the whole, and
// holds at least the first 8 KiB.
func TestSniffLong(t *testing.T) {
	text := strings.Repeat("x", 3*maxReadBytes)
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{int64(len(text)), 100, 20000} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		_, head, whole, err := sniff(f, size)
		if err != nil || whole || len(head) < sniffBytes {
			t.Errorf("told %d bytes: head of %d bytes, whole %v, %v; want at least %d, not whole", size, len(head), whole, err, sniffBytes)
		}
		f.Close()
	}
}

// wholeWindow gives what readWindow gives of a whole text from its first
// line, whenever it has no more than limit lines, and declines otherwise.
func TestWholeWindow(t *testing.T) {
	for _, text := range []string{"", "a", "a\n", "a\nb", "a\nb\n", "\n\n\n", "é\nü"} {
		for limit := 1; limit <= 4; limit++ {
			got, ok := wholeWindow([]byte(text), limit)
			want, err := readWindow(context.Background(), bufio.NewReader(strings.NewReader(text)), mark{line: 1}, 1, limit, maxReadBytes, true)
			if err != nil {
				t.Fatal(err)
			}
			fits := want.last == want.total && !want.cut
			if ok != fits {
				t.Errorf("wholeWindow(%q, %d) ok = %v, want %v", text, limit, ok, fits)
				continue
			}
			if ok && (string(got.text) != string(want.text) || got.last != want.last || got.total != want.total || got.cut) {
				t.Errorf("wholeWindow(%q, %d) = %q, last %d of %d; readWindow gives %q, last %d of %d", text, limit, got.text, got.last, got.total, want.text, want.last, want.total)
			}
		}
	}
}
