package chat

import (
	"fmt"
	"harness/approve"
	"harness/loop"
	"harness/record"
	"io"
	"sync"
	"sync/atomic"
)

// Approvals keeps the gate's decisions: in the run's records, with the
// turn and step each was made in, and on the log for the refusals
// that no question on the screen told of. It is a loop hook, to know the
// turn.
type Approvals struct {
	Log     io.Writer
	Records []*record.Recorder // the run's (see Chat.Records)
	turn    atomic.Int64
	step    atomic.Int64
	mu      sync.Mutex // calls that only read may run, and be decided, at once
}

// Event keeps the turn and step that decisions are made in: the main
// conversation's, which a helper's calls run inside.
func (a *Approvals) Event(e loop.Event) error {
	if e.Origin != "" {
		return nil
	}
	switch e.Kind {
	case loop.TurnStarted:
		a.turn.Store(int64(e.Turn))
		a.step.Store(0)
	case loop.StepStarted:
		a.step.Store(int64(e.Step))
	}
	return nil
}

// Decided records a decision of the gate. Decisions nobody answered are
// also shown, since no question on the screen told of them.
func (a *Approvals) Decided(d approve.Decision) {
	word := decisionWord(d)
	if word == "" {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	question := "run"
	if d.Question.Kind == approve.Send {
		question = "send"
	}
	for _, r := range a.Records {
		r.Approval(int(a.turn.Load()), int(a.step.Load()), d.Call.ID, d.Call.Name, question, word)
	}
	if h := hint(d); h != "" {
		fmt.Fprintf(a.Log, "approval: %s %s refused: %s (--approve %s)\n", d.Call.ID, d.Call.Name, d.Why, h)
	}
}

// decisionWord is the record's word for a decision a person made or could
// not make, or for mode deny; "" for one the mode or the check made alone,
// which the call and result lines already tell.
func decisionWord(d approve.Decision) string {
	switch d.Outcome {
	case approve.UserYes:
		return "yes"
	case approve.UserAlways, approve.AlwaysBefore:
		return "always"
	case approve.UserNo, approve.ModeDenied, approve.WithheldBefore:
		return "no"
	case approve.Unanswered, approve.Interrupted, approve.SecretKept:
		return "nobody"
	}
	return ""
}

// hint completes "(--approve ...)" after a refusal that no question on the
// screen told of; it is "" for the decisions the screen already shows.
func hint(d approve.Decision) string {
	switch d.Outcome {
	case approve.ModeDenied:
		return "deny refuses every call"
	case approve.Unanswered:
		return "all runs calls without asking, secrets aside"
	case approve.SecretKept:
		return "all keeps protected files and secrets; with ask, you are asked"
	}
	return ""
}

var _ loop.Hook = (*Approvals)(nil)
