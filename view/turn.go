package view

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"harness/approve"
	"harness/loop"
	"harness/plural"
	"harness/protocol"
)

// Turn shows the events of a conversation's turns, as a loop.Hook.
// Assistant text goes to Out; step markers, tool lines and notes go to
// Log. Whatever the model, a file or
// a command wrote reaches them through approve.Visible, so that none of
// it can act on the terminal (clear it, set its title, write the
// clipboard): it shows, escaped.
type Turn struct {
	Out, Log io.Writer
	Style    Style
	// Stream prints assistant text line by line as it arrives.
	Stream bool
	// Final leaves the last answer to the caller (-p prints it on stdout).
	Final bool

	reply protocol.Stream // the streamed content of the current step
	shown string          // the assistant text printed so far in this step
	// sync says how shown stands to the streamed text: a prefix of it, so
	// that what is new can be printed without comparing; unknown; or, once
	// the text has grown as long as shown without starting with it, apart
	// for good (the text only grows until a Stream says it did not).
	sync syncState
}

type syncState int

const (
	inSync syncState = iota
	unknown
	apart
)

// Event shows e. It never stops a turn.
func (v *Turn) Event(e loop.Event) error {
	switch e.Kind {
	case loop.StepStarted:
		v.reply = protocol.Stream{}
		v.shown, v.sync = "", inSync
		fmt.Fprintln(v.Log, v.Style.Dim(fmt.Sprintf("<Step %d>", e.Step)))
	case loop.Streamed:
		if v.Stream && e.Delta.Content != "" {
			v.reply.Add(e.Delta.Content)
			if strings.Contains(e.Delta.Content, "\n") {
				v.showStreamed(v.reply.Text())
			}
		}
	case loop.Replied:
		if v.Final && len(e.Parsed.Calls) == 0 {
			return nil
		}
		v.show(e.Parsed.Text)
		if v.shown != "" {
			fmt.Fprintln(v.Out)
		}
	case loop.CallStarted:
		fmt.Fprintf(v.Log, "%s %s\n", v.Style.Dim("tool-call:"), approve.Visible(firstLine(e.Call.Text)))
	case loop.CallEnded:
		if e.Result.OK {
			fmt.Fprintf(v.Log, "%s %s -> %s\n", v.Style.Good("tool-success:"), approve.Visible(e.Result.Tool), approve.Visible(summary(e.Result.Body)))
		} else {
			fmt.Fprintf(v.Log, "%s %s -> %s\n", v.Style.Bad("tool-error:"), approve.Visible(toolName(e.Call.Name)), approve.Visible(ErrorLines(e.Result.Body)))
		}
	case loop.Noticed:
		fmt.Fprintf(v.Log, "%s %s\n", v.Style.Notice("note:"), approve.Visible(e.Text))
	case loop.Interrupted:
		fmt.Fprintf(v.Log, "%s the model call was interrupted; its partial reply was not run\n", v.Style.Notice("note:"))
	case loop.TurnEnded:
		if e.Report != nil && (e.Report.Steps > 0 || e.Report.Interrupted) {
			fmt.Fprintf(v.Log, "%s %s\n", v.Style.Dim("Report:"), e.Report.Summary())
		}
	}
	return nil
}

// show prints what text adds to the assistant text already shown, and
// reports whether it did. Text that no longer extends it (a fence that
// turned out to hold a call) is skipped.
func (v *Turn) show(text string) bool {
	if text == v.shown || !strings.HasPrefix(text, v.shown) {
		return false
	}
	v.print(text)
	return true
}

// print prints what text, which extends the text shown, adds to it.
func (v *Turn) print(text string) {
	if v.shown == "" {
		fmt.Fprint(v.Out, v.Style.Model("Assistant")+": ")
	}
	io.WriteString(v.Out, approve.Visible(text[len(v.shown):]))
	v.shown = text
}

// showStreamed is show for the text of a reply still streaming, without
// comparing all that was shown at every line: text extends what was shown
// as long as it extends the streamed text before it.
func (v *Turn) showStreamed(text string, extends bool) {
	if !extends || v.sync == unknown && len(text) >= len(v.shown) {
		v.sync = unknown
		if v.show(text) || text == v.shown {
			v.sync = inSync
		} else if len(text) >= len(v.shown) {
			v.sync = apart
		}
		return
	}
	if v.sync == inSync && len(text) > len(v.shown) {
		v.print(text)
	}
}

// summary is the short form of a result body for the tool-success line.
func summary(body string) string {
	body = strings.TrimRight(body, "\n")
	if n := strings.Count(body, "\n") + 1; n > 1 {
		return fmt.Sprintf("%d lines", n)
	}
	return clip(body, 100)
}

// toolName names the tool of a call; a call too malformed to name one is
// "(malformed)".
func toolName(name string) string {
	if name == "" {
		return "(malformed)"
	}
	return name
}

// ErrorLine is the short form of an error body: its first line, and its
// last when that is a bracketed status such as a command's exit.
func ErrorLine(body string) string {
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	if last := lines[len(lines)-1]; len(lines) > 1 && strings.HasPrefix(last, "[") {
		return firstLine(lines[0]) + " ... " + clip(last, 200)
	}
	return firstLine(body)
}

// maxErrorLines bounds the lines of an error the tool-error line shows.
const maxErrorLines = 6

// ErrorLines is an error body as the tool-error line shows it: its first
// line, then the lines after it, indented, up to maxErrorLines in all,
// each clipped; when more lines follow, how many, and the last line when
// it is a bracketed status such as a command's exit. The lines that say
// where an edit went wrong are what a user needs of such an error.
func ErrorLines(body string) string {
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	status := ""
	if last := lines[len(lines)-1]; len(lines) > maxErrorLines && strings.HasPrefix(last, "[") {
		status, lines = last, lines[:len(lines)-1]
	}
	var b strings.Builder
	for i, line := range lines {
		if i == maxErrorLines-1 && (len(lines) > maxErrorLines || status != "") {
			fmt.Fprintf(&b, "\n%s… %s", errorIndent, plural.Count(len(lines)-i, "more line"))
			break
		}
		if i > 0 {
			b.WriteString("\n" + errorIndent)
		}
		b.WriteString(clip(strings.TrimRight(line, "\r"), 200))
	}
	if status != "" {
		b.WriteString("\n" + errorIndent + clip(status, 200))
	}
	return b.String()
}

// errorIndent sets the lines of an error after the first under it.
const errorIndent = "    "

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return clip(line, 200)
}

// clip cuts s to n bytes at most, at the start of a character, marking
// the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
