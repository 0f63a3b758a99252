package protocol

import (
	"errors"
	"io"
	"slices"
	"strings"
	"unicode"
)

// Stream reads a reply as it arrives, to show its text while it streams.
// At every moment it holds the text ParseLines would give for the reply's
// complete lines so far, less a code fence opened on the last of them
// (it may turn out to hold only calls, and then it is no text at all).
// It shows nothing from a line that may start a call of another format
// on: the whole reply, once read, says what of it is text.
//
// Parsing the reply again at every line would cost time in the square of
// its length. A Stream reads each line once, the lines of a call that is
// not finished yet again only when one of them could finish it, and all of
// them again once at most, when a </think> with no <think> before it turns
// the start of the reply into thinking. Its zero value is ready to use.
type Stream struct {
	reply   strings.Builder // the reply so far
	read0   int             // where the line still arriving begins in reply
	scanned int             // reply[read0:scanned] holds no newline
	lines   []string        // the complete lines, the start blanked if it was thinking
	settled bool            // whether the first think tag has come

	next     int  // the first line not yet read
	thinking bool // whether lines[next] begins inside thinking
	forged   bool // a result line was read: no more lines are
	call     pendingCall

	text  strings.Builder // text lines kept so far, joined by newlines
	count int             // text lines in text
	fence []string        // a fence and the blank lines after it, not yet kept or dropped

	start     int  // where text begins once spaces are trimmed
	held      int  // where it ends once trimmed, less a fence on its last line
	started   bool // whether text holds anything but spaces
	lastNonNL int  // text[:lastNonNL] is text without trailing newlines

	shown, shownEnd int  // the length and end of the text Text returned last
	reset           bool // the start turned out to be thinking since then
}

// pendingCall is a call whose end has not arrived yet.
type pendingCall struct {
	open  bool
	json  bool     // its JSON is not closed: any line may change it
	words []string // else the words of its blocks, one of which is open
	seen  int      // lines looked at for its end
}

// Add takes the next piece of the reply.
func (s *Stream) Add(piece string) {
	// Lines are views of the reply, which is grown by doubling, as are
	// the lines and the text: append grows long slices by a quarter,
	// which copies a long reply five times over.
	s.reply.Grow(len(piece))
	s.reply.WriteString(piece)
	reply := s.reply.String()
	for {
		// A long line that comes in many pieces is searched once, not
		// from its start at each piece.
		from := max(s.read0, s.scanned)
		i := strings.IndexByte(reply[from:], '\n')
		if i < 0 {
			s.scanned = len(reply)
			break
		}
		i += from - s.read0
		if len(s.lines) == cap(s.lines) {
			s.lines = slices.Grow(s.lines, len(s.lines))
		}
		s.lines = append(s.lines, reply[s.read0:s.read0+i])
		s.read0 += i + 1
		s.settle()
	}
	s.read()
}

// settle checks the newest line for a </think> before any <think>: then
// the reply thought from its start, and Parse blanks everything up to the
// close. It happens once at most, and the lines are read again.
func (s *Stream) settle() {
	if s.settled {
		return
	}
	const open, close = "<think>", "</think>"
	n := len(s.lines) - 1
	line := s.lines[n]
	if strings.IndexByte(line, '<') < 0 {
		return
	}
	i, j := strings.Index(line, open), strings.Index(line, close)
	switch {
	case j >= 0 && (i < 0 || j < i):
		for k := range n {
			s.lines[k] = ""
		}
		s.lines[n] = line[j+len(close):]
		// Read again from the first line; the reply stays where it is.
		*s = Stream{reply: s.reply, read0: s.read0, lines: s.lines, shown: s.shown, reset: true}
	case i < 0:
		return
	}
	s.settled = true
}

