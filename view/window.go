package view

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"harness/loop"
	"harness/plural"
	"harness/protocol"
	"harness/window"
)

// Window shows the context window as the conversation goes: how full it
// is after each step (in the REPL), the summary a compaction asks the
// model for, and each compaction. It is a hook of the main conversation
// that comes after its Turn and writes where the Turn writes its log; the
// summaries' events reach it too (see SummaryHooks). /context asks it for
// the whole picture (Show).
type Window struct {
	W       io.Writer
	Style   Style
	Compact *window.Compactor // counts, compacts, and shares out the window
	Size    int               // the window, in tokens; set between turns only
	Steps   bool              // show the use after each step

	mu   sync.Mutex
	turn int                // of the main conversation
	step int                // its latest step that started
	sent []protocol.Message // what that step sent
}

// Event shows what the main conversation's events and the summaries' say
// about the window.
func (v *Window) Event(e loop.Event) error {
	switch e.Origin {
	case "":
	case window.SummaryOrigin:
		if e.Kind == loop.StepStarted {
			// The request is the messages to summarize, the system
			// prompt first and the instruction last.
			fmt.Fprintln(v.W, v.Style.Notice("compacting:")+fmt.Sprintf(" asking the model for a summary of %d earlier messages", len(e.Request.Messages)-2))
		}
		return nil
	default:
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	switch e.Kind {
	case loop.TurnStarted:
		v.turn, v.step, v.sent = e.Turn, 0, nil
	case loop.StepStarted:
		v.step, v.sent = e.Step, e.Request.Messages
	case loop.Replied:
		if v.Steps {
			fmt.Fprintln(v.W, v.Style.Dim(v.use(e.Reply)))
		}
	case loop.Compacted:
		fmt.Fprintln(v.W, v.Style.Notice("compacted:")+" "+Compacted(e.Compaction, v.Compact.Last()))
	}
	return nil
}

// use is the step line's use of the window after reply: the backend's
// count of the request and the reply when it reported one, an estimate
// (marked ~) when not.
func (v *Window) use(reply protocol.Reply) string {
	if u := reply.Usage; u.Known {
		return "ctx " + window.Short(u.PromptTokens+u.OutputTokens) + "/" + window.Short(v.Size)
	}
	n := v.Compact.Counter().Estimate(append(v.sent[:len(v.sent):len(v.sent)], protocol.Message{Role: protocol.Assistant, Content: reply.Content})...)
	return "ctx ~" + window.Short(n) + "/" + window.Short(v.Size)
}

// Compacted says what a compaction did, in one line: tokens and messages
// before and after, and how.
func Compacted(c loop.Compaction, r window.Report) string {
	var how []string
	if n := r.Masked - r.TooLarge; n > 0 {
		how = append(how, plural.Count(n, "older result")+" masked")
	}
	if r.TooLarge > 0 {
		how = append(how, plural.Count(r.TooLarge, "result")+" too large for the window elided")
	}
	if r.Summarized > 0 {
		how = append(how, plural.Count(r.Summarized, "message")+" summarized")
	}
	if r.SummaryErr != nil {
		how = append(how, "no summary: "+r.SummaryErr.Error())
	}
	s := fmt.Sprintf("%s -> %s tokens, %d -> %d messages", window.Short(c.BeforeTokens), window.Short(c.AfterTokens), c.Before, c.After)
	if len(how) > 0 {
		s += " (" + strings.Join(how, ", ") + ")"
	}
	return s
}

// SummaryHooks returns hooks that pass the events of a summary request on
// to hooks, each with the turn of the main conversation and the step it
// comes before: a summary is part of that step's compaction, and the
// budget, the record and the display count and show it there.
func (v *Window) SummaryHooks(hooks ...loop.Hook) []loop.Hook {
	out := make([]loop.Hook, len(hooks))
	for i, h := range hooks {
		out[i] = loop.HookFunc(func(e loop.Event) error {
			v.mu.Lock()
			e.Turn, e.Step = v.turn, v.step+1
			v.mu.Unlock()
			return h.Event(e)
		})
	}
	return out
}

// Show writes what the window holds for the conversation st, by part, as
// a small bar chart: the REPL's /context. instructions is the text of the
// project instructions the conversation holds, "" for none.
func (v *Window) Show(w io.Writer, st loop.State, instructions string) error {
	return v.Measure(st, instructions).Render(w)
}

// Measure is what the window holds for the conversation st, by part.
func (v *Window) Measure(st loop.State, instructions string) window.Breakdown {
	return v.Compact.Measure(st.Messages, st.Usage, v.Size, instructions)
}
