package fakemodel

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"harness/protocol"
)

// Script is a parsed script: the replies of a scripted model, in order.
type Script struct {
	// Name names the script in error messages, usually its file name.
	Name    string
	Replies []Reply
}

// Reply is one scripted reply and what it expects.
type Reply struct {
	// Line is the 1-based line of the reply's header, or 0 when the reply
	// was not parsed from text.
	Line int
	// Expect must occur in the content of the last message received, or
	// be all of it, or its end, as Match says.
	Expect string
	// Match says how Expect is matched; empty means MatchContains.
	Match Match
	// Role, when not empty, is the role the last message must have.
	Role protocol.Role
	// When, when not empty, gives the reply to the conversation whose
	// first user message contains it (see the package comment).
	When string
	// Done is the done reason to report; empty means protocol.DoneStop.
	Done  string
	Think string
	// Delay is how long to wait before replying.
	Delay time.Duration
	// Pace, when not zero, streams the reply a word at a time, waiting
	// this long before each word after the first, as a slow server does.
	Pace time.Duration
	Body string
}

// Match is how a reply's expect is matched against the content of the
// last message.
type Match string

const (
	MatchContains Match = "contains" // the content holds it
	MatchWhole    Match = "whole"    // the content is it
	MatchEnd      Match = "end"      // the content ends with it
)

// matches reports whether content meets expect as m says.
func (m Match) matches(content, expect string) bool {
	switch m {
	case MatchWhole:
		return content == expect
	case MatchEnd:
		return strings.HasSuffix(content, expect)
	}
	return strings.Contains(content, expect)
}

// verb says what m asks of the last message, for error messages.
func (m Match) verb() string {
	switch m {
	case MatchWhole:
		return "be exactly"
	case MatchEnd:
		return "end with"
	}
	return "contain"
}

// ParseError is a malformed script: where, and why.
type ParseError struct {
	Name string
	Line int
	Err  error
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %v", e.Name, e.Line, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Load reads and parses the script file at path.
func Load(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fakemodel: %w", err)
	}
	return Parse(path, data)
}

