package protocol

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The forgiving JSON reader. A call that encoding/json reads is read by
// encoding/json, so that a call in the documented format decodes exactly as
// it always has. Only a call it refuses is read again here, by a reader that
// accepts the slips with one clear reading (see "Repairs" in doc.go), notes
// each repair it made, and otherwise fails with a reason a model can act on:
// where, and what to write instead. It never shows Go's error text.

// object is a JSON object with its keys in the order written.
type object struct {
	keys []string
	vals map[string]any
	// twice is whether a key was given twice, and dup the first such key
	// (which may be the empty one).
	twice bool
	dup   string
}

func (o *object) get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// jsonError says where and why JSON could not be read. Off is a byte
// offset into the text the reader was given; EOF is true when the text
// ended before the value did, so that more lines may complete it.
type jsonError struct {
	Off      int
	EOF      bool
	Reason   string
	open     []byte // the brackets left open at EOF, innermost last
	inString bool   // EOF came inside a string
}

func (e *jsonError) Error() string { return e.Reason }

// lenient reads one JSON value from s starting at offset i.
type lenient struct {
	s       string
	i       int
	repairs []string
	open    []byte
}

// readLenient reads the JSON value that starts at s[start:] (after white
// space) and returns it (objects as *object, arrays as []any, numbers as
// json.Number), the offset just after it, and the repairs it made.
func readLenient(s string, start int) (any, int, []string, error) {
	p := &lenient{s: s, i: start}
	v, err := p.value()
	if err != nil {
		return nil, p.i, p.repairs, err
	}
	return v, p.i, p.repairs, nil
}

func (p *lenient) repair(what string) {
	for _, r := range p.repairs {
		if r == what {
			return
		}
	}
	p.repairs = append(p.repairs, what)
}

func (p *lenient) eof() error {
	open := append([]byte(nil), p.open...)
	return &jsonError{Off: len(p.s), EOF: true, Reason: notClosed(open), open: open}
}

// notClosed says what a text that ends inside open brackets misses.
func notClosed(open []byte) string {
	var add strings.Builder
	for i := len(open) - 1; i >= 0; i-- {
		if open[i] == '{' {
			add.WriteByte('}')
		} else {
			add.WriteByte(']')
		}
	}
	if len(open) == 0 {
		return "the JSON ends before its value does"
	}
	what := "object"
	if open[0] == '[' {
		what = "array"
	}
	return fmt.Sprintf("the JSON %s is not closed: it needs %s at its end", what, add.String())
}

func (p *lenient) fail(format string, args ...any) error {
	return &jsonError{Off: p.i, Reason: fmt.Sprintf(format, args...)}
}

// space skips white space and comments.
func (p *lenient) space() {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case strings.HasPrefix(p.s[p.i:], "//"):
			p.repair("comment")
			j := strings.IndexByte(p.s[p.i:], '\n')
			if j < 0 {
				p.i = len(p.s)
				return
			}
			p.i += j + 1
		case strings.HasPrefix(p.s[p.i:], "/*"):
			p.repair("comment")
			j := strings.Index(p.s[p.i+2:], "*/")
			if j < 0 {
				p.i = len(p.s)
				return
			}
			p.i += j + 4
		default:
			r, n := utf8.DecodeRuneInString(p.s[p.i:])
			if r != utf8.RuneError && n > 1 && isSpace(r) {
				p.i += n
				continue
			}
			return
		}
	}
}

// isSpace reports whether r, not ASCII, is white space between JSON's
// tokens: Unicode's spaces, and the ▁ with which a tokenizer marks one
// and a server may leave in the text.
func isSpace(r rune) bool {
	return r == '\u2581' || unicode.IsSpace(r)
}

// found describes the character at p.i for an error message: a
// multi-byte character is quoted whole.
func (p *lenient) found() string {
	if p.i >= len(p.s) {
		return "the end"
	}
	r, _ := utf8.DecodeRuneInString(p.s[p.i:])
	if r == '\n' {
		return "the end of the line"
	}
	return strconv.QuoteRune(r)
}

