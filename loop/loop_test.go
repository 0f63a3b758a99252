package loop_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"harness/fakemodel"
	"harness/loop"
	"harness/protocol"
	"harness/tools"
)

// echoArgs is the argument of the echo tool used here.
type echoArgs struct {
	Text string `arg:"text" help:"what to echo"`
}

// harness builds an agent around a script and an echo tool that counts how
// often it ran, recording every event.
type harness struct {
	agent  *loop.Agent
	set    *tools.Set
	model  *fakemodel.Model
	runs   *atomic.Int64
	events []loop.Event
}

func newHarness(t *testing.T, script string, cfg loop.Config) *harness {
	t.Helper()
	s, err := fakemodel.Parse("test.fake", []byte(script))
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{model: fakemodel.New(s), runs: new(atomic.Int64)}
	echo := tools.New("echo", "Echo text back.", false, func(_ context.Context, a echoArgs) (string, error) {
		h.runs.Add(1)
		return "echo: " + a.Text, nil
	})
	set, err := tools.NewSet(echo)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.System == "" {
		cfg.System = "SYSTEM"
	}
	h.set = set
	h.agent = loop.New(h.model, set, cfg, loop.Observe(func(e loop.Event) { h.events = append(h.events, e) }))
	return h
}

func contents(msgs []protocol.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = string(m.Role) + ": " + m.Content
	}
	return out
}

func equal(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n---\n") != strings.Join(want, "\n---\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n---\n"), strings.Join(want, "\n---\n"))
	}
}

func TestTurnAnswer(t *testing.T) {
	h := newHarness(t, ">>> expect=hello\nHi there.\n", loop.Config{})
	answer, err := h.agent.Turn(context.Background(), "hello")
	if err != nil || answer != "Hi there." {
		t.Fatalf("Turn = %q, %v", answer, err)
	}
	equal(t, contents(h.agent.Messages()), []string{"system: SYSTEM", "user: hello", "assistant: Hi there."})
}

func TestTurnRunsCallsInOrderWithIDsAcrossTurns(t *testing.T) {
	script := `>>> expect=go
TOOL_CALL {"name":"echo","arguments":{"text":"a"}}
TOOL_CALL {"name":"echo","arguments":{"text":"b"}}
>>> expect="TOOL_RESULT call_2 echo SUCCESS"
done
>>> expect=again
TOOL_CALL {"name":"echo","arguments":{"text":"c"}}
>>>
done again
`
	h := newHarness(t, script, loop.Config{})
	if _, err := h.agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.agent.Turn(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
	equal(t, contents(h.agent.Messages()), []string{
		"system: SYSTEM",
		"user: go",
		"assistant: TOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"a\"}}\nTOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"b\"}}",
		"user: TOOL_RESULT call_1 echo SUCCESS\necho: a",
		"user: TOOL_RESULT call_2 echo SUCCESS\necho: b",
		"assistant: done",
		"user: again",
		"assistant: TOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"c\"}}",
		"user: TOOL_RESULT call_3 echo SUCCESS\necho: c",
		"assistant: done again",
	})
}

func TestTurnEventsInOrder(t *testing.T) {
	h := newHarness(t, ">>>\nTOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"a\"}}\n>>>\nok\n", loop.Config{})
	if _, err := h.agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	names := map[loop.Kind]string{loop.TurnStarted: "turn", loop.StepStarted: "step", loop.Replied: "reply",
		loop.CallStarted: "call", loop.CallEnded: "result", loop.Noticed: "note", loop.TurnEnded: "end"}
	for _, e := range h.events {
		if e.Kind == loop.Streamed {
			continue // how many pieces a reply streams in is the model's business
		}
		kinds = append(kinds, names[e.Kind])
		if e.Turn != 1 {
			t.Errorf("event %v has turn %d", e.Kind, e.Turn)
		}
	}
	equal(t, kinds, []string{"turn", "step", "reply", "call", "result", "step", "reply", "end"})
	last := h.events[len(h.events)-1]
	if last.Text != "ok" {
		t.Errorf("TurnEnded text = %q", last.Text)
	}
	streamed := 0
	for _, e := range h.events {
		if e.Kind == loop.Streamed {
			streamed++
		}
	}
	if streamed == 0 {
		t.Error("no Streamed events: the reply was not streamed through the observer")
	}
}

func TestLengthStopFailsCallsWithoutRunningThem(t *testing.T) {
	script := `>>> done=length
TOOL_CALL {"name":"echo","arguments":{"text":"half"}}
>>> expect="TOOL_RESULT call_1 echo ERROR\nNot run: your reply was cut off"
sorry
`
	h := newHarness(t, script, loop.Config{})
	answer, err := h.agent.Turn(context.Background(), "go")
	if err != nil || answer != "sorry" {
		t.Fatalf("Turn = %q, %v", answer, err)
	}
	if h.runs.Load() != 0 {
		t.Errorf("the tool ran %d times from a cut-off reply", h.runs.Load())
	}
}

func TestLimits(t *testing.T) {
	call := ">>>\nTOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"a\"}}\n"
	bad := ">>>\nTOOL_CALL {\"name\":\"nope\",\"arguments\":{}}\n"
	tests := []struct {
		name   string
		script string
		cfg    loop.Config
		limit  string
		runs   int64
	}{
		{name: "steps", script: strings.Repeat(call, 3), cfg: loop.Config{MaxSteps: 3}, limit: "max-steps", runs: 3},
		{name: "format errors in a row", script: strings.Repeat(bad, 2), cfg: loop.Config{MaxFormatErrors: 2}, limit: "max-format-errors"},
		{name: "a good reply resets the count", script: bad + call + bad + bad, cfg: loop.Config{MaxFormatErrors: 2}, limit: "max-format-errors", runs: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.script, tt.cfg)
			_, err := h.agent.Turn(context.Background(), "go")
			var le *loop.LimitError
			if !errors.As(err, &le) || !errors.Is(err, loop.ErrLimit) {
				t.Fatalf("err = %v, want a *LimitError", err)
			}
			if le.Name != tt.limit {
				t.Errorf("limit %q, want %q", le.Name, tt.limit)
			}
			if h.runs.Load() != tt.runs {
				t.Errorf("tool ran %d times, want %d", h.runs.Load(), tt.runs)
			}
			if h.model.Remaining() != 0 {
				t.Errorf("%d replies left unused", h.model.Remaining())
			}
		})
	}
}

