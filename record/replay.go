package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"harness/window"
)

// ErrCutLine is returned by Read, with the lines before it, when the last
// line of a record is cut: the run was stopped while writing it.
var ErrCutLine = errors.New("the record's last line is cut off")

// ErrFormat is wrapped by every *FormatError.
var ErrFormat = errors.New("unknown record format")

// FormatError says that a start line names a format this package does not
// read: the file was written by a newer harness.
type FormatError struct {
	Line   int // 1-based
	Format int
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("line %d: written in format %d, but this harness reads only format %d (a newer harness wrote it)", e.Line, e.Format, Format)
}

func (e *FormatError) Unwrap() error { return ErrFormat }

// Read reads a record. A line that is not JSON is an error naming it, unless
// it is the last line, which a killed run may have left half written: then
// the lines before it come with ErrCutLine. A start line of an unknown
// format is a *FormatError.
func Read(r io.Reader) ([]Line, error) {
	var lines []Line
	s := NewScanner(r)
	for s.Scan() {
		lines = append(lines, s.Line())
	}
	return lines, s.Err()
}

// Scanner reads a record one line at a time, and says where each line
// ends, so that a file can be cut back to a line. It reports what Read
// does: Err is nil at a clean end, wraps ErrCutLine after a cut last line,
// and is a *FormatError or names the line that is not JSON.
type Scanner struct {
	br   *bufio.Reader
	n    int   // lines read, blank ones included
	end  int64 // offset just past the current line
	line Line
	err  error
	done bool
}

// NewScanner returns a Scanner reading r from its current offset, which
// End counts from.
func NewScanner(r io.Reader) *Scanner { return &Scanner{br: bufio.NewReader(r)} }

// Scan reads the next line; it returns false at the end or on an error.
// Blank lines are skipped.
func (s *Scanner) Scan() bool {
	for !s.done {
		raw, err := s.br.ReadBytes('\n')
		s.n++
		if err != nil {
			s.done = true
			if err != io.EOF {
				s.err = err
				return false
			}
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			s.end += int64(len(raw))
			continue
		}
		var l Line
		if jerr := json.Unmarshal(raw, &l); jerr != nil {
			s.done = true
			if err == io.EOF {
				s.err = fmt.Errorf("line %d: %w", s.n, ErrCutLine)
			} else {
				s.err = fmt.Errorf("line %d: not a record line: %w", s.n, jerr)
			}
			return false
		}
		if l.Type == "start" && l.Start != nil && l.Format > Format {
			s.done, s.err = true, &FormatError{Line: s.n, Format: l.Format}
			return false
		}
		s.end += int64(len(raw))
		s.line = l
		return true
	}
	return false
}

// Line is the line Scan read.
func (s *Scanner) Line() Line { return s.line }

// End is the offset just past the line Scan read, its newline included.
func (s *Scanner) End() int64 { return s.end }

// Number is the 1-based number of the line Scan read.
func (s *Scanner) Number() int { return s.n }

// Err is why scanning stopped before the end, if it did.
func (s *Scanner) Err() error { return s.err }

// Replay writes a record as a transcript a person can read: the same
// markers the REPL shows, with what only the record knows (request sizes,
// durations, usage) beside them. The lines of a nested conversation are
// indented under the call that started it, each marked with its origin.
func Replay(w io.Writer, lines []Line) error {
	p := &printer{w: w}
	for _, l := range lines {
		p.line(l)
	}
	return p.err
}

type printer struct {
	w      io.Writer
	prefix string // of every line printed for the record line at hand
	err    error
}

func (p *printer) printf(format string, args ...any) {
	if p.err != nil {
		return
	}
	s := fmt.Sprintf(format, args...)
	if p.prefix != "" {
		s = p.prefix + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+p.prefix) + "\n"
	}
	_, p.err = io.WriteString(p.w, s)
}

// nested returns the prefix of the lines of a conversation: none for the
// main one; for a nested one, two spaces a level and its origin.
func nested(origin string) string {
	if origin == "" {
		return ""
	}
	return strings.Repeat("  ", strings.Count(origin, "/")+1) + "[" + origin + "] "
}

