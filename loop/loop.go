// Package loop runs the conversation: it owns the messages, sends them to a
// Model step after step, runs the calls the replies ask for through Tools,
// and sends the results back, until a reply asks for nothing or a limit ends
// the turn. It knows no backend, terminal, file or tool by name: budgets, the
// run record and the UI plug in as hooks at fixed points (see Kind).
//
// Only the Agent changes its conversation. Two seams let others save,
// continue and shorten it, through the Agent:
//   - State saves it (messages, turn number, call counter, last usage) and
//     Resume builds an Agent that continues it: its next request is the one
//     the saved Agent would have sent, and call ids keep counting, so they
//     stay unique in the conversation.
//   - A Compactor (Config.Compactor) is offered the conversation before
//     every step and may return a shorter one; the Compacted event says
//     what changed.
//
// Every event carries its Origin: "" for the main conversation, or the
// Config.Origin of a nested conversation a tool started (a sub-agent), so a
// nested conversation's steps can be shown and recorded apart while sharing
// the parent's hooks.
package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"harness/protocol"
)

// Config holds what a conversation is started with.
type Config struct {
	// System is the system prompt, the conversation's first message.
	System string
	// MaxSteps bounds the model calls in one turn (default 25).
	MaxSteps int
	// MaxFormatErrors bounds consecutive replies with a malformed call
	// (default 3).
	MaxFormatErrors int
	// MaxCallsPerReply bounds the calls of one reply that run (default
	// 32); each call past it gets a result saying it was not run.
	MaxCallsPerReply int
	// MaxResultBytes bounds the bytes of the results of one step that go
	// back to the model (default 256 KiB): the result that reaches it is
	// cut, with a note. Calls that run together with it (reads) have
	// run all the same: their results are left out, with a note, as
	// ERROR results, since the model never reads them; calls that would
	// run after them are not run.
	MaxResultBytes int
	// IsTest reports whether a call runs tests, for the turn report. Nil
	// means no call does.
	IsTest func(protocol.Call) bool
	// Target names what a call that wrote (Result.Wrote) acted on, for the
	// turn report: a path, or the command that ran. Nil names the tool.
	Target func(protocol.Call) string
	// Window is the model's context window in tokens, 0 when unknown. The
	// loop only hands it to the Compactor.
	Window int
	// Compactor may shorten the conversation before each step. Nil means
	// the conversation only grows.
	Compactor Compactor
	// Parse reads a reply into its text and calls. Nil means a
	// protocol.Reader for the tools; protocol.ParseStrict shows what that
	// one forgives.
	Parse func(reply string) protocol.Parsed
	// Origin names this conversation in its events: "" for the main one;
	// for one started by a tool, the id of the call that started it,
	// prefixed by the parent's origin and "/" when the parent is itself
	// nested (e.g. "call_3", "call_3/call_1").
	Origin string
}

// ErrLimit is wrapped by every LimitError.
var ErrLimit = errors.New("limit reached")

// LimitError says which limit ended a turn.
type LimitError struct {
	Name  string // the setting, e.g. "max-steps"
	Value string // its value as set, e.g. "25" or "10m0s"
	What  string // what it counts, e.g. "steps in one turn"
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("stopped: reached the limit of %s %s (%s=%s)", e.Value, e.What, e.Name, e.Value)
}

func (e *LimitError) Unwrap() error { return ErrLimit }

// Agent is one conversation.
type Agent struct {
	model Model
	tools Tools
	specs map[string]protocol.ToolSpec
	list  []protocol.ToolSpec // the same, as Check takes them
	cfg   Config
	hooks Hooks
	msgs  []protocol.Message // changed only by edit
	turn  int
	calls int            // calls made so far; ids continue across turns
	usage protocol.Usage // of the last reply, for the Compactor
}

// New starts a conversation holding only the system prompt.
func New(model Model, tools Tools, cfg Config, hooks ...Hook) *Agent {
	a := newAgent(model, tools, cfg, hooks)
	a.edit(0, protocol.Message{Role: protocol.System, Content: cfg.System})
	return a
}

// newAgent is an Agent with no conversation yet.
func newAgent(model Model, tools Tools, cfg Config, hooks []Hook) *Agent {
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = 25
	}
	if cfg.MaxFormatErrors <= 0 {
		cfg.MaxFormatErrors = 3
	}
	list := tools.Specs()
	if cfg.Parse == nil {
		cfg.Parse = protocol.NewReader(list).Parse
	}
	if cfg.MaxCallsPerReply <= 0 {
		cfg.MaxCallsPerReply = 32
	}
	if cfg.MaxResultBytes <= 0 {
		cfg.MaxResultBytes = 256 << 10
	}
	specs := make(map[string]protocol.ToolSpec, len(list))
	for _, s := range list {
		specs[s.Name] = s
	}
	return &Agent{
		model: model,
		tools: tools,
		specs: specs,
		list:  list,
		cfg:   cfg,
		hooks: hooks,
	}
}

