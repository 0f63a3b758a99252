package loop

import (
	"errors"
	"fmt"
	"slices"

	"harness/protocol"
)

// State is a conversation as it stands between turns: enough to continue it
// in another Agent, or another process (it marshals to JSON as it is).
type State struct {
	// Messages is the conversation; the first is the system prompt.
	Messages []protocol.Message
	Turn     int            // turns started so far, less those that left nothing (their first step failed)
	Calls    int            // calls numbered so far: the next is call_<Calls+1>
	Usage    protocol.Usage // of the last reply, for the Compactor
}

// ErrConversation is wrapped by the errors that reject a conversation the
// Agent was given: by Resume, or by a Compactor.
var ErrConversation = errors.New("invalid conversation")

// State returns the conversation so far. It shares nothing with the Agent:
// changing it changes neither.
func (a *Agent) State() State {
	return State{Messages: a.Messages(), Turn: a.turn, Calls: a.calls, Usage: a.usage}
}

// View returns the conversation so far without copying it: its Messages
// share the Agent's array, which the Agent never writes over (see edit), so
// a View taken once holds the same messages however the conversation goes
// on. It is for a reader that keeps the conversation as it was, such as a
// writer that saves it at every step: the caller must not change its
// messages. State is the copy to change or hand on.
func (a *Agent) View() State {
	return State{Messages: slices.Clip(a.msgs), Turn: a.turn, Calls: a.calls, Usage: a.usage}
}

// Messages returns a copy of the conversation so far.
func (a *Agent) Messages() []protocol.Message { return slices.Clone(a.msgs) }

// Resume builds an Agent that continues the conversation st, as the Agent
// it was saved from would have: its next request is the one that Agent
// would have sent, and call ids go on from st.Calls. The conversation must
// start with cfg.System as its system prompt: to continue under a new
// prompt, replace st.Messages[0] first. Resume returns an error wrapping
// ErrConversation when st cannot be continued.
func Resume(model Model, tools Tools, cfg Config, st State, hooks ...Hook) (*Agent, error) {
	if err := check(cfg.System, st.Messages); err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	if st.Turn < 0 || st.Calls < 0 {
		return nil, fmt.Errorf("resume: %w: negative turn (%d) or call count (%d)", ErrConversation, st.Turn, st.Calls)
	}
	a := newAgent(model, tools, cfg, hooks)
	a.edit(0, st.Messages...)
	a.turn, a.calls, a.usage = st.Turn, st.Calls, st.Usage
	return a, nil
}

// check reports whether msgs can be the conversation of an Agent whose
// system prompt is system.
func check(system string, msgs []protocol.Message) error {
	switch {
	case len(msgs) == 0:
		return fmt.Errorf("%w: no messages", ErrConversation)
	case msgs[0] != protocol.Message{Role: protocol.System, Content: system}:
		return fmt.Errorf("%w: the first message is not the system prompt", ErrConversation)
	}
	return nil
}

// edit is the only place the conversation changes: it keeps its first keep
// messages and appends add. Requests and events share the conversation's
// array, so a message once handed out is never written over: appends go
// past the end of every slice handed out, and a conversation cut shorter is
// clipped, so that its next append copies it to a new array.
func (a *Agent) edit(keep int, add ...protocol.Message) {
	if keep < len(a.msgs) {
		a.msgs = slices.Clip(a.msgs[:keep])
	}
	a.msgs = append(a.msgs, add...)
}