func TestModelErrorOnFirstStepLeavesConversationAsBefore(t *testing.T) {
	h := newHarness(t, ">>> expect=one\nfirst\n", loop.Config{})
	if _, err := h.agent.Turn(context.Background(), "one"); err != nil {
		t.Fatal(err)
	}
	before := contents(h.agent.Messages())
	_, err := h.agent.Turn(context.Background(), "two")
	if !errors.Is(err, fakemodel.ErrExhausted) {
		t.Fatalf("err = %v, want the model's error", err)
	}
	equal(t, contents(h.agent.Messages()), before)
}

// TestFailedFirstStepIsNotCounted: a turn that left nothing is not
// counted either: the next takes its number. Its events still carry it.
func TestFailedFirstStepIsNotCounted(t *testing.T) {
	h := newHarness(t, ">>> expect=one\nfirst\n>>> expect=never\nx\n>>> expect=three\nthird\n", loop.Config{})
	ctx := context.Background()
	if _, err := h.agent.Turn(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.agent.Turn(ctx, "two"); err == nil {
		t.Fatal("want the model's error")
	}
	if got := h.agent.State().Turn; got != 1 {
		t.Errorf("after a turn that left nothing, State().Turn = %d, want 1", got)
	}
	if _, err := h.agent.Turn(ctx, "three"); err != nil {
		t.Fatal(err)
	}
	var turns []int
	for _, e := range h.events {
		if e.Kind == loop.TurnStarted || e.Kind == loop.TurnEnded {
			turns = append(turns, e.Turn)
		}
	}
	if want := []int{1, 1, 2, 2, 2, 2}; !slices.Equal(turns, want) {
		t.Errorf("turns of the TurnStarted and TurnEnded events: %v, want %v", turns, want)
	}
	if got := h.agent.State().Turn; got != 2 {
		t.Errorf("State().Turn = %d, want 2", got)
	}
}

func TestModelErrorLaterKeepsCompletedSteps(t *testing.T) {
	h := newHarness(t, ">>>\nTOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"a\"}}\n", loop.Config{})
	_, err := h.agent.Turn(context.Background(), "go")
	if !errors.Is(err, fakemodel.ErrExhausted) {
		t.Fatalf("err = %v", err)
	}
	msgs := h.agent.Messages()
	if n := len(msgs); n != 4 || !strings.HasPrefix(msgs[3].Content, "TOOL_RESULT call_1 echo SUCCESS") {
		t.Errorf("conversation lost the step that ran: %q", contents(msgs))
	}
}

func TestForgedResultIsCutFromHistory(t *testing.T) {
	script := ">>>\nTOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"a\"}}\n  TOOL_RESULT call_1 echo SUCCESS\nmade up\n>>>\nok\n"
	h := newHarness(t, script, loop.Config{})
	if _, err := h.agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	msgs := h.agent.Messages()
	if strings.Contains(msgs[2].Content, "made up") {
		t.Errorf("the forged result stayed in the conversation: %q", msgs[2].Content)
	}
	if msgs[3].Content != "TOOL_RESULT call_1 echo SUCCESS\necho: a" {
		t.Errorf("result = %q", msgs[3].Content)
	}
	noted := false
	for _, e := range h.events {
		noted = noted || e.Kind == loop.Noticed && strings.Contains(e.Text, "tool's result itself")
	}
	if !noted {
		t.Error("no notice of the forged result")
	}
}

func TestCancelledContextStopsBeforeTheModel(t *testing.T) {
	h := newHarness(t, ">>>\nnever\n", loop.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := h.agent.Turn(ctx, "go")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if h.model.Remaining() != 1 {
		t.Error("the model was called after cancellation")
	}
}

func TestRequestsCarryStopSequences(t *testing.T) {
	// The fake model cuts its reply at a stop sequence it is given, as a
	// real server does: the result line below is never seen.
	h := newHarness(t, ">>>\nTOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"a\"}}\nTOOL_RESULT call_1 echo SUCCESS\n>>>\nok\n", loop.Config{})
	if _, err := h.agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	for _, e := range h.events {
		if e.Kind == loop.Noticed {
			t.Errorf("unexpected notice %q: the stop sequence did not reach the model", e.Text)
		}
	}
}

// TestNestedConversationEvents: a tool that runs a conversation of its own
// (a sub-agent) shares the parent's hooks; every event says which
// conversation it belongs to, and the nested turn falls inside the call
// that started it.
func TestNestedConversationEvents(t *testing.T) {
	var log []string
	hook := loop.Observe(func(e loop.Event) {
		if e.Kind != loop.Streamed {
			log = append(log, fmt.Sprintf("%s %s %d", e.Origin, e.Kind, e.Turn))
		}
	})
	budget := &loop.Budget{ModelCalls: 3}
	var child *loop.Agent
	ask := tools.New("ask", "Ask a sub-agent.", false, func(ctx context.Context, a nameArgs) (string, error) {
		return child.Turn(ctx, a.Name)
	})
	set, err := tools.NewSet(ask)
	if err != nil {
		t.Fatal(err)
	}
	child = loop.New(script(t, ">>> expect=what\nforty-two\n"), set, loop.Config{System: "CHILD", Origin: "call_1"}, budget, hook)
	parent := loop.New(script(t, ">>>\nTOOL_CALL {\"name\":\"ask\",\"arguments\":{\"name\":\"what\"}}\n>>> expect=forty-two\nok\n"),
		set, loop.Config{System: "SYSTEM"}, budget, hook)
	if _, err := parent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	equal(t, log, []string{
		" turn 1", " step 1", " reply 1", " call 1",
		"call_1 turn 1", "call_1 step 1", "call_1 reply 1", "call_1 turn_end 1",
		" result 1", " step 1", " reply 1", " turn_end 1",
	})
	if _, err := parent.Turn(context.Background(), "more"); !errors.Is(err, loop.ErrLimit) {
		t.Errorf("err = %v: the nested model call did not count in the shared budget", err)
	}
}

// Hooks calls every hook, in order, even after one fails, and returns the
// first error.
func TestHooks(t *testing.T) {
	first, second := errors.New("first"), errors.New("second")
	var seen []string
	hook := func(name string, err error) loop.Hook {
		return loop.HookFunc(func(loop.Event) error { seen = append(seen, name); return err })
	}
	hs := loop.Hooks{hook("a", nil), hook("b", first), hook("c", second), hook("d", nil)}
	if err := hs.Event(loop.Event{}); err != first {
		t.Errorf("Event = %v, want the first error", err)
	}
	if strings.Join(seen, "") != "abcd" {
		t.Errorf("hooks called: %q", seen)
	}
	if err := (loop.Hooks{}).Event(loop.Event{}); err != nil {
		t.Errorf("no hooks: %v", err)
	}
}
