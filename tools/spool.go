package tools

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// spool takes the output of one call as it comes: in memory while it is
// short enough to be sent whole, then in the file of a reference, up to a
// bound past which its middle is dropped and only its last tailBytes
// kept. Its text is then the output's head and tail around a marker that
// names the reference and says what was dropped. A spool is the
// io.Writer a command's output streams into; Outputs gives each call one
// through the context.
type spool struct {
	o    *Outputs
	base string // the reference it asks for, such as out_3

	mu    sync.Mutex
	buf   []byte // the output while it is short
	nl    int    // newlines in buf
	total int64  // bytes given
	last  byte   // the last byte given

	// Once spilled:
	spilled bool
	ref     string   // the reference its file is kept under
	f       *os.File // nil when no file could be made
	head    []byte   // without a file, the first bytes
	size    int64    // bytes in the file
	lines   int      // newlines in the file
	end     byte     // the last byte in the file
	tail    []byte   // bytes past the file's room: the last of them, up to 2*tailBytes
	err     error    // why bytes could not be kept

	done bool   // the text was taken
	kept bool   // the text names ref, whose file is to be kept
	text string // once done
}

type spoolKey struct{}

// withSpool returns ctx carrying sp for the tool the call runs.
func withSpool(ctx context.Context, sp *spool) context.Context {
	return context.WithValue(ctx, spoolKey{}, sp)
}

// spoolFrom returns the spool of the call ctx runs, or nil when the tool
// runs without Outputs around it.
func spoolFrom(ctx context.Context) *spool {
	sp, _ := ctx.Value(spoolKey{}).(*spool)
	return sp
}

// Write takes more of the output. It never fails: what cannot be kept is
// counted, and the text says so.
func (s *spool) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || len(p) == 0 {
		return len(p), nil
	}
	s.total += int64(len(p))
	s.last = p[len(p)-1]
	if !s.spilled {
		nl := bytes.Count(p, []byte{'\n'})
		if len(s.buf)+len(p) <= maxReadBytes && s.nl+nl <= maxReadLines {
			s.buf = append(s.buf, p...)
			s.nl += nl
			return len(p), nil
		}
		s.spill()
	}
	s.keep(p)
	return len(p), nil
}

// used reports whether anything was written.
func (s *spool) used() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total > 0
}

// endsLine reports whether the output is empty or ends with a newline.
func (s *spool) endsLine() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total == 0 || s.last == '\n'
}

// spill moves the output from memory to the file of a new reference.
func (s *spool) spill() {
	s.spilled = true
	buf := s.buf
	s.buf = nil
	s.ref, s.f, s.err = s.o.create(s.base)
	if s.err != nil {
		s.head, buf = buf[:min(len(buf), keepBytes)], buf[min(len(buf), keepBytes):]
	}
	s.keep(buf)
}

// keep writes p to the file while it has room, and keeps what is past
// the room as the tail.
func (s *spool) keep(p []byte) {
	if room := s.o.maxOutput - tailBytes - s.size; s.err == nil && room > 0 && len(s.tail) == 0 {
		k := int(min(room, int64(len(p))))
		s.put(p[:k])
		p = p[k:]
	}
	if len(p) == 0 {
		return
	}
	s.tail = append(s.tail, p...)
	if len(s.tail) > 2*tailBytes {
		s.tail = append(s.tail[:0], s.tail[len(s.tail)-tailBytes:]...)
	}
}

// put appends p to the file.
func (s *spool) put(p []byte) {
	if s.err != nil || len(p) == 0 {
		return
	}
	n, err := s.f.Write(p)
	if n > 0 {
		s.size += int64(n)
		s.lines += bytes.Count(p[:n], []byte{'\n'})
		s.end = p[n-1]
	}
	if err != nil {
		s.err = err
	}
}

