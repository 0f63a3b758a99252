package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"harness/fakemodel"
	"harness/loop"
	"harness/protocol"
)

// compactor makes a function a loop.Compactor.
type compactor func(context.Context, loop.Conversation) ([]protocol.Message, bool, error)

func (f compactor) Compact(ctx context.Context, c loop.Conversation) ([]protocol.Message, bool, error) {
	return f(ctx, c)
}

// keepLast keeps the system prompt and the last message once the
// conversation has more than max messages.
func keepLast(max int) compactor {
	return func(_ context.Context, c loop.Conversation) ([]protocol.Message, bool, error) {
		if len(c.Messages) <= max {
			return nil, false, nil
		}
		return []protocol.Message{c.Messages[0], c.Messages[len(c.Messages)-1]}, true, nil
	}
}

func TestCompactionReplacesTheConversation(t *testing.T) {
	// The second turn starts with 7 messages: system, go, the calls, two
	// results, done, again. The compactor keeps the first and the last.
	h := newHarness(t, "", loop.Config{})
	model := &recording{model: script(t, firstTurn+`>>> expect=again
done again
`)}
	var events []loop.Event
	a := loop.New(model, h.set, loop.Config{System: "SYSTEM", Compactor: keepLast(6)}, loop.Observe(func(e loop.Event) {
		if e.Kind == loop.Compacted || e.Kind == loop.StepStarted {
			events = append(events, e)
		}
	}))
	ctx := context.Background()
	for _, input := range []string{"go", "again"} {
		if _, err := a.Turn(ctx, input); err != nil {
			t.Fatal(err)
		}
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.Kind.String())
	}
	equal(t, kinds, []string{"step", "step", "compacted", "step"})
	c := events[2].Compaction
	want := loop.Compaction{Before: 7, After: 2, BeforeBytes: len("SYSTEM"), AfterBytes: len("SYSTEM") + len("again")}
	for _, m := range []string{"go", firstTurnCalls, "TOOL_RESULT call_1 echo SUCCESS\necho: a", "TOOL_RESULT call_2 echo SUCCESS\necho: b", "done", "again"} {
		want.BeforeBytes += len(m)
	}
	if c != want {
		t.Errorf("Compaction = %+v, want %+v", c, want)
	}
	equal(t, contents(events[3].Request.Messages), []string{"system: SYSTEM", "user: again"})
	req, err := json.Marshal(protocol.Request{
		Messages: []protocol.Message{{Role: protocol.System, Content: "SYSTEM"}, {Role: protocol.User, Content: "again"}},
		Stop:     protocol.StopSequences(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if last := model.reqs[len(model.reqs)-1]; last != string(req) {
		t.Errorf("the model received\n%s\nwant\n%s", last, req)
	}
	equal(t, contents(a.Messages()), []string{"system: SYSTEM", "user: again", "assistant: done again"})
}

const firstTurnCalls = "TOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"a\"}}\nTOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"b\"}}"

// summarizeOnce replaces everything after the system prompt with one
// summary the first time the conversation has 4 messages (the input, a
// call and its result), and records what it was given.
func summarizeOnce(seen *[]loop.Conversation) compactor {
	done := false
	return func(_ context.Context, c loop.Conversation) ([]protocol.Message, bool, error) {
		*seen = append(*seen, c)
		if len(c.Messages) != 4 || done {
			return nil, false, nil
		}
		done = true
		return []protocol.Message{c.Messages[0], {Role: protocol.User, Content: "summary: a was echoed"}}, true, nil
	}
}

// TestCompactorSeesWindowAndUsage: the compactor is given the window and
// the usage of the last reply, unknown before the first.
func TestCompactorSeesWindowAndUsage(t *testing.T) {
	h := newHarness(t, "", loop.Config{})
	var seen []loop.Conversation
	model := script(t, `>>>
TOOL_CALL {"name":"echo","arguments":{"text":"a"}}
>>> expect="summary: a was echoed"
TOOL_CALL {"name":"echo","arguments":{"text":"b"}}
>>>
done
`)
	a := loop.New(model, h.set, loop.Config{System: "SYSTEM", Window: 8192, Compactor: summarizeOnce(&seen)})
	if _, err := a.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 {
		t.Fatalf("the compactor was asked %d times, want once per step (3)", len(seen))
	}
	for i, c := range seen {
		if c.Window != 8192 {
			t.Errorf("step %d: window %d", i+1, c.Window)
		}
	}
	// The fake model counts a token per 4 bytes of the request.
	tokens := func(s string) int { return (len(s) + 3) / 4 }
	if seen[0].Usage.Known {
		t.Errorf("step 1: usage %+v before any reply", seen[0].Usage)
	}
	if u := seen[1].Usage; !u.Known || u.PromptTokens != tokens("SYSTEM"+"go") {
		t.Errorf("step 2: usage %+v, want the first reply's", u)
	}
	if u := seen[2].Usage; !u.Known || u.PromptTokens != tokens("SYSTEM"+"summary: a was echoed") {
		t.Errorf("step 3: usage %+v, want the reply to the compacted request", u)
	}
}

// TestUsageUnknownAfterCompaction: a compaction whose step then failed
// leaves the usage unknown: the last reply measured what was replaced.
func TestUsageUnknownAfterCompaction(t *testing.T) {
	h := newHarness(t, "", loop.Config{})
	var seen []loop.Conversation
	model := script(t, ">>>\nTOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"a\"}}\n")
	a := loop.New(model, h.set, loop.Config{System: "SYSTEM", Compactor: summarizeOnce(&seen)})
	if _, err := a.Turn(context.Background(), "go"); !errors.Is(err, fakemodel.ErrExhausted) {
		t.Fatalf("err = %v", err)
	}
	st := a.State()
	equal(t, contents(st.Messages), []string{"system: SYSTEM", "user: summary: a was echoed"})
	if st.Usage.Known {
		t.Errorf("usage %+v after a compaction", st.Usage)
	}
}

func TestCompactionErrors(t *testing.T) {
	errBroken := errors.New("compactor broken")
	tests := []struct {
		name string
		c    compactor
		want error
	}{
		{name: "the compactor fails", want: errBroken,
			c: func(context.Context, loop.Conversation) ([]protocol.Message, bool, error) {
				return nil, false, errBroken
			}},
		{name: "the system prompt is dropped", want: loop.ErrConversation,
			c: func(_ context.Context, c loop.Conversation) ([]protocol.Message, bool, error) {
				return c.Messages[1:], true, nil
			}},
		{name: "nothing is left", want: loop.ErrConversation,
			c: func(context.Context, loop.Conversation) ([]protocol.Message, bool, error) { return nil, true, nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "", loop.Config{})
			model := script(t, ">>> expect=one\nfirst\n>>>\nnever\n")
			a := loop.New(model, h.set, loop.Config{System: "SYSTEM"})
			if _, err := a.Turn(context.Background(), "one"); err != nil {
				t.Fatal(err)
			}
			b, err := loop.Resume(model, h.set, loop.Config{System: "SYSTEM", Compactor: tt.c}, a.State())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.Turn(context.Background(), "two"); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if model.Remaining() != 1 {
				t.Error("the model was called after the compactor failed")
			}
			equal(t, contents(b.Messages()), contents(a.Messages()))
		})
	}
}

// TestFailedFirstStepUndoesCompaction: the conversation a first step that
// failed leaves is the one the turn began with, even when it was compacted.
func TestFailedFirstStepUndoesCompaction(t *testing.T) {
	h := newHarness(t, "", loop.Config{})
	model := script(t, ">>> expect=one\nfirst\n")
	a := loop.New(model, h.set, loop.Config{System: "SYSTEM", Compactor: keepLast(3)})
	if _, err := a.Turn(context.Background(), "one"); err != nil {
		t.Fatal(err)
	}
	before := a.State()
	if _, err := a.Turn(context.Background(), "two"); !errors.Is(err, fakemodel.ErrExhausted) {
		t.Fatalf("err = %v", err)
	}
	after := a.State()
	equal(t, contents(after.Messages), contents(before.Messages))
	if after.Usage != before.Usage {
		t.Errorf("usage %+v, want %+v", after.Usage, before.Usage)
	}
}

// counting is a compactor that also counts tokens.
type counting struct {
	compactor
	before, after int
}

func (c counting) Tokens() (int, int) { return c.before, c.after }

// TestCompactedCarriesTokens: a Compactor that counts tokens has its
// counts in the Compacted event; one that does not leaves them 0.
func TestCompactedCarriesTokens(t *testing.T) {
	for _, tt := range []struct {
		name          string
		c             loop.Compactor
		before, after int
	}{
		{"a token counter", counting{compactor: keepLast(2), before: 900, after: 120}, 900, 120},
		{"no token counter", keepLast(2), 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "", loop.Config{})
			model := script(t, ">>>\nTOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"a\"}}\n>>>\ndone\n")
			var got []loop.Compaction
			a := loop.New(model, h.set, loop.Config{System: "SYSTEM", Compactor: tt.c}, loop.Observe(func(e loop.Event) {
				if e.Kind == loop.Compacted {
					got = append(got, e.Compaction)
				}
			}))
			if _, err := a.Turn(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("%d compactions, want 1", len(got))
			}
			if got[0].BeforeTokens != tt.before || got[0].AfterTokens != tt.after || got[0].Before != 4 || got[0].After != 2 {
				t.Errorf("Compaction = %+v, want tokens %d -> %d and messages 4 -> 2", got[0], tt.before, tt.after)
			}
		})
	}
}
