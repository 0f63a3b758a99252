package view

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"harness/protocol"
)

// A reply's text shows as it arrives, before its line ends, only where no
// more of the line can turn it into something that is not text: a call of
// any shape, a forged result, thinking. What the reply reader reads as a
// call or a result is told by a line's start (a marker, a tag, a bracket,
// JSON, a tool's name) and by a few tokens anywhere in it. So a line still
// arriving shows once its start is known to be prose (a letter or a digit
// after a Markdown bullet, a first word that names no marker), and up to
// the first token that may open a call; the rest waits for its newline.
// A line that is not prose when it is whole ends this for the reply: the
// lines that follow show whole, as the reply reader reads them.

// Where the start of a line stands.
const (
	headPending  = iota // more of the line must come to say
	headRefused         // the line shows only once it is whole
	headAccepted        // it is prose from its first word on
)

// maxHead bounds how much of a line's start is read again at each piece
// before the line is left to its newline.
const maxHead = 256

// markerWords are, in lower case, the starts of first words that begin a
// call or a result: TOOL_CALL and TOOL_RESULT in any dress, ReAct's
// Action and Observation.
var markerWords = []string{"tool_", "action", "observation"}

// cutTokens may open a call or thinking anywhere in a line: tags and
// special tokens, Mistral's and Harmony's markers, DeepSeek's separators.
var cutTokens = []string{"<", "[TOOL_CALLS]", "to=functions.", "tool▁", "｜"}

// lineScan reads a line of a reply as it arrives and says how much of it
// can be shown. Each byte is read once, but for the line's start, which is
// read again at each piece until it is known (maxHead bytes at most).
type lineScan struct {
	state  int
	pos    int  // bytes of the line read
	inWord bool // pos is in the first word
	cut    bool // a token that may open a call was found at pos
	show   int  // bytes that can be shown: up to the last one that is not space
}

// scan reads line, the line so far (it only grows), and returns how many
// of its first bytes can be shown. A complete line has no more to come:
// then a token's start at its end is no token.
func (s *lineScan) scan(line string, complete bool) int {
	if s.state == headPending {
		var word int
		s.state, word = head(line, complete)
		if s.state == headPending && len(line) > maxHead {
			s.state = headRefused
		}
		if s.state != headAccepted {
			return 0
		}
		s.pos, s.inWord = word, true
	}
	if s.state == headRefused {
		return 0
	}
	for !s.cut && s.pos < len(line) {
		if c := line[s.pos]; c < utf8.RuneSelf && !s.tokenAt(line, c) {
			s.pos++
			switch c {
			case ' ', '\t':
				s.inWord = false
			case '\n', '\v', '\f', '\r':
			default:
				s.show = s.pos
			}
			continue
		}
		rest := line[s.pos:]
		cut, wait := cutAt(rest, s.inWord, complete)
		if cut {
			s.cut = true
			break
		}
		if wait || !complete && !utf8.FullRuneInString(rest) {
			break
		}
		r, n := utf8.DecodeRuneInString(rest)
		if r == ' ' || r == '\t' {
			s.inWord = false
		}
		s.pos += n
		if !unicode.IsSpace(r) {
			s.show = s.pos
		}
	}
	return s.show
}

// tokenAt reports whether c, the ASCII byte at pos, may start a token
// that cutAt looks for.
func (s *lineScan) tokenAt(line string, c byte) bool {
	switch c {
	case '<', '[':
		return true
	case 't':
		return s.pos+1 == len(line) || line[s.pos+1] == 'o'
	}
	return s.inWord && strings.IndexByte("_([{`|", c) >= 0
}

// cutAt reports whether rest, the line from a point on, starts with a
// token that may open a call there, or may once more of it has come.
func cutAt(rest string, inWord, complete bool) (cut, wait bool) {
	for _, tok := range cutTokens {
		if strings.HasPrefix(rest, tok) {
			return true, false
		}
		if !complete && len(rest) < len(tok) && strings.HasPrefix(tok, rest) {
			wait = true
		}
	}
	// A name followed by ( or [ may be a call; _ may make it a tool's.
	if inWord && strings.IndexByte("_([{`|", rest[0]) >= 0 {
		return true, false
	}
	return false, wait
}

