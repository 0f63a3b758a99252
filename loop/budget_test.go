package loop_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"harness/fakemodel"
	"harness/loop"
	"harness/protocol"
)

func TestBudget(t *testing.T) {
	echo := func(text string) string {
		return ">>>\nTOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"" + text + "\"}}\n"
	}
	tests := []struct {
		name    string
		script  string
		budget  loop.Budget
		compact bool // compact once, before the third step
		limit   string
		runs    int64
	}{
		{name: "model calls", script: echo("a") + echo("b") + echo("c"), budget: loop.Budget{ModelCalls: 2}, limit: "max-model-calls", runs: 2},
		// The fake model reports a quarter of the reply's bytes as tokens.
		{name: "output tokens", script: echo("a") + ">>>\n" + strings.Repeat("x", 400) + "\n", budget: loop.Budget{OutputTokens: 50}, limit: "max-output-tokens", runs: 1},
		{name: "repeats", script: echo("a") + echo("b") + echo("a") + echo("a"), budget: loop.Budget{Repeats: 3, Window: 4}, limit: "max-repeats", runs: 4},
		{name: "repeats outside the window do not count", script: echo("a") + echo("b") + echo("c") + echo("a") + echo("a") + ">>>\ndone\n",
			budget: loop.Budget{Repeats: 3, Window: 3}, runs: 5},
		// The compactor masks results before the third step, after two
		// identical calls: the calls after it count from none.
		{name: "a compaction forgets the calls before it", script: echo("a") + echo("a") + echo("a") + echo("a") + ">>>\ndone\n",
			budget: loop.Budget{Repeats: 3, Window: 8}, compact: true, runs: 4},
		{name: "repeats after a compaction count", script: echo("a") + echo("a") + echo("a") + echo("a") + echo("a") + echo("a") + ">>>\ndone\n",
			budget: loop.Budget{Repeats: 3, Window: 8}, compact: true, limit: "max-repeats", runs: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.budget
			h := newHarness(t, tt.script, loop.Config{})
			cfg := loop.Config{}
			if tt.compact {
				cfg.Compactor = compactOnceAt(6)
			}
			h.agent = loop.New(h.model, h.set, cfg, &b)
			_, err := h.agent.Turn(context.Background(), "go")
			if tt.limit == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
			} else {
				var le *loop.LimitError
				if !errors.As(err, &le) || le.Name != tt.limit {
					t.Fatalf("err = %v, want limit %s", err, tt.limit)
				}
			}
			if got := h.runs.Load(); got != tt.runs {
				t.Errorf("tool ran %d times, want %d", got, tt.runs)
			}
		})
	}
}

func TestBudgetTime(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := &loop.Budget{Time: time.Minute, Now: func() time.Time { return now }}
	h := newHarness(t, ">>>\nTOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"a\"}}\n>>>\nTOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"b\"}}\n", loop.Config{})
	h.agent = loop.New(h.model, h.set, loop.Config{}, b, loop.Observe(func(e loop.Event) {
		if e.Kind == loop.CallEnded {
			now = now.Add(2 * time.Minute) // the call took longer than the whole budget
		}
	}))
	_, err := h.agent.Turn(context.Background(), "go")
	var le *loop.LimitError
	if !errors.As(err, &le) || le.Name != "max-time" || le.Value != "1m0s" {
		t.Fatalf("err = %v", err)
	}
	if h.runs.Load() != 1 {
		t.Errorf("ran %d calls", h.runs.Load())
	}
}

// TestBudgetTimeCountsOnlyTurns: time between turns, at the REPL's prompt,
// does not use up the run's time.
func TestBudgetTimeCountsOnlyTurns(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := &loop.Budget{Time: time.Minute, Now: func() time.Time { return now }}
	step := func() error { return b.Event(loop.Event{Kind: loop.StepStarted}) }
	b.Event(loop.Event{Kind: loop.TurnStarted})
	now = now.Add(40 * time.Second)
	b.Event(loop.Event{Kind: loop.TurnEnded})
	now = now.Add(time.Hour) // the user went for lunch
	b.Event(loop.Event{Kind: loop.TurnStarted})
	if err := step(); err != nil {
		t.Fatalf("idle time counted: %v", err)
	}
	now = now.Add(25 * time.Second)
	if err := step(); err == nil {
		t.Fatal("65 s of turns passed a 1 min limit")
	}
}

