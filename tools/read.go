package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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
func ReadFile(ws *Workspace) Tool {
	return New(readName,
		"Show the text of a file. Long files are shown in parts of up to 2000 lines or 64 KiB; a line in square brackets at the end says how to read on.",
		false,
		func(ctx context.Context, a readArgs) (string, error) { return readFile(ctx, ws, a) })
}

func readFile(ctx context.Context, ws *Workspace, a readArgs) (string, error) {
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
	if err := ws.checkRead(ctx, path, name); err != nil {
		return "", err
	}
	if _, err := statRegular(path, name, "use list_files to see what exists"); err != nil {
		return "", err
	}
	f, err := openRegular(ws, path, name)
	if err != nil {
		return "", err
	}
	defer f.Close()

	// A buffer the size of the file, up to what one read shows: most files
	// are small, and a 64 KiB buffer for each would be mostly waste.
	size := maxReadBytes
	if fi, err := f.Stat(); err == nil {
		size = int(min(max(fi.Size()+1, sniffBytes), maxReadBytes))
	}
	br := bufio.NewReaderSize(f, size)
	head, err := br.Peek(sniffBytes)
	if err != nil && err != io.EOF {
		return "", fail(err, "cannot read %s: %v", name, reason(err))
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return "", fail(errBinary, "%s is a binary file (it holds NUL bytes); read_file shows text only", name)
	}
	w, err := readWindow(ctx, br, first, limit)
	if err != nil {
		return "", fail(err, "cannot read %s: %v", name, reason(err))
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
		note += fmt.Sprintf("; line %d is longer than 64 KiB and was cut", w.last)
	}
	if w.last < w.total {
		note += fmt.Sprintf("; call read_file with offset=%d to read on", w.last+1)
	}
	text := w.text
	if len(text) > 0 && text[len(text)-1] != '\n' {
		text = append(text, '\n')
	}
	return string(text) + "[" + note + "]", nil
}

// window is the part of a file that one read shows.
type window struct {
	text  []byte
	last  int  // last line shown
	total int  // lines in the file
	cut   bool // line last was too long and only its start is shown
}

// readWindow reads r to its end, keeping at most limit lines from line
// first on, and no more than maxReadBytes of them. Lines are kept whole
// unless the first one alone is too long, in which case it is cut at a
// character boundary.
func readWindow(ctx context.Context, r *bufio.Reader, first, limit int) (window, error) {
	w := window{last: first - 1}
	line, atStart, full := 0, true, false
	lineStart := 0 // where line begins in w.text
	for {
		piece, err := r.ReadSlice('\n')
		if len(piece) > 0 {
			if atStart {
				line++
				lineStart = len(w.text)
				if line%4096 == 0 && ctx.Err() != nil {
					return w, ctx.Err()
				}
			}
			atStart = piece[len(piece)-1] == '\n'
			switch {
			case full || line < first:
			case line >= first+limit:
				full = true
			case len(w.text)+len(piece) <= maxReadBytes:
				w.text = append(w.text, piece...)
				w.last = line
			case line > first:
				w.text = w.text[:lineStart]
				w.last = line - 1
				full = true
			default:
				n := maxReadBytes - len(w.text)
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
			w.total = line
			return w, nil
		default:
			return w, err
		}
	}
}