func (p *lenient) value() (any, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, p.eof()
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == '"' || c == '\'' || strings.HasPrefix(p.s[p.i:], "“") || strings.HasPrefix(p.s[p.i:], "‘") || strings.HasPrefix(p.s[p.i:], "”"):
		return p.str()
	}
	for _, lit := range []struct {
		word string
		v    any
		py   bool
	}{{"true", true, false}, {"false", false, false}, {"null", nil, false}, {"True", true, true}, {"False", false, true}, {"None", nil, true}} {
		if strings.HasPrefix(p.s[p.i:], lit.word) && !identByte(p.s, p.i+len(lit.word)) {
			if lit.py {
				p.repair("Python's " + lit.word)
			}
			p.i += len(lit.word)
			return lit.v, nil
		}
	}
	if rest := p.s[p.i:]; len(rest) < 5 && (strings.HasPrefix("true", rest) || strings.HasPrefix("false", rest) || strings.HasPrefix("null", rest)) {
		return nil, p.eof()
	}
	return nil, p.fail("expected a value (a string in double quotes, a number, true, false, null, an object or an array), found %s", p.found())
}

func identByte(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *lenient) object() (any, error) {
	p.open = append(p.open, '{')
	p.i++
	o := &object{vals: map[string]any{}}
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil, p.eof()
		}
		if p.s[p.i] == '}' {
			if len(o.keys) > 0 {
				p.repair("trailing comma")
			}
			break
		}
		if !p.quoteAt() {
			return nil, p.fail("expected a key in double quotes, found %s", p.found())
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		key := k.(string)
		p.space()
		if p.i >= len(p.s) {
			return nil, p.eof()
		}
		if p.s[p.i] != ':' {
			return nil, p.fail("expected : after the key %q, found %s", key, p.found())
		}
		p.i++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		_, dup := o.vals[key]
		switch {
		case !dup:
			o.keys = append(o.keys, key)
		case !o.twice:
			o.twice, o.dup = true, key
		}
		o.vals[key] = v
		p.space()
		if p.i >= len(p.s) {
			return nil, p.eof()
		}
		if p.s[p.i] == '}' {
			break
		}
		if p.s[p.i] != ',' {
			if p.quoteAt() {
				return nil, p.fail("a comma is missing after the value of %q, before %s", key, p.found())
			}
			return nil, p.fail("expected , or } after the value of %q, found %s", key, p.found())
		}
		p.i++
	}
	p.i++
	p.open = p.open[:len(p.open)-1]
	return o, nil
}

func (p *lenient) array() (any, error) {
	p.open = append(p.open, '[')
	p.i++
	out := []any{}
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil, p.eof()
		}
		if p.s[p.i] == ']' {
			if len(out) > 0 {
				p.repair("trailing comma")
			}
			break
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.space()
		if p.i >= len(p.s) {
			return nil, p.eof()
		}
		if p.s[p.i] == ']' {
			break
		}
		if p.s[p.i] != ',' {
			return nil, p.fail("expected , or ] after an element of an array, found %s", p.found())
		}
		p.i++
	}
	p.i++
	p.open = p.open[:len(p.open)-1]
	return out, nil
}

func (p *lenient) quoteAt() bool {
	rest := p.s[p.i:]
	return strings.HasPrefix(rest, `"`) || strings.HasPrefix(rest, "'") || strings.HasPrefix(rest, "“") || strings.HasPrefix(rest, "‘") || strings.HasPrefix(rest, "”")
}

func (p *lenient) number() (any, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if digits() == 0 {
		if p.i >= len(p.s) {
			return nil, p.eof()
		}
		return nil, p.fail("expected a digit after -, found %s", p.found())
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.fail("expected a digit after the decimal point, found %s", p.found())
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.fail("expected a digit in the exponent, found %s", p.found())
		}
	}
	text := p.s[start:p.i]
	if len(text) > 1 && text[0] == '0' && text[1] >= '0' && text[1] <= '9' || strings.HasPrefix(text, "-0") && len(text) > 2 && text[2] >= '0' && text[2] <= '9' {
		return nil, &jsonError{Off: start, Reason: fmt.Sprintf("the number %s starts with 0; write it without leading zeros, or as a string", text)}
	}
	return json.Number(text), nil
}