// Parse parses a script. name is used in error messages and kept in the
// Script. Errors are of type *ParseError.
func Parse(name string, data []byte) (*Script, error) {
	s := &Script{Name: name}
	var (
		cur  *Reply
		body []string
	)
	flush := func() {
		if cur != nil {
			cur.Body = strings.Join(body, "\n")
			s.Replies = append(s.Replies, *cur)
		}
	}
	for i, line := range lines(string(data)) {
		n := i + 1
		if !utf8.ValidString(line) {
			return nil, &ParseError{name, n, fmt.Errorf("invalid UTF-8")}
		}
		switch {
		case strings.HasPrefix(line, ">>>"):
			flush()
			r, err := parseHeader(line[len(">>>"):])
			if err != nil {
				return nil, &ParseError{name, n, err}
			}
			r.Line = n
			cur, body = &r, nil
		case cur == nil:
			if strings.HasPrefix(line, "#") || strings.Trim(line, " \t") == "" {
				continue
			}
			return nil, &ParseError{name, n, fmt.Errorf("text before the first >>> header (comments start with #)")}
		default:
			body = append(body, strings.TrimPrefix(line, `\`))
		}
	}
	flush()
	return s, nil
}

// lines splits s into lines; a final "\n" does not start another line.
func lines(s string) []string {
	ls := strings.Split(s, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// parseHeader parses the attributes that follow ">>>".
func parseHeader(rest string) (Reply, error) {
	var r Reply
	seen := make(map[string]bool)
	for {
		if rest == "" {
			return r, nil
		}
		if !isBlank(rest[0]) {
			return r, fmt.Errorf("want a space before %q", rest)
		}
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			return r, nil
		}
		var key, val string
		var err error
		key, val, rest, err = nextAttr(rest)
		if err != nil {
			return r, err
		}
		if seen[key] {
			return r, fmt.Errorf("attribute %s given twice", key)
		}
		seen[key] = true
		if err := r.set(key, val); err != nil {
			return r, err
		}
	}
}

// nextAttr splits the attribute at the start of s from what follows it.
func nextAttr(s string) (key, val, rest string, err error) {
	end := strings.IndexAny(s, " \t")
	if end < 0 {
		end = len(s)
	}
	key, v, ok := strings.Cut(s, "=")
	if !ok || len(key) > end {
		return "", "", "", fmt.Errorf("want key=value, not %q", s[:end])
	}
	if key == "" {
		return "", "", "", fmt.Errorf("missing attribute name before = in %q", s[:end])
	}
	if !strings.HasPrefix(v, `"`) {
		end := strings.IndexAny(v, " \t")
		if end < 0 {
			end = len(v)
		}
		if end == 0 {
			return "", "", "", fmt.Errorf("empty value for %s (write %s=\"\")", key, key)
		}
		return key, v[:end], v[end:], nil
	}
	q, err := strconv.QuotedPrefix(v)
	if err != nil {
		return "", "", "", fmt.Errorf("bad quoted value for %s: %w", key, err)
	}
	val, err = strconv.Unquote(q)
	if err != nil {
		return "", "", "", fmt.Errorf("bad quoted value for %s: %w", key, err)
	}
	rest = v[len(q):]
	if rest != "" && !isBlank(rest[0]) {
		return "", "", "", fmt.Errorf("want a space after the value of %s", key)
	}
	return key, val, rest, nil
}

// set sets the attribute key to val.
func (r *Reply) set(key, val string) error {
	switch key {
	case "expect":
		r.Expect = val
	case "think":
		r.Think = val
	case "when":
		r.When = val
	case "role":
		switch role := protocol.Role(val); role {
		case protocol.User, protocol.Assistant, protocol.System:
			r.Role = role
		default:
			return fmt.Errorf("role must be user, assistant or system, not %q", val)
		}
	case "done":
		switch val {
		case protocol.DoneStop, protocol.DoneLength:
			r.Done = val
		default:
			return fmt.Errorf("done must be stop or length, not %q", val)
		}
	case "match":
		switch m := Match(val); m {
		case MatchContains, MatchWhole, MatchEnd:
			r.Match = m
		default:
			return fmt.Errorf("match must be contains, whole or end, not %q", val)
		}
	case "delay":
		d, err := time.ParseDuration(val)
		if err != nil {
			return fmt.Errorf("bad delay: %w", err)
		}
		if d < 0 {
			return fmt.Errorf("delay must not be negative, not %s", val)
		}
		r.Delay = d
	case "pace":
		d, err := time.ParseDuration(val)
		if err != nil {
			return fmt.Errorf("bad pace: %w", err)
		}
		if d < 0 {
			return fmt.Errorf("pace must not be negative, not %s", val)
		}
		r.Pace = d
	default:
		return fmt.Errorf("unknown attribute %q", key)
	}
	return nil
}

// Format prints s as script text that parses back to the same replies.
// The script's name and line numbers are not part of the text.
func (s *Script) Format() []byte {
	var b strings.Builder
	for _, r := range s.Replies {
		b.WriteString(">>>")
		if r.Expect != "" {
			b.WriteString(" expect=" + strconv.Quote(r.Expect))
		}
		if r.Match != "" {
			b.WriteString(" match=" + attrValue(string(r.Match)))
		}
		if r.Role != "" {
			b.WriteString(" role=" + attrValue(string(r.Role)))
		}
		if r.Done != "" {
			b.WriteString(" done=" + attrValue(r.Done))
		}
		if r.Think != "" {
			b.WriteString(" think=" + strconv.Quote(r.Think))
		}
		if r.Delay > 0 {
			b.WriteString(" delay=" + r.Delay.String())
		}
		if r.Pace > 0 {
			b.WriteString(" pace=" + r.Pace.String())
		}
		if r.When != "" {
			b.WriteString(" when=" + strconv.Quote(r.When))
		}
		b.WriteByte('\n')
		for _, line := range strings.Split(r.Body, "\n") {
			if strings.HasPrefix(line, `\`) || strings.HasPrefix(line, ">>>") {
				b.WriteByte('\\')
			}
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return []byte(b.String())
}

// attrValue writes v bare when it can be, quoted otherwise.
func attrValue(v string) string {
	if v == "" || strings.HasPrefix(v, `"`) || strings.ContainsAny(v, " \t\n") {
		return strconv.Quote(v)
	}
	return v
}