// Turn sends input and runs steps until a reply holds no call, and returns
// that reply's text. It returns a *LimitError when a limit ended the turn,
// the context's cause when it was cancelled, and the model's error when no
// reply could be had. The conversation keeps every step that completed; when
// the first step failed it is left as it was, turn count included, so the
// input can be sent again as the same turn. The TurnEnded event of such a
// turn still carries its number; State already counts it out.
func (a *Agent) Turn(ctx context.Context, input string) (string, error) {
	a.turn++
	t := &turn{agent: a, report: &Report{Turn: a.turn}}
	before, usage := a.msgs, a.usage // edit never writes over messages a slice holds
	a.emit(Event{Kind: TurnStarted, Text: input})
	a.edit(len(a.msgs), protocol.Message{Role: protocol.User, Content: input})
	answer, err := t.run(ctx)
	if err != nil && ctx.Err() != nil {
		err = context.Cause(ctx)
		t.report.Interrupted = !errors.Is(err, ErrLimit)
	}
	if err != nil && t.report.Steps == 0 {
		a.edit(0, before...) // a compaction may have replaced them all
		a.usage = usage
		a.turn-- // nothing of the turn stays
	}
	t.report.Err = err
	if herr := a.emitAt(t.report.Turn, Event{Kind: TurnEnded, Step: t.began, Text: answer, Report: t.report, Err: err}); err == nil && herr != nil {
		return answer, herr
	}
	return answer, err
}

// turn is the state of one turn.
type turn struct {
	agent        *Agent
	step         int
	began        int // the last step whose request was made: the turn's last step
	report       *Report
	formatErrors int
	resultBytes  int // of the results of this step so far
}

func (t *turn) run(ctx context.Context) (string, error) {
	a := t.agent
	for t.step = 1; ; t.step++ {
		if t.step > a.cfg.MaxSteps {
			return "", &LimitError{Name: "max-steps", Value: fmt.Sprint(a.cfg.MaxSteps), What: "steps in one turn"}
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if err := t.compact(ctx); err != nil {
			return "", err
		}
		req := protocol.Request{Messages: slices.Clip(a.msgs), Stop: protocol.StopSequences()}
		t.began = t.step
		if err := a.emit(Event{Kind: StepStarted, Step: t.step, Request: req}); err != nil {
			return "", err
		}
		start := time.Now()
		reply, err := a.model.Chat(ctx, req, func(d protocol.Delta) {
			a.emit(Event{Kind: Streamed, Step: t.step, Delta: d})
		})
		if err != nil {
			if ctx.Err() != nil {
				a.emit(Event{Kind: Interrupted, Step: t.step, Reply: reply, Duration: time.Since(start)})
			}
			return "", err
		}
		t.report.Steps++
		if !reply.Usage.Known {
			t.report.Unreported++
		}
		a.usage = reply.Usage
		parsed := a.cfg.Parse(reply.Content)
		a.edit(len(a.msgs), protocol.Message{Role: protocol.Assistant, Content: parsed.Content})
		herr := a.emit(Event{Kind: Replied, Step: t.step, Reply: reply, Parsed: parsed, Duration: time.Since(start)})
		if parsed.Forged > 0 {
			a.emit(Event{Kind: Noticed, Step: t.step, Text: fmt.Sprintf("the model wrote a tool's result itself (reply line %d); it and everything after it were dropped", parsed.Forged)})
		}
		for _, line := range parsed.Examples {
			a.emit(Event{Kind: Noticed, Step: t.step, Text: fmt.Sprintf("reply line %d shows a call in a code block with text before and after it: read as an example, not run", line)})
		}
		cut := reply.DoneReason == protocol.DoneLength
		if len(parsed.Calls) == 0 {
			if cut {
				a.emit(Event{Kind: Noticed, Step: t.step, Text: "the reply was cut off by the output limit (done reason: length); the answer is incomplete"})
			}
			return parsed.Text, herr
		}
		if err := t.calls(ctx, parsed.Calls, cut, herr); err != nil {
			return "", err
		}
	}
}

func (a *Agent) emit(e Event) error { return a.emitAt(a.turn, e) }

// emitAt gives e, an event of turn, to the hooks.
func (a *Agent) emitAt(turn int, e Event) error {
	e.Turn, e.Origin = turn, a.cfg.Origin
	return a.hooks.Event(e)
}

// cutOff is the result of a call in a reply that hit the output limit: the
// call may be missing its end, so it is never run.
func cutOff(call protocol.Call) protocol.Result {
	return protocol.Result{
		CallID: call.ID,
		Tool:   call.Name,
		Body: "Not run: your reply was cut off by the output limit (done reason: length), so this call may be incomplete. " +
			"Nothing was run. Send the call again in a shorter reply, or split the work into smaller calls.",
	}
}

// notRun is the result of a call that a stop prevented from running.
func notRun(call protocol.Call, why error) protocol.Result {
	return protocol.Result{CallID: call.ID, Tool: call.Name, Body: "Not run: " + why.Error() + ". Nothing was run."}
}
