// Package view shows a conversation on a terminal: each turn's steps,
// replies and calls (Turn), the helpers' conversations indented under the
// call that started them (Nest), the messages exactly as they go to the
// model and come back (Wire), the context window's use (Window), and
// diffs. Whatever a model, a file or a command wrote is shown through
// approve.Visible, so that none of it can act on the terminal.
package view

import (
	"strings"

	"harness/approve"
)

// Style paints text when the output is a terminal that wants colours.
type Style bool

func (s Style) Paint(code, text string) string {
	if !s {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s Style) Dim(t string) string    { return s.Paint("2", t) }
func (s Style) You(t string) string    { return s.Paint("94", t) }
func (s Style) Model(t string) string  { return s.Paint("93", t) }
func (s Style) Good(t string) string   { return s.Paint("32", t) }
func (s Style) Bad(t string) string    { return s.Paint("31", t) }
func (s Style) Notice(t string) string { return s.Paint("35", t) }

// Diff paints a diff's lines on a terminal that wants colours, and
// escapes what a terminal would act on, since the text comes from files
// and from the model.
func (s Style) Diff(diff string) string {
	diff = approve.Visible(diff)
	if !s {
		return diff
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(diff, "\n") {
		body, nl := strings.CutSuffix(line, "\n")
		switch {
		case strings.HasPrefix(body, "+++ "), strings.HasPrefix(body, "--- "):
			body = s.Paint("1", body)
		case strings.HasPrefix(body, "@@"):
			body = s.Paint("36", body)
		case strings.HasPrefix(body, "+"):
			body = s.Good(body)
		case strings.HasPrefix(body, "-"):
			body = s.Bad(body)
		}
		b.WriteString(body)
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
