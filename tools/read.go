package tools

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sync"
	"unicode/utf8"
)

// Limits of one read_file call.
const (
	maxReadLines = 2000
	maxReadBytes = 64 << 10
	sniffBytes   = 8 << 10 // a NUL byte in these marks a binary file
)

const readName = "read_file"

// errBinary is wrapped by the error for a file that is not UTF-8 text.
var errBinary = errors.New("binary file")

type readArgs struct {
	Path   string `arg:"path" help:"File path"`
	Offset int    `arg:"offset,optional" help:"First line, from 1 (default 1)"`
	Limit  int    `arg:"limit,optional" help:"Most lines (default and maximum 2000)"`
}

// ReadFile returns the read_file tool, which shows the text of a file in ws.
// It remembers where the lines of the last long files it read begin, so
// that reading on in a file costs what the part shown costs, not a read of
// the whole file to count its lines again.
func ReadFile(ws *Workspace) Tool {
	known := &knownFiles{}
	return New(readName,
		"Show the text of a file. Long files are shown in parts of up to 2000 lines or 64 KiB; a line in square brackets at the end says how to read on.",
		false,
		func(ctx context.Context, a readArgs) (string, error) { return readFile(ctx, ws, known, a) }).Inspected(inspectRead(ws, true))
}

func readFile(ctx context.Context, ws *Workspace, known *knownFiles, a readArgs) (string, error) {
	first, limit := a.Offset, a.Limit
	if first < 0 {
		return "", fmt.Errorf("offset %d is not a line number; lines count from 1", first)
	}
	if first == 0 {
		first = 1
	}
	if limit < 0 {
		return "", fmt.Errorf("limit %d is negative; give the most lines to show, or leave it out", limit)
	}
	if limit == 0 || limit > maxReadLines {
		limit = maxReadLines
	}
	path, err := ws.Resolve(a.Path)
	if err != nil {
		return "", err
	}
	name := ws.Rel(path)
	looked, err := ws.checkReadLooked(ctx, path, name)
	if err != nil {
		return "", err
	}
	// The approval step may have read this version of the file whole a
	// moment ago (Workspace.held): its text is taken as it is.
	fi, f := looked, (*os.File)(nil)
	var br *bufio.Reader
	head, whole := ws.held.take(path, looked)
	if !whole {
		missing := func() string { return didYouMean(ctx, ws, path, false) + "use list_files to see what exists" }
		if looked == nil || !looked.Mode().IsRegular() { // else it was one a moment ago
			if _, err := statRegular(path, name, missing); err != nil {
				return "", err
			}
		}
		if f, fi, err = openRegularInfo(ws, path, name); err != nil {
			return "", err
		}
		defer f.Close()
		// A buffer the size of the file and a byte more, so that a small
		// file is read, and its end found, in one read; up to what one read
		// shows: most files are small, and a 64 KiB buffer for each would
		// be mostly waste.
		if br, head, whole, err = sniff(f, fi.Size()); err != nil {
			return "", fail(err, "cannot read %s: %v", name, reason(err))
		}
	}
	if bytes.IndexByte(head[:min(len(head), sniffBytes)], 0) >= 0 {
		return "", fail(errBinary, "%s is a binary file (it holds NUL bytes); read_file shows text only", name)
	}
	// A file longer than one read is read whole once, to count its lines
	// and mark where some begin; later reads of the same version start
	// near their first line and stop at their last.
	var index *lineIndex
	if fi.Size() > maxReadBytes {
		index = known.get(path, fi)
	}
	page := pageBytes(ctx)
	w, ok := window{}, false
	if whole && first == 1 && len(head) <= page {
		// Read already, and shown whole if it has no more than limit lines.
		w, ok = wholeWindow(head, limit)
	}
	if !ok {
		if br == nil {
			br = bufio.NewReader(bytes.NewReader(head))
		}
		if w, err = readFrom(ctx, f, br, index, first, limit, page, fi.Size()); err != nil {
			return "", fail(err, "cannot read %s: %v", name, reason(err))
		}
	}
	if w.counted && fi.Size() > maxReadBytes {
		if now, err := f.Stat(); err == nil && sameVersion(fi, now) {
			index := w.index
			known.put(path, fi, &index)
		}
	}
	if !utf8.Valid(w.text) {
		return "", fail(errBinary, "%s is not UTF-8 text; read_file shows text only", name)
	}
	switch {
	case w.total == 0:
		return "[the file is empty]", nil
	case first > w.total:
		return "", fmt.Errorf("offset %d is past the end of %s, which has %d lines; give an offset from 1 to %d", first, name, w.total, w.total)
	case w.last == w.total && !w.cut:
		return string(w.text), nil
	}
	note := fmt.Sprintf("showing lines %d-%d of %d", first, w.last, w.total)
	if w.cut {
		note += fmt.Sprintf("; line %d is longer than %s and was cut", w.last, kib(page))
	}
	if w.last < w.total {
		note += readOn(readName, w.last, w.total, !w.cut && w.last-first+1 < limit && page < maxReadBytes, page)
	}
	text := w.text
	if len(text) > 0 && text[len(text)-1] != '\n' {
		text = append(text, '\n')
	}
	return string(text) + "[" + note + "]", nil
}

