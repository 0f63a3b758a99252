package loop

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"slices"
	"time"
)

// Budget is the hook that stops a run the model would not stop. Each limit
// has its own unit; zero turns it off. A run is everything one Budget sees:
// one -p invocation, or a whole REPL conversation, with the conversations
// nested in it (see Config.Origin) when they share the Budget.
type Budget struct {
	ModelCalls int           // model calls in the run, nested ones included
	Time       time.Duration // wall-clock time spent in the main conversation's turns (not waiting for input)
	// OutputTokens bounds the output tokens the backend reported, nested
	// ones included. A reply whose use it did not report counts nothing
	// here: its tokens are unknown, not zero, and the turn's report says
	// how many replies went uncounted (Report.Unreported).
	OutputTokens int
	// Repeats stops a model that makes the same call with the same
	// arguments and gets the same result this many times within the last
	// Window calls of the run, all in one conversation: it is going round in
	// circles. A compaction of a conversation forgets its calls so far: a
	// model may well ask again for a result that was masked.
	Repeats int
	Window  int

	Now func() time.Time // nil means time.Now

	used      time.Duration // in main turns that ended
	turnStart time.Time     // of the main turn under way, or zero
	calls     int
	tokens    int
	recent    []repeat
}

// repeatSeed seeds the sums of Budget.recent, anew in each process.
var repeatSeed = maphash.MakeSeed()

// repeat is a call that ended, as Repeats compares calls: the
// conversation it was in, and a sum of its name, arguments and result.
// The sum is 64 bits of a hash seeded anew in each process, so that no
// two different calls of a run share it but by a chance far smaller than
// any other cause of a wrong stop; keeping the calls themselves would
// keep the last results, which may be long, alive.
type repeat struct {
	origin string
	sum    uint64
}

// Start returns ctx bounded by the time the run has left, for a turn about
// to start: a model call or tool still running when the time is up is
// interrupted, and the context's cause is the limit.
func (b *Budget) Start(ctx context.Context) (context.Context, context.CancelFunc) {
	if b.Time <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithDeadlineCause(ctx, b.now().Add(b.Time-b.elapsed()), b.timeUp())
}

// elapsed is the time spent in turns so far.
func (b *Budget) elapsed() time.Duration {
	if b.turnStart.IsZero() {
		return b.used
	}
	return b.used + b.now().Sub(b.turnStart)
}

func (b *Budget) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

func (b *Budget) timeUp() error {
	return &LimitError{Name: "max-time", Value: b.Time.String(), What: "of wall-clock time spent in turns"}
}

// Event checks the limits at the points where they can be seen. Only the
// main conversation's turns start and stop the clock: a nested turn runs
// inside a call of a main turn, whose time already counts.
func (b *Budget) Event(e Event) error {
	switch e.Kind {
	case TurnStarted:
		if e.Origin == "" {
			b.turnStart = b.now()
		}
	case TurnEnded:
		if e.Origin == "" {
			b.used, b.turnStart = b.elapsed(), time.Time{}
		}
	case StepStarted:
		if b.Time > 0 && b.elapsed() >= b.Time {
			return b.timeUp()
		}
		if b.ModelCalls > 0 && b.calls >= b.ModelCalls {
			return &LimitError{Name: "max-model-calls", Value: fmt.Sprint(b.ModelCalls), What: "model calls in the run"}
		}
		b.calls++
	case Replied:
		if !e.Reply.Usage.Known {
			return nil // unknown: see OutputTokens
		}
		b.tokens += e.Reply.Usage.OutputTokens
		if b.OutputTokens > 0 && b.tokens > b.OutputTokens {
			return &LimitError{Name: "max-output-tokens", Value: fmt.Sprint(b.OutputTokens), What: "output tokens in the run"}
		}
	case CallStarted:
		if b.Time > 0 && b.elapsed() >= b.Time {
			return b.timeUp()
		}
	case CallEnded:
		return b.repeated(e)
	case Compacted:
		b.recent = slices.DeleteFunc(b.recent, func(r repeat) bool { return r.origin == e.Origin })
	}
	return nil
}

func (b *Budget) repeated(e Event) error {
	if b.Repeats <= 0 || !e.Ran && !e.Result.Refused { // a refusal asked for again repeats too
		return nil
	}
	var h maphash.Hash
	h.SetSeed(repeatSeed)
	var size [8]byte
	field := func(s string) { // its length first, so that no field runs into the next
		h.Write(binary.LittleEndian.AppendUint64(size[:0], uint64(len(s))))
		h.WriteString(s)
	}
	args, _ := json.Marshal(e.Call.Args) // map keys come out sorted
	field(e.Call.Name)
	field(string(args))
	field(e.Result.Body)
	if e.Result.OK {
		h.WriteByte(1)
	} else {
		h.WriteByte(0)
	}
	key := repeat{e.Origin, h.Sum64()}
	window := max(b.Window, b.Repeats)
	b.recent = append(b.recent, key)
	if len(b.recent) > window {
		b.recent = b.recent[len(b.recent)-window:]
	}
	n := 0
	for _, k := range b.recent {
		if k == key {
			n++
		}
	}
	if n >= b.Repeats {
		return &LimitError{Name: "max-repeats", Value: fmt.Sprint(b.Repeats),
			What: fmt.Sprintf("identical calls with identical results within the last %d calls (%s)", window, e.Call.Name)}
	}
	return nil
}
