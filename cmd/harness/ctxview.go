package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"harness/loop"
	"harness/protocol"
	"harness/window"
)

// ctxview shows the context window as the conversation goes: how full it
// is after each step (in the REPL), the summary a compaction asks the
// model for, and each compaction. It is a hook of the main conversation
// that comes after the view and writes where the view writes its log; the
// summaries' events reach it too (see summaryHooks). /context asks it for
// the whole picture (show).
type ctxview struct {
	w     io.Writer
	st    style
	comp  *window.Compactor // counts, compacts, and shares out the window
	size  int               // the window, in tokens
	steps bool              // show the use after each step

	mu   sync.Mutex
	turn int                // of the main conversation
	step int                // its latest step that started
	sent []protocol.Message // what that step sent
}

// Event shows what the main conversation's events and the summaries' say
// about the window.
func (v *ctxview) Event(e loop.Event) error {
	switch e.Origin {
	case "":
	case window.SummaryOrigin:
		if e.Kind == loop.StepStarted {
			// The request is the messages to summarize, the system
			// prompt first and the instruction last.
			fmt.Fprintln(v.w, v.st.notice("compacting:")+fmt.Sprintf(" asking the model for a summary of %d earlier messages", len(e.Request.Messages)-2))
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
		if v.steps {
			fmt.Fprintln(v.w, v.st.dim(v.use(e.Reply)))
		}
	case loop.Compacted:
		fmt.Fprintln(v.w, v.st.notice("compacted:")+" "+compacted(e.Compaction, v.comp.Last()))
	}
	return nil
}

// use is the step line's use of the window after reply: the backend's
// count of the request and the reply when it reported one, an estimate
// (marked ~) when not.
func (v *ctxview) use(reply protocol.Reply) string {
	if u := reply.Usage; u.Known {
		return "ctx " + window.Short(u.PromptTokens+u.OutputTokens) + "/" + window.Short(v.size)
	}
	n := v.comp.Counter().Estimate(append(v.sent[:len(v.sent):len(v.sent)], protocol.Message{Role: protocol.Assistant, Content: reply.Content})...)
	return "ctx ~" + window.Short(n) + "/" + window.Short(v.size)
}

// compacted says what a compaction did, in one line: tokens and messages
// before and after, and how.
func compacted(c loop.Compaction, r window.Report) string {
	var how []string
	if n := r.Masked - r.TooLarge; n > 0 {
		how = append(how, plural(n, "older result", "older results")+" masked")
	}
	if r.TooLarge > 0 {
		how = append(how, plural(r.TooLarge, "result", "results")+" too large for the window elided")
	}
	if r.Summarized > 0 {
		how = append(how, plural(r.Summarized, "message", "messages")+" summarized")
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

// summaryHooks returns hooks that pass the events of a summary request on
// to hooks, each with the turn of the main conversation and the step it
// comes before: a summary is part of that step's compaction, and the
// budget, the record and the display count and show it there.
func (v *ctxview) summaryHooks(hooks ...loop.Hook) []loop.Hook {
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

// show writes what the window holds for the conversation st, by part, as
// a small bar chart: the REPL's /context. instructions is the text of the
// project instructions the conversation holds, "" for none.
func (v *ctxview) show(w io.Writer, st loop.State, instructions string) error {
	return v.measure(st, instructions).Render(w)
}

// measure is what the window holds for the conversation st, by part.
func (v *ctxview) measure(st loop.State, instructions string) window.Breakdown {
	return v.comp.Measure(st.Messages, st.Usage, v.size, instructions)
}

// mcpShare is how many of the main conversation's tools are those of MCP
// servers, and their share of the system prompt's tokens in d: in
// proportion to the bytes they add to the prompt the protocol builds.
func (r *runner) mcpShare(d window.Breakdown) (n, tokens int) {
	var names []string
	for _, st := range r.mcp.Status() {
		for _, t := range st.Tools {
			names = append(names, t.Name)
		}
	}
	specs := r.tools.Specs()
	fixed := protocol.SystemPrompt(r.root, specs)
	ours := slices.DeleteFunc(slices.Clone(specs), func(s protocol.ToolSpec) bool { return slices.Contains(names, s.Name) })
	n = len(specs) - len(ours)
	if n == 0 {
		return 0, 0
	}
	added := len(fixed) - len(protocol.SystemPrompt(r.root, ours))
	return n, d.Tokens[window.SystemPrompt] * added / len(fixed)
}

// instructions is the text the project instructions (AGENTS.md, SYSTEM.md)
// added to the system prompt, for show: "" when there are none, or when the
// system prompt is a saved one that begins otherwise.
func (r *runner) instructions() string {
	return instructionsIn(r.cfg.System, protocol.SystemPrompt(r.root, r.tools.Specs()))
}

// instructionsIn is the text that system, a conversation's system prompt,
// adds to fixed, the prompt the protocol builds for its workspace and
// tools: "" when system does not begin with fixed.
func instructionsIn(system, fixed string) string {
	text, ok := strings.CutPrefix(system, fixed)
	if !ok {
		return ""
	}
	return text
}