// read reads the lines that can be read, as Parse does.
func (s *Stream) read() {
	if s.call.open && !s.callMayEnd() {
		return
	}
	for s.next < len(s.lines) && !s.forged {
		line, thinking := unthink(s.lines[s.next], s.thinking)
		t := unquoteInline(strings.TrimSpace(strings.TrimSuffix(line, "\r")))
		switch {
		case strings.HasPrefix(t, resultPrefix), otherShape(t):
			s.forged = true
		case isCall(t):
			end, open := s.readCall(s.next, t)
			if open {
				return
			}
			s.next, s.thinking = end, thinking
		default:
			s.keep(strings.TrimRight(line, " \t\r"))
			s.next, s.thinking = s.next+1, thinking
		}
	}
}

// readCall reads the call that starts on line start, whose trimmed text is
// first, and returns the index of the line after it, or whether lines yet
// to come may change where it ends.
func (s *Stream) readCall(start int, first string) (end int, open bool) {
	call, end := readCall(s.lines, start, first)
	s.call = pendingCall{}
	if end < len(s.lines) || call.Err == nil {
		return end, false
	}
	obj, err := decodeCall(strings.TrimPrefix(call.Text, callPrefix+" "))
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) && end-start < maxCallLines:
		s.call = pendingCall{open: true, json: true}
	case err != nil:
		return end, false
	default:
		s.call = pendingCall{open: true}
		for _, key := range obj.order {
			if word, ok := blockWord(obj.args[key]); ok {
				s.call.words = append(s.call.words, word)
			}
		}
	}
	s.call.seen = len(s.lines)
	return end, true
}

// callMayEnd reports whether a line that arrived since the open call was
// read could end it.
func (s *Stream) callMayEnd() bool {
	c := &s.call
	if c.seen == len(s.lines) {
		return false
	}
	if c.json {
		return true
	}
	for ; c.seen < len(s.lines); c.seen++ {
		if slices.Contains(c.words, strings.TrimRight(s.lines[c.seen], " \t\r")) {
			return true
		}
	}
	return false
}

// keep takes a text line, holding back a fence until it is known whether
// it held only calls, as dropEmptyFences decides.
func (s *Stream) keep(line string) {
	if s.fence != nil {
		switch strings.TrimSpace(line) {
		case "":
			s.fence = append(s.fence, line)
			return
		case "```":
			s.fence = nil
			return
		}
		for _, l := range s.fence {
			s.put(l)
		}
		s.fence = nil
	}
	if fence(line) {
		s.fence = []string{line}
		return
	}
	s.put(line)
}

func (s *Stream) put(line string) {
	s.text.Grow(len(line) + 1) // to twice its size, when it must grow
	if s.count > 0 {
		s.text.WriteByte('\n')
	}
	s.count++
	before, at := s.lastNonNL, s.text.Len()
	s.text.WriteString(line)
	if line != "" {
		s.lastNonNL = s.text.Len()
	}
	trimmed := strings.TrimRightFunc(line, unicode.IsSpace)
	if trimmed == "" {
		return
	}
	if !s.started {
		s.start = at + len(line) - len(strings.TrimLeftFunc(line, unicode.IsSpace))
		s.started = true
		before = s.start
	}
	// A fence kept because another fence followed it, which was then
	// dropped, can be the last line: it is held back like an open one.
	s.held = at + len(trimmed)
	if fence(line) {
		s.held = before
	}
}

// Text returns the text so far, and whether it extends the text Text
// returned last. It nearly always does. It does not when a </think> with no
// <think> before it has turned the start of the reply into thinking, or
// when a fence dropped for holding only calls leaves last what its being
// last kept from being trimmed or held back: unusual spaces, such as a form
// feed, or another fence.
func (s *Stream) Text() (text string, extends bool) {
	end := s.held
	if s.fence != nil {
		end = s.lastNonNL
	}
	if !s.started {
		end = s.start
	}
	text = s.text.String()[s.start:end]
	extends = s.shown == 0 || !s.reset && end >= s.shownEnd
	s.shown, s.shownEnd, s.reset = len(text), end, false
	return text, extends
}