// finish ends the writing and returns the text of the output for the
// model: the whole, when it never spilled; else its head and tail around
// a marker that says how to read the rest with read_output and how much
// was dropped, if anything was.
func (s *spool) finish() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return s.text
	}
	s.done = true
	if !s.spilled {
		s.text = strings.ToValidUTF8(string(s.buf), "\uFFFD")
		s.buf = nil
		return s.text
	}
	tail := s.tail
	if len(tail) > tailBytes {
		tail = tail[len(tail)-tailBytes:]
	}
	if s.f == nil {
		// No file: what is in memory is all there is.
		text := append(append(s.head[:0:0], s.head...), tail...)
		h, t, _, between := ends(bytes.NewReader(text), int64(len(text)), bytes.Count(text, []byte{'\n'})+unended(text))
		lost := s.total - int64(len(h)+len(t)) - between
		s.text = joinEnds(h, t, fmt.Sprintf("[... %d bytes left out here: the output could not be kept for %s (%v)]\n", between+lost, outputName, s.err))
		return s.text
	}
	defer s.f.Close()
	dropped := s.total - s.size - int64(len(tail))
	why := fmt.Sprintf("an output keeps at most %d bytes, its start and its end", s.o.maxOutput)
	if s.err != nil {
		why = fmt.Sprintf("they could not be kept (%v)", s.err)
	}
	kept := s.size // of the output, in the file
	if dropped > 0 {
		s.err = nil // the tail may still fit
		if s.end != '\n' {
			s.put([]byte{'\n'})
		}
		s.put(fmt.Appendf(nil, "[... %d bytes of the output dropped here: %s ...]\n", dropped, why))
	}
	before := s.size
	s.put(tail)
	kept += s.size - before
	if s.err != nil {
		why = fmt.Sprintf("they could not be kept (%v)", s.err)
	}
	lines := s.lines + unendedByte(s.size, s.end)
	h, t, first, between := ends(s.f, s.size, lines)
	where := fmt.Sprintf("the whole output is %s", s.ref)
	if lost := s.total - kept; lost > 0 {
		where = fmt.Sprintf("%s holds the output but for %d bytes dropped from its middle, since %s", s.ref, lost, why)
	}
	s.text = joinEnds(h, t, fmt.Sprintf("[... %d lines (%d bytes) left out here; %s: call %s with ref=%q and offset=%d to read from here]\n",
		lines-first-bytes.Count(t, []byte{'\n'})-unended(t), between, where, outputName, s.ref, first+1))
	s.kept = true
	return s.text
}

// unendedByte is 1 when a text of size bytes whose last is end does not
// end with a newline, for the line it ends with.
func unendedByte(size int64, end byte) int {
	if size > 0 && end != '\n' {
		return 1
	}
	return 0
}

// unended is 1 when text does not end with a newline, for the line it
// ends with.
func unended(text []byte) int {
	if len(text) > 0 && text[len(text)-1] != '\n' {
		return 1
	}
	return 0
}

// joinEnds returns head, then marker on a line of its own, then tail, as
// valid UTF-8.
func joinEnds(head, tail []byte, marker string) string {
	var b strings.Builder
	b.Grow(len(head) + len(marker) + len(tail) + 1)
	b.WriteString(strings.ToValidUTF8(string(head), "\uFFFD"))
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(marker)
	b.WriteString(strings.ToValidUTF8(string(tail), "\uFFFD"))
	return b.String()
}

// ends returns the head and the tail that a long text of size bytes and
// lines lines in r is shown by: whole lines, at most keepLines and
// keepBytes of each, the tail after the head; with the number of lines in
// the head and of bytes between the two.
func ends(r io.ReaderAt, size int64, lines int) (head, tail []byte, headLines int, between int64) {
	buf := make([]byte, min(size, keepBytes))
	n, _ := r.ReadAt(buf, 0)
	buf = buf[:n]
	used := 0
	for _, line := range bytes.SplitAfter(buf, []byte{'\n'}) {
		whole := len(line) > 0 && (line[len(line)-1] == '\n' || int64(used+len(line)) == size)
		if !whole || headLines == keepLines || headLines == lines || used+len(line) > keepBytes {
			break
		}
		headLines++
		used += len(line)
	}
	head = buf[:used]

	// The tail is read with the byte before it, to tell whether it starts
	// on a line.
	from := max(int64(used), size-keepBytes)
	at := max(from-1, int64(used))
	buf = make([]byte, size-at)
	n, _ = r.ReadAt(buf, at)
	buf = buf[:n]
	if from > at {
		if buf[0] != '\n' {
			// The first line is cut: skip it.
			i := bytes.IndexByte(buf[1:], '\n')
			if i < 0 {
				return head, nil, headLines, size - int64(used)
			}
			buf = buf[1+i+1:]
		} else {
			buf = buf[1:]
		}
	}
	start := len(buf)
	count := 0
	for start > 0 && count < keepLines {
		i := bytes.LastIndexByte(buf[:start-1], '\n') + 1
		if len(buf)-i > keepBytes {
			break
		}
		start = i
		count++
	}
	tail = buf[start:]
	return head, tail, headLines, size - int64(used) - int64(len(tail))
}