func TestBudgetStartBoundsTheContext(t *testing.T) {
	b := &loop.Budget{Time: 30 * time.Millisecond}
	s, _ := fakemodel.Parse("t", []byte(">>> delay=10s\nslow\n"))
	h := newHarness(t, "", loop.Config{})
	agent := loop.New(fakemodel.New(s), h.set, loop.Config{}, b)
	ctx, cancel := b.Start(context.Background())
	defer cancel()
	_, err := agent.Turn(ctx, "go")
	var le *loop.LimitError
	if !errors.As(err, &le) || le.Name != "max-time" {
		t.Fatalf("err = %v, want the time limit", err)
	}
}

func TestBudgetUnreportedUsageIsUnknown(t *testing.T) {
	b := &loop.Budget{OutputTokens: 1}
	for _, e := range []loop.Event{
		{Kind: loop.Replied, Reply: protocol.Reply{Content: strings.Repeat("x", 1000)}},
		{Kind: loop.Replied, Reply: protocol.Reply{Content: "y"}},
	} {
		if err := b.Event(e); err != nil {
			t.Fatalf("unreported usage counted as tokens: %v", err)
		}
	}
}

// TestBudgetNested: a conversation nested in a call of the main one shares
// its Budget. Its model calls and tokens count; its turns do not start or
// stop the clock, which runs while the main turn does.
func TestBudgetNested(t *testing.T) {
	type step struct {
		wait  time.Duration // before the event
		e     loop.Event
		limit string // the limit the event hits, or ""
	}
	main := func(k loop.Kind) loop.Event { return loop.Event{Kind: k} }
	nested := func(k loop.Kind) loop.Event { return loop.Event{Kind: k, Origin: "call_1"} }
	replied := func(origin string, tokens int) loop.Event {
		return loop.Event{Kind: loop.Replied, Origin: origin, Reply: protocol.Reply{Usage: protocol.Usage{Known: true, OutputTokens: tokens}}}
	}
	ended := func(origin, body string) loop.Event {
		return loop.Event{Kind: loop.CallEnded, Origin: origin, Ran: true, Call: protocol.Call{Name: "echo"}, Result: protocol.Result{OK: true, Body: body}}
	}
	tests := []struct {
		name   string
		budget loop.Budget
		steps  []step
	}{
		{name: "a nested turn does not restart the main turn's clock", budget: loop.Budget{Time: time.Minute}, steps: []step{
			{e: main(loop.TurnStarted)},
			{wait: 40 * time.Second, e: nested(loop.TurnStarted)},
			{wait: 10 * time.Second, e: nested(loop.TurnEnded)},
			{wait: 15 * time.Second, e: main(loop.StepStarted), limit: "max-time"},
		}},
		{name: "a nested turn's end does not stop the clock", budget: loop.Budget{Time: time.Minute}, steps: []step{
			{e: main(loop.TurnStarted)},
			{e: nested(loop.TurnStarted)},
			{e: nested(loop.TurnEnded)},
			{wait: 70 * time.Second, e: main(loop.CallStarted), limit: "max-time"},
		}},
		{name: "nested steps see the main turn's time", budget: loop.Budget{Time: time.Minute}, steps: []step{
			{e: main(loop.TurnStarted)},
			{wait: 30 * time.Second, e: nested(loop.TurnStarted)},
			{e: nested(loop.StepStarted)},
			{wait: 31 * time.Second, e: nested(loop.StepStarted), limit: "max-time"},
		}},
		{name: "time between main turns does not count", budget: loop.Budget{Time: time.Minute}, steps: []step{
			{e: main(loop.TurnStarted)},
			{wait: 50 * time.Second, e: main(loop.TurnEnded)},
			{wait: time.Hour, e: main(loop.TurnStarted)},
			{e: nested(loop.TurnStarted)},
			{wait: 5 * time.Second, e: nested(loop.TurnEnded)},
			{e: main(loop.StepStarted)},
		}},
		{name: "nested model calls count", budget: loop.Budget{ModelCalls: 2}, steps: []step{
			{e: main(loop.StepStarted)},
			{e: nested(loop.StepStarted)},
			{e: main(loop.StepStarted), limit: "max-model-calls"},
		}},
		{name: "nested output tokens count", budget: loop.Budget{OutputTokens: 10}, steps: []step{
			{e: replied("", 6)},
			{e: replied("call_1", 6), limit: "max-output-tokens"},
		}},
		{name: "repeats count within one conversation", budget: loop.Budget{Repeats: 2, Window: 8}, steps: []step{
			{e: ended("", "same")},
			{e: ended("call_1", "same")},
			{e: ended("", "same"), limit: "max-repeats"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			b := tt.budget
			b.Now = func() time.Time { return now }
			for i, s := range tt.steps {
				now = now.Add(s.wait)
				err := b.Event(s.e)
				var le *loop.LimitError
				switch {
				case s.limit == "" && err != nil:
					t.Fatalf("event %d (%v %q): %v", i, s.e.Kind, s.e.Origin, err)
				case s.limit != "" && (!errors.As(err, &le) || le.Name != s.limit):
					t.Fatalf("event %d (%v %q): err = %v, want limit %s", i, s.e.Kind, s.e.Origin, err, s.limit)
				}
			}
		})
	}
}

// compactOnceAt changes the conversation once, the first time it has n
// messages, as a compaction does: here by keeping it as it is.
func compactOnceAt(n int) compactor {
	done := false
	return func(_ context.Context, c loop.Conversation) ([]protocol.Message, bool, error) {
		if done || len(c.Messages) != n {
			return nil, false, nil
		}
		done = true
		return c.Messages, true, nil
	}
}

// refusing refuses every call before it runs, as an approval gate does.
type refusing struct{ loop.Tools }

func (r refusing) Run(_ context.Context, call protocol.Call) protocol.Result {
	return protocol.Result{CallID: call.ID, Tool: call.Name, Body: "Not run: refused.", Refused: true}
}

// A call refused before it began did not run, and the events say so; a
// model that asks for it again and again still meets the repeat limit.
func TestRefusedCallsDidNotRunAndStillRepeat(t *testing.T) {
	echo := ">>>\nTOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"a\"}}\n"
	h := newHarness(t, strings.Repeat(echo, 4)+">>>\ndone\n", loop.Config{})
	var ran []bool
	b := &loop.Budget{Repeats: 3, Window: 8}
	h.agent = loop.New(h.model, refusing{h.set}, loop.Config{System: "SYSTEM"}, b, loop.Observe(func(e loop.Event) {
		if e.Kind == loop.CallEnded {
			ran = append(ran, e.Ran)
		}
	}))
	_, err := h.agent.Turn(context.Background(), "go")
	var le *loop.LimitError
	if !errors.As(err, &le) || le.Name != "max-repeats" {
		t.Fatalf("err = %v, want the repeat limit", err)
	}
	if len(ran) != 3 || ran[0] || ran[1] || ran[2] {
		t.Errorf("ran = %v, want three calls that did not run", ran)
	}
}

// Calls repeat only when all of them is the same: the conversation, the
// tool, the arguments, whether it succeeded, and the result.
func TestRepeatsCompareWholeCalls(t *testing.T) {
	call := func(origin, name, arg string, ok bool, body string) loop.Event {
		return loop.Event{Kind: loop.CallEnded, Origin: origin, Ran: true,
			Call: protocol.Call{Name: name, Args: map[string]any{"text": arg}}, Result: protocol.Result{OK: ok, Body: body}}
	}
	first := call("", "echo", "a", true, "a\n")
	for _, tt := range []struct {
		name   string
		second loop.Event
		limit  bool
	}{
		{"the same", call("", "echo", "a", true, "a\n"), true},
		{"another conversation", call("call_1", "echo", "a", true, "a\n"), false},
		{"another tool", call("", "say", "a", true, "a\n"), false},
		{"other arguments", call("", "echo", "b", true, "a\n"), false},
		{"failed", call("", "echo", "a", false, "a\n"), false},
		{"another result", call("", "echo", "a", true, "b\n"), false},
		// Written one after the other, the two calls' name, arguments
		// and result read the same: echo{"text":"a"}null…
		{"fields running into each other", loop.Event{Kind: loop.CallEnded, Ran: true,
			Call: protocol.Call{Name: `echo{"text":"a"}`}, Result: protocol.Result{OK: true, Body: "a\n"}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &loop.Budget{Repeats: 2, Window: 8}
			first := first
			if tt.name == "fields running into each other" {
				first.Result.Body = "null" + first.Result.Body
			}
			if err := b.Event(first); err != nil {
				t.Fatal(err)
			}
			err := b.Event(tt.second)
			var le *loop.LimitError
			if got := errors.As(err, &le) && le.Name == "max-repeats"; got != tt.limit {
				t.Errorf("limit %v, want %v (err %v)", got, tt.limit, err)
			}
		})
	}
}