func (p *printer) line(l Line) {
	if l.Origin == window.SummaryOrigin {
		p.summary(l)
		return
	}
	p.prefix = nested(l.Origin)
	switch l.Type {
	case "start":
		switch {
		case l.Start == nil:
		case l.Session != "":
			p.printf("Session %s of %s (%s) in %s, harness %s, tools: %s\n", l.Session, l.Model, l.Backend, l.Workspace, l.Version, strings.Join(l.Tools, ", "))
		default:
			p.printf("Run of %s (%s) in %s, harness %s, tools: %s\n", l.Model, l.Backend, l.Workspace, l.Version, strings.Join(l.Tools, ", "))
		}
	case "message":
		if l.Role == "system" {
			p.printf("system prompt: %d bytes\n", len(l.Content))
		} else {
			p.printf("%s:\n%s\n", l.Role, indent(l.Content))
		}
	case "replace":
		p.printf("the conversation was cut to its first %d messages; what follows replaces the rest\n", deref(l.Keep))
	case "turn":
		who := "You"
		if l.Origin != "" {
			who = "Task"
		}
		p.printf("<Turn %d>\n%s: %s\n", l.Turn, who, l.Input)
	case "request":
		p.printf("<Step %d> request: %d messages, %d bytes\n", l.Step, l.Messages, l.Bytes)
	case "reply":
		usage := "usage unknown"
		if l.Usage != nil {
			usage = fmt.Sprintf("%d prompt + %d output tokens", l.Usage.PromptTokens, l.Usage.OutputTokens)
		}
		p.printf("Assistant (%s, %s, done: %s):\n%s\n", millis(l.DurationMS), usage, deref(l.DoneReason), indent(l.Content))
	case "interrupted":
		p.printf("interrupted after %s; the partial reply was never run:\n%s\n", millis(l.DurationMS), indent(l.Content))
	case "call":
		args := ""
		if l.Args != nil {
			b, _ := json.Marshal(l.Args)
			args = " " + string(b)
		}
		p.printf("tool-call: %s %s%s\n", l.ID, toolName(l.Tool), args)
	case "result":
		status := "tool-success"
		switch {
		case l.Ran != nil && !*l.Ran:
			status = "tool-refused"
		case l.OK == nil || !*l.OK:
			status = "tool-error"
		}
		p.printf("%s: %s %s (%s) -> %s\n", status, l.ID, toolName(l.Tool), millis(l.DurationMS), firstLine(deref(l.Body)))
		if l.Note != "" {
			p.printf("%s\n", l.Note)
		}
	case "approval":
		p.printf("approval: %s %s %s? %s\n", l.ID, toolName(l.Tool), l.Question, l.Decision)
	case "notice":
		p.printf("note: %s\n", l.Text)
	case "compaction":
		if c := l.Compaction; c != nil {
			p.printf("compacted: %d -> %d messages, %d -> %d bytes, %s -> %s tokens\n", c.MessagesBefore, c.MessagesAfter,
				c.BytesBefore, c.BytesAfter, tokens(c.TokensBefore), tokens(c.TokensAfter))
		}
	case "model":
		p.printf("model: %s from turn %d (was %s)\n", l.To, l.Turn, l.From)
	case "note":
		p.printf("note for the model, with the next input: %s\n", l.Text)
	case "turn_end":
		if e := deref(l.Error); e != "" {
			p.printf("error: %s\n", e)
		}
		if l.Report != nil {
			p.printf("Report: %s\n", l.Report.Summary())
		}
	case "answer":
		ended := ""
		if l.Limit != "" {
			ended = ", the limit " + l.Limit
		}
		if l.Exit != nil {
			p.printf("Exit code %d%s\n", *l.Exit, ended)
		}
	default:
		p.printf("(unknown line type %q)\n", l.Type)
	}
}

// summary prints a line of a summary a compaction asked for: part of the
// compaction that follows, not a step of a conversation.
func (p *printer) summary(l Line) {
	p.prefix = ""
	switch l.Type {
	case "request":
		p.printf("compacting: summary request: %d messages, %d bytes\n", l.Messages, l.Bytes)
	case "reply":
		usage := "usage unknown"
		if l.Usage != nil {
			usage = fmt.Sprintf("%d prompt + %d output tokens", l.Usage.PromptTokens, l.Usage.OutputTokens)
		}
		p.printf("Summary (%s, %s):\n%s\n", millis(l.DurationMS), usage, indent(l.Content))
	default:
		p.printf("(unknown summary line type %q)\n", l.Type)
	}
}

// tokens is a compaction line's count, "?" when the compactor gave none.
func tokens(n int) string {
	if n == 0 {
		return "?"
	}
	return fmt.Sprint(n)
}

// toolName names the tool of a call; a call too malformed to name one is
// "(malformed)", as the REPL shows it.
func toolName(name string) string {
	if name == "" {
		return "(malformed)"
	}
	return name
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func millis(v *float64) string {
	if v == nil {
		return "? ms"
	}
	return fmt.Sprintf("%.0f ms", *v)
}

func indent(s string) string {
	if s == "" {
		return "  (empty)"
	}
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

func firstLine(s string) string {
	line, rest, _ := strings.Cut(s, "\n")
	if rest = strings.TrimRight(rest, "\n"); rest != "" {
		n := strings.Count(rest, "\n") + 1
		return fmt.Sprintf("%s [+%d more %s]", line, n, map[bool]string{true: "line", false: "lines"}[n == 1])
	}
	return line
}