// head reads the start of a line: white space, a Markdown heading, bullet
// or number, and the first word, which must start with a letter or a digit
// and be no marker's start. A word that starts in lower case or with a
// digit may be a tool's name, written as a call (read_file({...})): it
// waits for its end. It returns the line's state and where its first word
// begins.
func head(line string, complete bool) (state, word int) {
	pending := headPending
	if complete {
		pending = headRefused
	}
	i := skipSpace(line, 0)
	if i == len(line) {
		return pending, 0
	}
	switch c := line[i]; {
	case c == '#':
		j := i
		for j < len(line) && line[j] == '#' {
			j++
		}
		if j == len(line) {
			return pending, 0
		}
		if line[j] != ' ' {
			return headRefused, 0
		}
		i = j
	case c == '-' || c == '+' || c == '*' || strings.HasPrefix(line[i:], "•"):
		_, n := utf8.DecodeRuneInString(line[i:])
		if i+n >= len(line) {
			return pending, 0
		}
		if line[i+n] != ' ' {
			return headRefused, 0
		}
		i += n
	case '0' <= c && c <= '9':
		j := i
		for j < len(line) && j-i < 4 && '0' <= line[j] && line[j] <= '9' {
			j++
		}
		if j-i <= 3 && j < len(line) && (line[j] == '.' || line[j] == ')') {
			if j+1 == len(line) {
				return pending, 0
			}
			if line[j+1] == ' ' || line[j+1] == '\t' {
				i = j + 1
			}
		}
	}
	i = skipSpace(line, i)
	if i == len(line) || !complete && !utf8.FullRuneInString(line[i:]) {
		return pending, 0
	}
	r, _ := utf8.DecodeRuneInString(line[i:])
	if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
		return headRefused, 0
	}
	end := i
	for end < len(line) && line[end] != ' ' && line[end] != '\t' {
		end++
	}
	done := complete || end < len(line)
	w := line[i:end]
	for _, m := range markerWords {
		n := min(len(w), len(m))
		if !strings.EqualFold(w[:n], m[:n]) {
			continue
		}
		if n == len(m) {
			return headRefused, 0 // it starts with a marker
		}
		if !done {
			return headPending, 0 // it may become one
		}
	}
	if unicode.IsLower(r) || unicode.IsDigit(r) {
		if !done {
			return headPending, 0
		}
		if strings.ContainsAny(line[i:end], "_(") {
			return headRefused, 0
		}
	}
	return headAccepted, i
}

// skipSpace returns where the first character of s from i on that is not
// white space starts, or len(s).
func skipSpace(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return i
}

// showable returns how many of the first bytes of line, the start of a
// line still arriving, can be shown.
func showable(line string) int {
	var s lineScan
	return s.scan(line, false)
}

// prose reports whether line, a complete line of a reply, is text that
// leaves the reply reader as it was: blank; prose as a line still
// arriving may show it whole; or a line that both protocol.ParseLines and
// protocol.Parse read as that text and nothing else, that neither opens a
// fence nor thinks, and that starts no shape a reader reads only when it
// knows the tools (JSON, a Python list, a tool's tag or NAME({...}), a
// ReAct Action).
func prose(line string) bool { return scannedProse(line, &lineScan{}) }

// scannedProse is prose for a line whose start s has scanned as it
// arrived.
func scannedProse(line string, s *lineScan) bool {
	l := strings.TrimRight(line, " \t\r")
	t := strings.TrimSpace(l)
	if t == "" {
		return true
	}
	if s.scan(l, true); s.state == headAccepted && !s.cut {
		return true
	}
	if strings.HasPrefix(t, "```") || strings.Contains(l, "<think>") || strings.Contains(l, "</think>") || strings.Contains(l, "({") {
		return false
	}
	if u := strings.TrimLeft(t, " \t>*-+•_`#"); u == "" || strings.IndexByte("{[<", u[0]) >= 0 || len(u) >= 6 && strings.EqualFold(u[:6], "action") {
		return false
	}
	for _, p := range []protocol.Parsed{protocol.ParseLines(l), protocol.Parse(l)} {
		if len(p.Calls) > 0 || p.Forged > 0 || p.Text != t {
			return false
		}
	}
	return true
}

