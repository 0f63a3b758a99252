package loop

import (
	"time"

	"harness/protocol"
)

// Kind says at which point of a turn an event happens. The points, in the
// order a turn passes them:
//
//	TurnStarted   the user's input is about to join the conversation
//	Compacted     before a step, the Compactor shortened the conversation
//	StepStarted   before a model call (Request is what will be sent)
//	Streamed      a piece of the reply as it arrives (never an error point)
//	Replied       after a complete reply, before any of its calls runs
//	Interrupted   the model call was interrupted; Reply holds what had arrived
//	CallStarted   before a call runs (all calls that run together first)
//	CallEnded     after a call ran or was refused, in call order
//	Noticed       something the user should know (never an error point)
//	TurnEnded     the turn is over; Report says what ran
//
// A nested conversation (see Config.Origin) passes the same points inside a
// call of its parent, between the parent's CallStarted and CallEnded.
type Kind int

const (
	TurnStarted Kind = iota
	StepStarted
	Streamed
	Replied
	Interrupted
	CallStarted
	CallEnded
	Noticed
	TurnEnded
	Compacted // last, not in turn order: the values of the others stay as they were
)

var kindNames = [...]string{"turn", "step", "stream", "reply", "interrupted", "call", "result", "notice", "turn_end", "compacted"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Event is one thing that happened in a turn. Only the fields named for its
// Kind are set.
type Event struct {
	Kind Kind
	Turn int
	Step int
	// Origin is the conversation the event belongs to, and whose Turn and
	// Step it gives: "" for the main one, Config.Origin for a nested one
	// (e.g. "call_3").
	Origin string

	Text     string           // TurnStarted: the input; Noticed: the notice; TurnEnded: the answer
	Request  protocol.Request // StepStarted
	Delta    protocol.Delta   // Streamed
	Reply    protocol.Reply   // Replied, Interrupted
	Parsed   protocol.Parsed  // Replied
	Call     protocol.Call    // CallStarted, CallEnded
	Writes   bool             // CallStarted, CallEnded: the tool may change the workspace
	Result   protocol.Result  // CallEnded
	Ran      bool             // CallEnded: the call ran (false: refused before running, by the loop or Result.Refused)
	Duration time.Duration    // Replied, Interrupted: the model call; CallEnded: the call
	Report   *Report          // TurnEnded
	Err      error            // TurnEnded: why the turn ended without an answer

	Compaction Compaction // Compacted
}

// Hook is plugged into the loop at every point above, in the order hooks
// were given to New: budgets, the recorder and the UI are hooks. A hook that
// returns an error at Compacted, StepStarted, Replied, CallStarted or
// CallEnded ends the turn with that error; calls that were not run by then
// get an ERROR result saying so. Errors at other points are ignored, except at TurnEnded, where
// the first one is returned when the turn itself had none.
type Hook interface {
	Event(Event) error
}

// Hooks is several hooks as one: each sees every event, in order, and
// Event returns the first error, as the loop calls its own.
type Hooks []Hook

func (hs Hooks) Event(e Event) error {
	var first error
	for _, h := range hs {
		if err := h.Event(e); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// HookFunc makes a function a Hook.
type HookFunc func(Event) error

func (f HookFunc) Event(e Event) error { return f(e) }

// Observe makes a function that cannot fail a Hook.
func Observe(f func(Event)) Hook {
	return HookFunc(func(e Event) error { f(e); return nil })
}