// sniff returns a reader of f, which has not moved from its start, with
// a buffer of size bytes and one more, up to maxReadBytes, and what the
// reader holds of the start of f: as much as the buffer takes, and at
// least its first sniffBytes (to look for NUL bytes in), or all of it when
// it is shorter. whole reports that this is the whole file. size is f's
// size when it was opened; a file that grew since gets a larger buffer.
func sniff(f *os.File, size int64) (br *bufio.Reader, head []byte, whole bool, err error) {
	br = bufio.NewReaderSize(f, int(min(max(size, 0)+1, maxReadBytes)))
	head, err = br.Peek(br.Size())
	if err == nil && br.Size() < sniffBytes {
		// Longer than size: the buffer is full and may hold less than
		// the start to look at.
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, nil, false, err
		}
		br = bufio.NewReaderSize(f, sniffBytes)
		head, err = br.Peek(sniffBytes)
	}
	switch err {
	case nil:
		return br, head, false, nil
	case io.EOF:
		return br, head, true, nil
	}
	return nil, nil, false, err
}

// wholeWindow is the window of text, a whole file, from its first line,
// when it has no more than limit lines: all of it. It is what readWindow
// gives of it then, but takes text as it is rather than copy it line by
// line. It reports false when text has more lines.
func wholeWindow(text []byte, limit int) (window, bool) {
	lines := bytes.Count(text, []byte{'\n'})
	if len(text) > 0 && text[len(text)-1] != '\n' {
		lines++
	}
	if lines > limit {
		return window{}, false
	}
	return window{text: text, last: lines, total: lines}, true
}

// readFrom reads the window of f, whose reader br has not moved from the
// start, from line first on. With index it starts at the last mark at or
// before first and stops at the window's end; without, or when the index
// does not fit the file, it reads the whole file and counts its lines.
//
// size is the file's size when it was opened: the text kept starts in a
// buffer that holds as much of it as the window may, rather than growing
// to it.
func readFrom(ctx context.Context, f *os.File, br *bufio.Reader, index *lineIndex, first, limit, page int, size int64) (window, error) {
	if index == nil {
		w := window{text: make([]byte, 0, min(max(size, 0), int64(page)))}
		return readWindowInto(ctx, br, w, mark{line: 1}, first, limit, page, true)
	}
	if first > index.total {
		return window{total: index.total}, nil
	}
	from := index.near(first)
	if from.off > 0 {
		// A mark that is not just after a newline belongs to another
		// version that looked the same: count again.
		var before [1]byte
		if _, err := f.ReadAt(before[:], from.off-1); err != nil || before[0] != '\n' {
			return readFrom(ctx, f, br, nil, first, limit, page, size)
		}
		if _, err := f.Seek(from.off, io.SeekStart); err != nil {
			return window{}, err
		}
		br.Reset(f)
	}
	w, err := readWindow(ctx, br, from, first, limit, page, false)
	w.total = index.total
	return w, err
}

// window is the part of a file that one read shows.
type window struct {
	text  []byte
	last  int  // last line shown
	total int  // lines in the file
	cut   bool // line last was too long and only its start is shown
	// counted is set when the whole text was read to count its lines, and
	// index then marks where some of them begin.
	counted bool
	index   lineIndex
}

