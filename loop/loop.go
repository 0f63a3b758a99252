// Package loop runs the conversation: it owns the messages, sends them to a
// Model step after step, runs the calls the replies ask for through Tools,
// and sends the results back, until a reply asks for nothing or a limit ends
// the turn. It knows no backend, terminal, file or tool by name.
package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"harness/protocol"
)

// Config holds what a conversation is started with.
type Config struct {
	// System is the system prompt, the conversation's first message.
	System string
	// MaxSteps bounds the model calls in one turn.
	MaxSteps int
	// MaxFormatErrors bounds consecutive replies with a malformed call.
	MaxFormatErrors int
}

// ErrLimit is wrapped by every LimitError.
var ErrLimit = errors.New("limit reached")

// LimitError says which limit ended a turn.
type LimitError struct {
	Name  string // the setting, e.g. "max-steps"
	Value int
	What  string // its unit, e.g. "steps in one turn"
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("stopped: reached the limit of %d %s (%s=%d)", e.Value, e.What, e.Name, e.Value)
}

func (e *LimitError) Unwrap() error { return ErrLimit }

// Agent is one conversation.
type Agent struct {
	model Model
	tools Tools
	specs []protocol.ToolSpec
	cfg   Config
	obs   Observer
	msgs  []protocol.Message
	turn  int
	calls int // calls made so far; ids continue across turns
}

// New starts a conversation holding only the system prompt. obs may be nil.
func New(model Model, tools Tools, obs Observer, cfg Config) *Agent {
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = 25
	}
	if cfg.MaxFormatErrors <= 0 {
		cfg.MaxFormatErrors = 3
	}
	if obs == nil {
		obs = func(Event) {}
	}
	return &Agent{
		model: model,
		tools: tools,
		specs: tools.Specs(),
		cfg:   cfg,
		obs:   obs,
		msgs:  []protocol.Message{{Role: protocol.System, Content: cfg.System}},
	}
}

// Messages returns a copy of the conversation so far.
func (a *Agent) Messages() []protocol.Message { return slices.Clone(a.msgs) }

// Turn sends input and runs steps until a reply holds no call, and returns
// that reply's text. It returns a *LimitError when a limit ended the turn,
// and the model's error when no reply could be had; then the conversation
// keeps every step that completed, or, when the first step failed, is left
// as it was before the turn, so the input can simply be sent again.
func (a *Agent) Turn(ctx context.Context, input string) (string, error) {
	a.turn++
	before := len(a.msgs)
	a.emit(Event{Kind: TurnStarted, Text: input})
	a.msgs = append(a.msgs, protocol.Message{Role: protocol.User, Content: input})
	formatErrors := 0
	for step := 1; ; step++ {
		if step > a.cfg.MaxSteps {
			return "", a.end(&LimitError{Name: "max-steps", Value: a.cfg.MaxSteps, What: "steps in one turn"})
		}
		if err := ctx.Err(); err != nil {
			return "", a.end(err)
		}
		a.emit(Event{Kind: StepStarted, Step: step})
		req := protocol.Request{Messages: slices.Clip(a.msgs), Stop: protocol.StopSequences()}
		reply, err := a.model.Chat(ctx, req, func(d protocol.Delta) {
			a.emit(Event{Kind: Streamed, Step: step, Delta: d})
		})
		if err != nil {
			if step == 1 {
				a.msgs = a.msgs[:before]
			}
			return "", a.end(err)
		}
		parsed := protocol.Parse(reply.Content)
		a.msgs = append(a.msgs, protocol.Message{Role: protocol.Assistant, Content: parsed.Content})
		a.emit(Event{Kind: Replied, Step: step, Reply: reply, Parsed: parsed})
		if parsed.Forged > 0 {
			a.emit(Event{Kind: Noticed, Step: step, Text: fmt.Sprintf("the model wrote a TOOL_RESULT line itself (reply line %d); it and everything after it were dropped", parsed.Forged)})
		}
		cut := reply.DoneReason == protocol.DoneLength
		if len(parsed.Calls) == 0 {
			if cut {
				a.emit(Event{Kind: Noticed, Step: step, Text: "the reply was cut off by the output limit (done reason: length); the answer is incomplete"})
			}
			a.emit(Event{Kind: TurnEnded, Step: step, Text: parsed.Text})
			return parsed.Text, nil
		}
		malformed := false
		for _, call := range parsed.Calls {
			a.calls++
			call.ID = protocol.CallID(a.calls)
			a.emit(Event{Kind: CallStarted, Step: step, Call: call})
			var res protocol.Result
			if cut {
				res = cutOff(call)
			} else if err := protocol.Check(a.specs, &call); err != nil {
				malformed = true
				res = protocol.Rejected(call, err)
			} else {
				res = a.tools.Run(ctx, call)
				res.CallID, res.Tool = call.ID, call.Name
			}
			a.emit(Event{Kind: CallEnded, Step: step, Call: call, Result: res})
			a.msgs = append(a.msgs, res.Message())
		}
		if !malformed {
			formatErrors = 0
			continue
		}
		if formatErrors++; formatErrors >= a.cfg.MaxFormatErrors {
			return "", a.end(&LimitError{Name: "max-format-errors", Value: a.cfg.MaxFormatErrors, What: "replies in a row with a malformed call"})
		}
	}
}

func (a *Agent) end(err error) error {
	a.emit(Event{Kind: TurnEnded})
	return err
}

func (a *Agent) emit(e Event) {
	e.Turn = a.turn
	a.obs(e)
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