// str reads a string in double, single or curly quotes.
func (p *lenient) str() (any, error) {
	start := p.i
	var closer string
	switch {
	case p.s[p.i] == '"':
		closer = `"`
		p.i++
	case p.s[p.i] == '\'':
		closer = "'"
		p.repair("single quotes")
		p.i++
	case strings.HasPrefix(p.s[p.i:], "“"), strings.HasPrefix(p.s[p.i:], "”"):
		closer = "”"
		p.repair("curly quotes")
		p.i += len("“")
	default: // ‘
		closer = "’"
		p.repair("curly quotes")
		p.i += len("‘")
	}
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return nil, &jsonError{Off: len(p.s), EOF: true, inString: true, open: append([]byte(nil), p.open...),
				Reason: "a string is not closed: it needs its closing quote"}
		}
		if strings.HasPrefix(p.s[p.i:], closer) {
			p.i += len(closer)
			return b.String(), nil
		}
		// A curly string may also end with the opening curly quote, as
		// some fonts and keyboards give the same one twice.
		if closer == "”" && strings.HasPrefix(p.s[p.i:], "“") {
			p.i += len("“")
			return b.String(), nil
		}
		c := p.s[p.i]
		switch {
		case c == '\n':
			return nil, &jsonError{Off: start, Reason: "a string runs past the end of its line: a JSON string cannot hold a line break (write \\n), and text with quotes or line breaks is best sent as a block, \"<<EOF\""}
		case c < 0x20 && c != '\t':
			return nil, p.fail("a string holds the control character %s; write it escaped", strconv.QuoteRune(rune(c)))
		case c == '\\':
			if err := p.escape(&b, closer == "'"); err != nil {
				return nil, err
			}
		default:
			r, n := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteRune(r)
			p.i += n
		}
	}
}

// escape reads an escape; \' is one only in a string in single quotes.
func (p *lenient) escape(b *strings.Builder, single bool) error {
	p.i++
	if p.i >= len(p.s) {
		return p.eof()
	}
	c := p.s[p.i]
	p.i++
	switch {
	case c == '_':
		// \_ is Markdown's escape of an underscore, which models carry
		// into JSON: it means _.
		p.repair("a Markdown-escaped _")
		b.WriteByte('_')
	case c == '\'' && !single:
		p.i--
		return p.fail(`\' is not an escape JSON knows: inside double quotes a ' needs none; send text with quotes as a block, "<<EOF"`)
	case c == '"' || c == '\\' || c == '/' || c == '\'':
		b.WriteByte(c)
	case c == 'b':
		b.WriteByte('\b')
	case c == 'f':
		b.WriteByte('\f')
	case c == 'n':
		b.WriteByte('\n')
	case c == 'r':
		b.WriteByte('\r')
	case c == 't':
		b.WriteByte('\t')
	case c == 'u':
		r, ok := p.hex4()
		if !ok {
			return p.fail(`\u must be followed by four hex digits`)
		}
		if r >= 0xD800 && r < 0xDC00 && strings.HasPrefix(p.s[p.i:], `\u`) {
			save := p.i
			p.i += 2
			if r2, ok := p.hex4(); ok && r2 >= 0xDC00 && r2 < 0xE000 {
				r = (r-0xD800)<<10 + (r2 - 0xDC00) + 0x10000
			} else {
				p.i = save
			}
		}
		b.WriteRune(r)
	default:
		p.i--
		r, _ := utf8.DecodeRuneInString(p.s[p.i:])
		return p.fail(`\%c is not an escape JSON knows (it has \" \\ \/ \b \f \n \r \t \u); write \\ for a backslash, or send the text as a block, "<<EOF"`, r)
	}
	return nil
}

func (p *lenient) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}

// plain turns what readLenient returns into what encoding/json with
// UseNumber gives: objects as map[string]any.
func plain(v any) any {
	switch v := v.(type) {
	case *object:
		m := make(map[string]any, len(v.vals))
		for k, x := range v.vals {
			m[k] = plain(x)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = plain(x)
		}
		return out
	}
	return v
}
