package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrCutLine is returned by Read, with the lines before it, when the last
// line of a record is cut: the run was stopped while writing it.
var ErrCutLine = errors.New("the record's last line is cut off")

// Read reads a record. A line that is not JSON is an error naming it, unless
// it is the last line, which a killed run may have left half written: then
// the lines before it come with ErrCutLine.
func Read(r io.Reader) ([]Line, error) {
	br := bufio.NewReader(r)
	var lines []Line
	for n := 1; ; n++ {
		raw, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(raw)) > 0 {
			var l Line
			if jerr := json.Unmarshal(raw, &l); jerr != nil {
				if err == io.EOF {
					return lines, fmt.Errorf("line %d: %w", n, ErrCutLine)
				}
				return lines, fmt.Errorf("line %d: not a record line: %w", n, jerr)
			}
			lines = append(lines, l)
		}
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return lines, err
		}
	}
}

// Replay writes a record as a transcript a person can read: the same
// markers the REPL shows, with what only the record knows (request sizes,
// durations, usage) beside them.
func Replay(w io.Writer, lines []Line) error {
	p := &printer{w: w}
	for _, l := range lines {
		p.line(l)
	}
	return p.err
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) line(l Line) {
	switch l.Type {
	case "start":
		if l.Start != nil {
			p.printf("Run of %s (%s) in %s, harness %s, tools: %s\n", l.Model, l.Backend, l.Workspace, l.Version, strings.Join(l.Tools, ", "))
		}
	case "turn":
		p.printf("<Turn %d>\nYou: %s\n", l.Turn, l.Input)
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
		args, _ := json.Marshal(l.Args)
		p.printf("tool-call: %s %s %s\n", l.ID, l.Tool, args)
	case "result":
		status := "tool-success"
		switch {
		case l.Ran != nil && !*l.Ran:
			status = "tool-refused"
		case l.OK == nil || !*l.OK:
			status = "tool-error"
		}
		p.printf("%s: %s %s (%s) -> %s\n", status, l.ID, l.Tool, millis(l.DurationMS), firstLine(deref(l.Body)))
		if l.Note != "" {
			p.printf("%s\n", l.Note)
		}
	case "approval":
		p.printf("approval: %s %s %s? %s\n", l.ID, l.Tool, l.Question, l.Decision)
	case "notice":
		p.printf("note: %s\n", l.Text)
	case "turn_end":
		if e := deref(l.Error); e != "" {
			p.printf("error: %s\n", e)
		}
		if l.Report != nil {
			p.printf("Report: %s\n", l.Report.Summary())
		}
	default:
		p.printf("(unknown line type %q)\n", l.Type)
	}
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