// readWindow reads r, which begins at line from.line of a text, from.off
// bytes in, keeping at most limit lines from line first on, and no more
// than page bytes of them. Lines are kept whole unless the first one alone
// is too long, in which case it is cut at a character boundary.
//
// With count it reads to the end, counting the lines into w.total and
// marking in w.index where some of them begin, r's start being the start
// of the text; without, it stops as soon as the window is full, and w.total
// is left 0.
func readWindow(ctx context.Context, r *bufio.Reader, from mark, first, limit, page int, count bool) (window, error) {
	return readWindowInto(ctx, r, window{}, from, first, limit, page, count)
}

// readWindowInto is readWindow that keeps the text in w.text, empty, whose
// capacity is what it expects to keep.
func readWindowInto(ctx context.Context, r *bufio.Reader, w window, from mark, first, limit, page int, count bool) (window, error) {
	w.last = first - 1
	line, atStart, full := from.line-1, true, false
	off := from.off
	lineStart := 0 // where line begins in w.text
	for !full || count {
		piece, err := r.ReadSlice('\n')
		if len(piece) > 0 {
			if atStart {
				line++
				lineStart = len(w.text)
				if line%4096 == 0 && ctx.Err() != nil {
					return w, ctx.Err()
				}
				if count {
					w.index.mark(line, off)
				}
			}
			off += int64(len(piece))
			atStart = piece[len(piece)-1] == '\n'
			switch {
			case full || line < first:
			case line >= first+limit:
				full = true
			case len(w.text)+len(piece) <= page:
				w.text = append(w.text, piece...)
				w.last = line
				full = atStart && line == first+limit-1
			case line > first:
				w.text = w.text[:lineStart]
				w.last = line - 1
				full = true
			default:
				n := page - len(w.text)
				for n > 0 && !utf8.RuneStart(piece[n]) {
					n--
				}
				w.text = append(w.text, piece[:n]...)
				w.last, w.cut, full = line, true, true
			}
		}
		switch err {
		case nil, bufio.ErrBufferFull:
		case io.EOF:
			w.total, w.index.total, w.counted = line, line, count
			return w, nil
		default:
			return w, err
		}
	}
	return w, nil
}

// Marks are at most this many lines and bytes apart, so that a read that
// starts at the mark before its first line reads little it does not show.
const (
	markLines = 1024
	markBytes = 64 << 10
)

// lineIndex counts the lines of a text and marks where some of them begin,
// besides the first, which begins at the start.
type lineIndex struct {
	total int
	marks []mark // in order
}

// mark is where a line begins.
type mark struct {
	line int   // from 1
	off  int64 // bytes from the start
}

// mark notes that line begins at off, if the last mark is far enough back.
func (x *lineIndex) mark(line int, off int64) {
	last := mark{line: 1}
	if len(x.marks) > 0 {
		last = x.marks[len(x.marks)-1]
	}
	if line-last.line >= markLines || off-last.off >= markBytes {
		x.marks = append(x.marks, mark{line, off})
	}
}

// near returns the last mark at or before line.
func (x *lineIndex) near(line int) mark {
	i, found := slices.BinarySearchFunc(x.marks, line, func(m mark, line int) int { return cmp.Compare(m.line, line) })
	switch {
	case found:
		return x.marks[i]
	case i > 0:
		return x.marks[i-1]
	}
	return mark{line: 1}
}

// knownFiles holds the line indexes of the last long files read whole, each
// for as long as its file stays the same version.
type knownFiles struct {
	mu    sync.Mutex
	files []knownFile // oldest first
}

type knownFile struct {
	path  string
	fi    fs.FileInfo
	index *lineIndex
}

// knownMax bounds how many files' indexes are kept. An index takes about
// a hundredth of a percent of its file: 16 bytes every 64 KiB or 1024 lines.
const knownMax = 8

// get returns the index of the file at path if fi is the version it was
// made from, or nil.
func (k *knownFiles) get(path string, fi fs.FileInfo) *lineIndex {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, f := range k.files {
		if f.path == path && sameVersion(f.fi, fi) {
			return f.index
		}
	}
	return nil
}

func (k *knownFiles) put(path string, fi fs.FileInfo, index *lineIndex) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.files = slices.DeleteFunc(k.files, func(f knownFile) bool { return f.path == path })
	if len(k.files) == knownMax {
		k.files = slices.Delete(k.files, 0, 1)
	}
	k.files = append(k.files, knownFile{path, fi, index})
}

// sameVersion reports whether a and b describe the same file with the
// same size and modification time. Editing tools replace a file with a new
// one, and writing to a file in place changes its modification time.
func sameVersion(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
