package main

import (
	"fmt"
	"io"
	"strings"

	"harness/approve"
	"harness/loop"
	"harness/protocol"
)

// style paints text when the output is a terminal that wants colours.
type style bool

func (s style) paint(code, text string) string {
	if !s {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s style) dim(t string) string    { return s.paint("2", t) }
func (s style) you(t string) string    { return s.paint("94", t) }
func (s style) model(t string) string  { return s.paint("93", t) }
func (s style) good(t string) string   { return s.paint("32", t) }
func (s style) bad(t string) string    { return s.paint("31", t) }
func (s style) notice(t string) string { return s.paint("35", t) }

// view renders the events of a turn. Assistant text goes to out; step
// markers, tool lines and notes go to log. Whatever the model, a file or
// a command wrote reaches them through approve.Visible, so that none of
// it can act on the terminal (clear it, set its title, write the
// clipboard): it shows, escaped.
type view struct {
	out, log io.Writer
	st       style
	// stream prints assistant text line by line as it arrives.
	stream bool
	// final leaves the last answer to the caller (-p prints it on stdout).
	final bool

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

func (v *view) event(e loop.Event) {
	switch e.Kind {
	case loop.StepStarted:
		v.reply = protocol.Stream{}
		v.shown, v.sync = "", inSync
		fmt.Fprintln(v.log, v.st.dim(fmt.Sprintf("<Step %d>", e.Step)))
	case loop.Streamed:
		if v.stream && e.Delta.Content != "" {
			v.reply.Add(e.Delta.Content)
			if strings.Contains(e.Delta.Content, "\n") {
				v.showStreamed(v.reply.Text())
			}
		}
	case loop.Replied:
		if v.final && len(e.Parsed.Calls) == 0 {
			return
		}
		v.show(e.Parsed.Text)
		if v.shown != "" {
			fmt.Fprintln(v.out)
		}
	case loop.CallStarted:
		fmt.Fprintf(v.log, "%s %s\n", v.st.dim("tool-call:"), approve.Visible(firstLine(e.Call.Text)))
	case loop.CallEnded:
		if e.Result.OK {
			fmt.Fprintf(v.log, "%s %s -> %s\n", v.st.good("tool-success:"), approve.Visible(e.Result.Tool), approve.Visible(summary(e.Result.Body)))
		} else {
			fmt.Fprintf(v.log, "%s %s -> %s\n", v.st.bad("tool-error:"), approve.Visible(toolName(e.Call.Name)), approve.Visible(errorLine(e.Result.Body)))
		}
	case loop.Noticed:
		fmt.Fprintf(v.log, "%s %s\n", v.st.notice("note:"), approve.Visible(e.Text))
	case loop.Interrupted:
		fmt.Fprintf(v.log, "%s the model call was interrupted; its partial reply was not run\n", v.st.notice("note:"))
	case loop.TurnEnded:
		if e.Report != nil && (e.Report.Steps > 0 || e.Report.Interrupted) {
			fmt.Fprintf(v.log, "%s %s\n", v.st.dim("Report:"), e.Report.Summary())
		}
	}
}

// show prints what text adds to the assistant text already shown, and
// reports whether it did. Text that no longer extends it (a fence that
// turned out to hold a call) is skipped.
func (v *view) show(text string) bool {
	if text == v.shown || !strings.HasPrefix(text, v.shown) {
		return false
	}
	v.print(text)
	return true
}

// print prints what text, which extends the text shown, adds to it.
func (v *view) print(text string) {
	if v.shown == "" {
		fmt.Fprint(v.out, v.st.model("Assistant")+": ")
	}
	io.WriteString(v.out, approve.Visible(text[len(v.shown):]))
	v.shown = text
}

// showStreamed is show for the text of a reply still streaming, without
// comparing all that was shown at every line: text extends what was shown
// as long as it extends the streamed text before it.
func (v *view) showStreamed(text string, extends bool) {
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

// errorLine is the short form of an error body: its first line, and its
// last when that is a bracketed status such as a command's exit.
func errorLine(body string) string {
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	if last := lines[len(lines)-1]; len(lines) > 1 && strings.HasPrefix(last, "[") {
		return firstLine(lines[0]) + " ... " + clip(last, 200)
	}
	return firstLine(body)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return clip(line, 200)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
