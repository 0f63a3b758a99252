package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"harness/loop"
	"harness/protocol"
)

// How much of what a stopped child had found its result keeps: the last
// notes and calls, up to these.
const (
	maxNoteBytes = 4 << 10
	maxCalls     = 30
)

// child runs the task in a new conversation with the tools of k, started by
// call, and returns its result for the parent.
func (t *Tools) child(ctx context.Context, call protocol.Call, k *kind, task string) protocol.Result {
	w := &witness{}
	cfg := loop.Config{
		System:          k.system(),
		MaxSteps:        t.cfg.MaxSteps,
		MaxFormatErrors: t.cfg.MaxFormatErrors,
		IsTest:          t.cfg.IsTest,
		Target:          t.cfg.Target,
		Parse:           t.cfg.Parse,
		Origin:          call.ID,
	}
	tools := &childTools{inner: t.inner, kind: k, origin: call.ID}
	a := loop.New(t.cfg.Model, tools, cfg, loop.HookFunc(t.event), loop.Observe(w.event))
	answer, err := a.Turn(ctx, task)
	if t.cfg.Done != nil {
		t.mu.Lock() // as the hooks are: one child at a time
		t.cfg.Done(call.ID, a.State())
		t.mu.Unlock()
	}
	res := protocol.Result{CallID: call.ID, Tool: call.Name}
	if w.report != nil {
		res.Wrote = len(w.report.Changed) > 0
	}
	if err == nil {
		res.OK = true
		res.Body = answer + "\n\n[report of the helper: " + w.summary() + "]"
		return res
	}
	res.Body = stopped(err, t.cfg.MaxSteps) + "\n" + w.found()
	return res
}

// stopped says why a child ended without an answer, naming its step limit
// by the setting that sets it.
func stopped(err error, maxSteps int) string {
	var limit *loop.LimitError
	switch {
	case errors.As(err, &limit) && limit.Name == "max-steps":
		limit = &loop.LimitError{Name: "agent-max-steps", Value: fmt.Sprint(maxSteps), What: "steps in a helper's turn"}
		return "The helper " + limit.Error() + "."
	case errors.As(err, &limit):
		return "The helper " + limit.Error() + ", a limit of the whole run."
	case errors.Is(err, context.Canceled):
		return "interrupted: the helper was stopped before it finished."
	}
	return "The helper did not finish: " + err.Error() + "."
}

// witness keeps what a child did, from its events: the text of its replies,
// its calls and its report.
type witness struct {
	notes  []string
	calls  []string
	report *loop.Report
}

func (w *witness) event(e loop.Event) {
	switch e.Kind {
	case loop.Replied:
		if text := strings.TrimSpace(e.Parsed.Text); text != "" {
			w.notes = append(w.notes, text)
		}
	case loop.CallEnded:
		args, _ := json.Marshal(e.Call.Args) // map keys come out sorted
		status := protocol.Success
		if !e.Result.OK {
			status = protocol.Error + ": " + protocol.Clip(firstLine(e.Result.Body), 200)
		}
		w.calls = append(w.calls, e.Call.Name+" "+protocol.Clip(string(args), 120)+": "+status)
	case loop.TurnEnded:
		w.report = e.Report
	}
}

func (w *witness) summary() string {
	if w.report == nil {
		return "none"
	}
	return w.report.Summary()
}

// found says what a child that was stopped had found so far: the text of
// its replies, its calls and its report, the latest of each when there
// are many.
func (w *witness) found() string {
	var b strings.Builder
	b.WriteString("What the helper had found so far:\n")
	notes := strings.Join(w.notes, "\n")
	if cut := len(notes) - maxNoteBytes; cut > 0 {
		for cut < len(notes) && !utf8.RuneStart(notes[cut]) {
			cut++
		}
		notes = "..." + notes[cut:]
	}
	if notes == "" {
		notes = "(it wrote nothing besides its calls)"
	}
	b.WriteString(notes + "\n")
	if len(w.calls) > 0 {
		calls := w.calls
		if len(calls) > maxCalls {
			fmt.Fprintf(&b, "Its last %d calls of %d:\n", maxCalls, len(calls))
			calls = calls[len(calls)-maxCalls:]
		} else {
			b.WriteString("Its calls:\n")
		}
		for _, c := range calls {
			b.WriteString("- " + c + "\n")
		}
	}
	b.WriteString("[report of the helper: " + w.summary() + "]")
	return b.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
