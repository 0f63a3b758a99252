package view

import (
	"fmt"
	"io"
	"strings"

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
	// Stream shows assistant text as it arrives (see partial.go for when
	// a line shows before its end), and the thinking a backend sends
	// apart, dimmed.
	Stream bool
	// Final leaves the last answer to the caller (-p prints it on stdout).
	Final bool
	// Activity draws a quiet indicator under the cursor while a reply is
	// awaited and while it streams, erased before anything else is
	// written. It moves the cursor: only for a terminal that wants
	// colours, which Out and Log both write to.
	Activity bool
	// Wire says that a Wire shows the wire (--show-wire) on the same
	// screen: it shows each reply, and its thinking, whole as it came, so
	// Turn leaves them to it rather than show them twice.
	Wire bool

	reply   protocol.Stream // reads the content once it is not all prose
	content strings.Builder // the content so far
	given   int             // how much of it reply was given
	shown   string          // the assistant text printed so far in this step
	// sync says how shown stands to the streamed text: a prefix of it, so
	// that what is new can be printed without comparing; unknown; or, once
	// the text has grown as long as shown without starting with it, apart
	// for good (the text only grows until a Stream says it did not).
	sync syncState
	// prose is the text while the reply has been prose line after line:
	// then the line still arriving shows before its end.
	prose proseText

	thinking bool // streamed thinking is on screen, its line not ended
	thought  bool // thinking was streamed in this step
	drawn    bool // the activity indicator is on screen
	frame    int  // the indicator's next frame
}

type syncState int

const (
	inSync syncState = iota
	unknown
	apart
)

// Event shows e. It never stops a turn.
func (v *Turn) Event(e loop.Event) error {
	v.clear()
	switch e.Kind {
	case loop.StepStarted:
		v.reply, v.content, v.given = protocol.Stream{}, strings.Builder{}, 0
		v.shown, v.sync = "", inSync
		v.prose.reset()
		v.thinking, v.thought = false, false
		fmt.Fprintln(v.Log, v.Style.Dim(fmt.Sprintf("<Step %d>", e.Step)))
		v.spin()
	case loop.Streamed:
		if v.Stream && !v.Wire {
			v.streamed(e.Delta)
		}
		v.spin()
	case loop.Replied:
		if v.Stream && !v.Wire && !v.thought && e.Reply.Thinking != "" {
			v.think(e.Reply.Thinking) // the backend sent it whole
		}
		v.endThought()
		if !v.Wire && (!v.Final || len(e.Parsed.Calls) > 0) {
			v.show(e.Parsed.Text)
		}
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
		// What was shown of the reply stays, its line ended.
		v.endThought()
		if v.shown != "" {
			fmt.Fprintln(v.Out)
		}
		fmt.Fprintf(v.Log, "%s the model call was interrupted; its partial reply was not run\n", v.Style.Notice("note:"))
	case loop.TurnEnded:
		if e.Report != nil && (e.Report.Steps > 0 || e.Report.Interrupted) {
			fmt.Fprintf(v.Log, "%s %s\n", v.Style.Dim("Report:"), e.Report.Summary())
		}
	}
	return nil
}

// streamed shows what a piece of the reply adds: its thinking as it
// comes, its text as far as it is known to be text. While every line has
// been prose, the text is known at every piece; after that, at every line
// the reply reader has read.
func (v *Turn) streamed(d protocol.Delta) {
	if d.Thinking != "" {
		v.think(d.Thinking)
	}
	if d.Content == "" {
		return
	}
	from := v.content.Len()
	v.content.Grow(len(d.Content)) // to twice its size, when it must grow
	v.content.WriteString(d.Content)
	content := v.content.String()
	if v.prose.on {
		v.prose.add(content, from)
		if v.prose.on {
			v.showStreamed(v.prose.Text())
			return
		}
		// A line that is not prose: what was shown of it may not be
		// text, and the reply reader says from here on.
		v.sync = unknown
	}
	// The reply reader reads complete lines: it is given the reply at each
	// newline, so that it does not look for one in a long line at every
	// piece, and only once the reply is not all prose.
	if strings.IndexByte(d.Content, '\n') >= 0 {
		v.reply.Add(content[v.given:])
		v.given = len(content)
		v.showStreamed(v.reply.Text())
	}
}

// think shows a piece of the thinking, dimmed, after a "Thinking:" label
// that sets it apart from the answer.
func (v *Turn) think(text string) {
	if !v.thinking {
		if v.shown != "" {
			fmt.Fprintln(v.Out) // the answer's line, which goes on below
		}
		fmt.Fprint(v.Out, v.Style.Dim("Thinking: "))
		v.thinking = true
	}
	io.WriteString(v.Out, v.Style.Dim(approve.Visible(text)))
	v.thought = true
}

// endThought ends the line of the thinking shown, before anything else.
func (v *Turn) endThought() {
	if v.thinking {
		fmt.Fprintln(v.Out)
		v.thinking = false
	}
}

// spinner are the frames of the activity indicator.
var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// spin draws the next frame of the activity indicator, leaving the cursor
// on it: text written next covers it, and clear erases it.
func (v *Turn) spin() {
	if !v.Activity {
		return
	}
	io.WriteString(v.Out, v.Style.Dim(spinner[v.frame%len(spinner)])+"\b")
	v.frame++
	v.drawn = true
}

// clear erases the activity indicator, if it is on screen.
func (v *Turn) clear() {
	if v.drawn {
		io.WriteString(v.Out, eraseLine)
		v.drawn = false
	}
}

// eraseLine erases the line from the cursor on.
const eraseLine = "\x1b[K"

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
	v.endThought()
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
	return protocol.Clip(body, 100)
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
	first, _, _ := strings.Cut(ErrorLines(body), "\n")
	return first
}

// maxErrorLines bounds the lines of an error the tool-error line shows.
const maxErrorLines = 6

// ErrorLines is an error body as the tool-error line shows it: its first
// line, and its last when that is a bracketed status such as a command's
// exit (ErrorLine is that line alone); then the lines between, indented, up to
// maxErrorLines lines in all, each clipped, and how many more there were.
// The lines that say where an edit went wrong are what a user needs of
// such an error.
func ErrorLines(body string) string {
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	var b strings.Builder
	b.WriteString(protocol.Clip(strings.TrimRight(lines[0], "\r"), 200))
	if last := lines[len(lines)-1]; len(lines) > 1 && strings.HasPrefix(last, "[") {
		b.WriteString(" ... " + protocol.Clip(last, 200))
		lines = lines[:len(lines)-1]
	}
	rest := lines[1:]
	for i, line := range rest {
		if i == maxErrorLines-2 && len(rest) > maxErrorLines-1 {
			fmt.Fprintf(&b, "\n%s… %s", errorIndent, plural.Count(len(rest)-i, "more line"))
			break
		}
		b.WriteString("\n" + errorIndent + protocol.Clip(strings.TrimRight(line, "\r"), 200))
	}
	return b.String()
}

// errorIndent sets the lines of an error after the first under it.
const errorIndent = "    "

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return protocol.Clip(line, 200)
}
