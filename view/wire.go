package view

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"harness/approve"
	"harness/loop"
	"harness/plural"
	"harness/protocol"
)

// Wire shows what the view of a turn leaves out. Always: the notes a
// result carries for the user alone, such as what a lie changed. With
// --show-wire: every message exactly as it went to the model and came
// back, each under a line giving its direction (=> sent, <= received),
// role and size. A request shows only the messages the model has not been
// shown yet, though the whole conversation goes each time, as its first
// line says. Each body shows as approve.Visible shows it: exactly, but
// for the characters that a terminal would act on, escaped. The wire shows
// each reply whole, thinking first: a Turn or a Nest on the same screen is
// told so (Turn.Wire, Nest.Wire) and leaves replies to it.
type Wire struct {
	w    io.Writer
	st   Style
	wire bool
	mu   sync.Mutex // nested conversations may run at once
	// convs holds, for each conversation (loop.Event.Origin), what was
	// last shown of it.
	convs map[string]*wireConv
}

// wireConv is what was last shown of one conversation.
type wireConv struct {
	sent  []protocol.Message // the messages of the last request
	stop  []string           // its stop sequences
	reply string             // the content of the last reply received
}

// NewWire returns the hook that shows the notes of results on w, and
// with wire every message as it goes to the model and comes back.
func NewWire(w io.Writer, st Style, wire bool) *Wire {
	return &Wire{w: w, st: st, wire: wire, convs: map[string]*wireConv{}}
}

var _ loop.Hook = (*Wire)(nil)

// Event shows e. It never stops a turn.
func (v *Wire) Event(e loop.Event) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	switch e.Kind {
	case loop.CallEnded:
		for line := range strings.Lines(e.Result.Note) {
			fmt.Fprintln(v.w, v.st.Notice(approve.Visible(strings.TrimRight(line, "\n"))))
		}
	case loop.StepStarted:
		if v.wire {
			v.request(e.Origin, e.Request)
		}
	case loop.Replied:
		if v.wire {
			v.received(e.Origin, "reply", e.Reply)
		}
	case loop.CallStarted:
		if v.wire {
			v.readAs(e.Origin, e.Call)
		}
	case loop.Interrupted:
		if v.wire {
			v.received(e.Origin, "interrupted reply, never run", e.Reply)
		}
	}
	return nil
}

// request shows the messages of req that were not in the last request of
// its conversation; all of them when the conversation was rewritten (a
// compaction) since.
func (v *Wire) request(origin string, req protocol.Request) {
	c := v.convs[origin]
	if c == nil {
		c = &wireConv{}
		v.convs[origin] = c
	}
	size := 0
	for _, m := range req.Messages {
		size += len(m.Content)
	}
	head := fmt.Sprintf("request%s: %s, %s", originSuffix(origin), plural.Count(len(req.Messages), "message"), plural.Count(size, "byte"))
	if !slices.Equal(req.Stop, c.stop) {
		head += ", stop at " + quoteAll(req.Stop)
	}
	from := 0
	switch {
	case len(c.sent) == 0:
		head += "; all new"
	case len(c.sent) <= len(req.Messages) && slices.Equal(c.sent, req.Messages[:len(c.sent)]):
		from = len(c.sent)
		head += fmt.Sprintf("; the first %d as sent before, then:", from)
	default:
		head += "; the conversation was rewritten since the last request, so all are shown"
	}
	v.frame("=>", head)
	for i, m := range req.Messages[from:] {
		n := from + i + 1
		if m.Role == protocol.Assistant && m.Content == c.reply && c.reply != "" {
			v.frame("=>", fmt.Sprintf("%d %s, %s: the reply received above, unchanged", n, m.Role, plural.Count(len(m.Content), "byte")))
			continue
		}
		v.frame("=>", fmt.Sprintf("%d %s, %s", n, m.Role, plural.Count(len(m.Content), "byte")))
		v.body(m.Content)
	}
	c.sent, c.stop = req.Messages, req.Stop
}

// received shows a reply as it arrived: its thinking, when the backend
// sent some apart, then its content.
func (v *Wire) received(origin, what string, r protocol.Reply) {
	if r.Thinking != "" {
		v.frame("<=", fmt.Sprintf("thinking%s, %s (never read for calls)", originSuffix(origin), plural.Count(len(r.Thinking), "byte")))
		v.body(r.Thinking)
	}
	done := r.DoneReason
	if done == "" {
		done = "not reported"
	}
	v.frame("<=", fmt.Sprintf("%s%s: %s, %s, done: %s", what, originSuffix(origin), protocol.Assistant, plural.Count(len(r.Content), "byte"), done))
	v.body(r.Content)
	if c := v.convs[origin]; c != nil {
		c.reply = r.Content
	}
}

// readAs says how a call that was not written as documented was read: in
// which shape, with which slips forgiven.
func (v *Wire) readAs(origin string, c protocol.Call) {
	if c.Shape == "" && len(c.Repairs) == 0 {
		return
	}
	how := "read as " + c.Shape
	if c.Shape == "" {
		how = "read as TOOL_CALL"
	}
	if len(c.Repairs) > 0 {
		how += "; forgiven: " + strings.Join(c.Repairs, ", ")
	}
	v.frame("<=", fmt.Sprintf("%s%s (reply line %d): %s", c.ID, originSuffix(origin), c.Line, approve.Visible(how)))
}

func (v *Wire) frame(dir, text string) {
	fmt.Fprintln(v.w, v.st.Dim(dir+" "+text))
}

// body writes text as it is, escaped as approve.Visible escapes it, ending
// it with a newline when it has none.
func (v *Wire) body(text string) {
	if text == "" {
		return
	}
	io.WriteString(v.w, approve.Visible(text))
	if !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(v.w)
	}
}

// originSuffix names a nested conversation, for the lines about it.
func originSuffix(origin string) string {
	if origin == "" {
		return ""
	}
	return " of " + origin
}

func quoteAll(ss []string) string {
	if len(ss) == 0 {
		return "nothing"
	}
	return protocol.QuoteAll(ss)
}
