package loop

import "harness/protocol"

// Kind says what happened.
type Kind int

const (
	TurnStarted Kind = iota // Text: the user's input
	StepStarted             // a model call is about to be made
	Streamed                // Delta: a piece of the reply as it arrives
	Replied                 // Reply and Parsed: the complete reply of the step
	CallStarted             // Call: a call is about to run (or be refused)
	CallEnded               // Call and Result
	Noticed                 // Text: something the user should know, e.g. a dropped forged result
	TurnEnded               // Text: the final answer, when there is one
)

// Event is one thing that happened in a turn, in the order it happened.
// Only the fields named for its Kind are set.
type Event struct {
	Kind   Kind
	Turn   int
	Step   int
	Text   string
	Delta  protocol.Delta
	Reply  protocol.Reply
	Parsed protocol.Parsed
	Call   protocol.Call
	Result protocol.Result
}

// Observer receives events as they happen. It runs on the loop's goroutine
// and should return quickly.
type Observer func(Event)