// proseText is the text of a reply while each of its complete lines has
// been prose or a fence: the lines as they came, trimmed as the reply
// reader trims them, and the line still arriving as far as it can show.
// A fence and the blank lines after it are held back, as the reply reader
// holds them, until the next line says whether they are kept (text
// follows) or dropped (the fence closes with nothing in it). The reply
// reader's text of the complete lines is then the same.
type proseText struct {
	on     bool            // every complete line so far was prose or a fence
	text   strings.Builder // the lines joined by newlines, the last as far as it shows
	lines  int             // lines begun in text
	open   bool            // the line still arriving is begun in text
	in     int             // its bytes in text
	start  int             // where the text begins once trimmed, or -1
	end    int             // where it ends once trimmed
	filled int             // where the last complete line that was not empty ends
	fence  []string        // a fence and the blank lines after it, held back
	lineAt int             // where the line still arriving starts in the reply
	scan   lineScan        // what is known of it
	shown  int             // the end of the text Text returned last
}

func (p *proseText) reset() { *p = proseText{on: true, start: -1} }

// add reads what reply, the reply so far, adds from offset from on.
func (p *proseText) add(reply string, from int) {
	for p.on {
		i := strings.IndexByte(reply[from:], '\n')
		if i < 0 {
			line := reply[p.lineAt:]
			if n := p.scan.scan(line, false); n > p.in {
				p.keep()
				p.write(line[p.in:n])
			}
			return
		}
		line := strings.TrimRight(reply[p.lineAt:from+i], " \t\r")
		switch t := strings.TrimSpace(line); {
		case strings.HasPrefix(t, "```"):
			if !plainFence(t) {
				p.on = false
				return
			}
			if t == "```" && p.fence != nil {
				p.fence = nil // a fence with nothing in it, dropped
				break
			}
			p.keep()
			p.fence = []string{line}
		case t == "" && p.fence != nil:
			p.fence = append(p.fence, line)
		case scannedProse(line, &p.scan):
			p.keep()
			p.complete(line, false)
		default:
			p.on = false
			return
		}
		p.lineAt, from = from+i+1, from+i+1
		p.scan = lineScan{}
	}
}

// plainFence reports whether t, a trimmed line that starts a fence, is
// one that a reader keeps as text when text follows it: neither a marker
// in its info string, nor thinking, nor opening a fence whose lines a
// reader that knows the tools may read as calls (tool_code, tool_call).
func plainFence(t string) bool {
	info := strings.ToLower(strings.TrimSpace(strings.TrimLeft(t, "`")))
	if info == "tool_code" || info == "tool_call" {
		return false
	}
	probe := t + "\nText"
	for _, p := range []protocol.Parsed{protocol.ParseLines(probe), protocol.Parse(probe)} {
		if len(p.Calls) > 0 || p.Forged > 0 || p.Text != probe {
			return false
		}
	}
	return true
}

// keep keeps the fence held back, text having come after it.
func (p *proseText) keep() {
	for i, l := range p.fence {
		p.complete(l, i == 0)
	}
	p.fence = nil
}

// complete writes what line, complete, adds to what was shown of it. A
// fence is no end of the text: the text ends where it did before it, as
// the reply reader's does.
func (p *proseText) complete(line string, fence bool) {
	before := p.filled
	p.write(line[p.in:])
	p.open, p.in = false, 0
	if fence {
		p.end = before
		if p.start >= 0 && before < p.start {
			p.end = p.start
		}
	}
	if line != "" {
		p.filled = p.text.Len()
	}
}

// write adds s to the line still arriving, beginning it if need be.
func (p *proseText) write(s string) {
	if !p.open {
		if p.lines > 0 {
			p.text.WriteByte('\n')
		}
		p.lines++
		p.open = true
	}
	at := p.text.Len()
	p.text.Grow(len(s)) // to twice its size, when it must grow
	p.text.WriteString(s)
	p.in += len(s)
	notSpace := func(r rune) bool { return !unicode.IsSpace(r) }
	if p.start < 0 {
		if k := strings.IndexFunc(s, notSpace); k >= 0 {
			p.start = at + k
		}
	}
	if k := strings.LastIndexFunc(s, notSpace); k >= 0 {
		_, n := utf8.DecodeRuneInString(s[k:])
		p.end = at + k + n
	}
}

// Text returns the text so far, trimmed, and whether it extends the text
// it returned last. It does unless a fence held back, which leaves the
// text ending where the last line that was not empty did (white space
// such as a form feed included), was then dropped.
func (p *proseText) Text() (text string, extends bool) {
	if p.start < 0 {
		return "", true
	}
	end := p.end
	if p.fence != nil {
		end = max(p.filled, p.start)
	}
	extends = end >= p.shown
	p.shown = end
	return p.text.String()[p.start:end], extends
}
