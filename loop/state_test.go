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

// recording is a Model that keeps, as JSON, every request it is given
// before passing it on: what the model receives, byte for byte.
type recording struct {
	model loop.Model
	reqs  []string
}

func (r *recording) Chat(ctx context.Context, req protocol.Request, stream func(protocol.Delta)) (protocol.Reply, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return protocol.Reply{}, err
	}
	r.reqs = append(r.reqs, string(b))
	return r.model.Chat(ctx, req, stream)
}

func script(t *testing.T, text string) *fakemodel.Model {
	t.Helper()
	s, err := fakemodel.Parse("test.fake", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return fakemodel.New(s)
}

const (
	firstTurn = `>>> expect=go
TOOL_CALL {"name":"echo","arguments":{"text":"a"}}
TOOL_CALL {"name":"echo","arguments":{"text":"b"}}
>>> expect="TOOL_RESULT call_2 echo SUCCESS"
done
`
	secondTurn = `>>> expect=again
TOOL_CALL {"name":"echo","arguments":{"text":"c"}}
>>> expect="TOOL_RESULT call_3 echo SUCCESS"
done again
`
)

// TestResumeSendsWhatTheOriginalWould: an Agent resumed from a saved state
// (through JSON, as it would be stored) sends the model exactly the requests
// the original Agent sends when it goes on, and its call ids go on counting.
func TestResumeSendsWhatTheOriginalWould(t *testing.T) {
	h := newHarness(t, "", loop.Config{})
	cfg := loop.Config{System: "SYSTEM", MaxSteps: 5}
	original := &recording{model: script(t, firstTurn+secondTurn)}
	a := loop.New(original, h.set, cfg)
	if _, err := a.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	saved, err := json.Marshal(a.State())
	if err != nil {
		t.Fatal(err)
	}
	var st loop.State
	if err := json.Unmarshal(saved, &st); err != nil {
		t.Fatal(err)
	}
	if st.Turn != 1 || st.Calls != 2 || !st.Usage.Known {
		t.Errorf("state = turn %d, calls %d, usage %+v", st.Turn, st.Calls, st.Usage)
	}

	restored := &recording{model: script(t, secondTurn)}
	var turns []int
	b, err := loop.Resume(restored, h.set, cfg, st, loop.Observe(func(e loop.Event) { turns = append(turns, e.Turn) }))
	if err != nil {
		t.Fatal(err)
	}
	before := len(original.reqs)
	for _, agent := range []*loop.Agent{a, b} {
		if answer, err := agent.Turn(context.Background(), "again"); err != nil || answer != "done again" {
			t.Fatalf("Turn = %q, %v", answer, err)
		}
	}
	equal(t, restored.reqs, original.reqs[before:])
	equal(t, contents(b.Messages()), contents(a.Messages()))
	if turns[0] != 2 {
		t.Errorf("the resumed agent's first turn is turn %d, want 2", turns[0])
	}
}

func TestStateSharesNothing(t *testing.T) {
	h := newHarness(t, ">>>\nhi\n", loop.Config{})
	if _, err := h.agent.Turn(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	st := h.agent.State()
	st.Messages[1].Content = "changed"
	st.Messages = append(st.Messages[:1], protocol.Message{Role: protocol.User, Content: "added"})
	equal(t, contents(h.agent.Messages()), []string{"system: SYSTEM", "user: hello", "assistant: hi"})

	b, err := loop.Resume(h.model, h.set, loop.Config{System: "SYSTEM"}, st)
	if err != nil {
		t.Fatal(err)
	}
	st.Messages[1].Content = "changed after Resume"
	equal(t, contents(b.Messages()), []string{"system: SYSTEM", "user: added"})
}

func TestResumeRejects(t *testing.T) {
	system := protocol.Message{Role: protocol.System, Content: "SYSTEM"}
	tests := []struct {
		name string
		st   loop.State
	}{
		{name: "no messages", st: loop.State{}},
		{name: "first message from the user", st: loop.State{Messages: []protocol.Message{{Role: protocol.User, Content: "SYSTEM"}}}},
		{name: "another system prompt", st: loop.State{Messages: []protocol.Message{{Role: protocol.System, Content: "OLD"}}}},
		{name: "negative call count", st: loop.State{Messages: []protocol.Message{system}, Calls: -1}},
		{name: "negative turn", st: loop.State{Messages: []protocol.Message{system}, Turn: -1}},
	}
	h := newHarness(t, "", loop.Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := loop.Resume(h.model, h.set, loop.Config{System: "SYSTEM"}, tt.st)
			if !errors.Is(err, loop.ErrConversation) || a != nil {
				t.Fatalf("Resume = %v, %v; want an error wrapping ErrConversation", a, err)
			}
		})
	}
}

// failing is a Model whose first call fails; later ones answer "ok".
type failing struct{ calls int }

var errDown = errors.New("model down")

func (f *failing) Chat(_ context.Context, req protocol.Request, _ func(protocol.Delta)) (protocol.Reply, error) {
	if f.calls++; f.calls == 1 {
		return protocol.Reply{}, errDown
	}
	return protocol.Reply{Content: "ok"}, nil
}

// TestRequestsAreNeverWrittenOver: a hook may keep a request. The turn that
// failed is taken back, and the next turn's input takes its place in the
// conversation, not in the request the hook holds.
func TestRequestsAreNeverWrittenOver(t *testing.T) {
	h := newHarness(t, "", loop.Config{})
	var reqs []protocol.Request
	a := loop.New(&failing{}, h.set, loop.Config{System: "SYSTEM"}, loop.Observe(func(e loop.Event) {
		if e.Kind == loop.StepStarted {
			reqs = append(reqs, e.Request)
		}
	}))
	if _, err := a.Turn(context.Background(), "one"); !errors.Is(err, errDown) {
		t.Fatalf("err = %v", err)
	}
	if _, err := a.Turn(context.Background(), "two"); err != nil {
		t.Fatal(err)
	}
	equal(t, contents(reqs[0].Messages), []string{"system: SYSTEM", "user: one"})
	equal(t, contents(reqs[1].Messages), []string{"system: SYSTEM", "user: two"})
}

// TestViewKeepsWhatItShowed: View shows what State does, without a copy,
// and a View taken while a turn ran still holds the same messages after
// that turn is taken back and another takes its place.
func TestViewKeepsWhatItShowed(t *testing.T) {
	h := newHarness(t, "", loop.Config{})
	var a *loop.Agent
	var views []loop.State
	a = loop.New(&failing{}, h.set, loop.Config{System: "SYSTEM"}, loop.Observe(func(e loop.Event) {
		if e.Kind == loop.StepStarted {
			views = append(views, a.View())
		}
	}))
	if _, err := a.Turn(context.Background(), "one"); !errors.Is(err, errDown) {
		t.Fatalf("err = %v", err)
	}
	if _, err := a.Turn(context.Background(), "two"); err != nil {
		t.Fatal(err)
	}
	equal(t, contents(views[0].Messages), []string{"system: SYSTEM", "user: one"})
	equal(t, contents(views[1].Messages), []string{"system: SYSTEM", "user: two"})

	v, st := a.View(), a.State()
	equal(t, contents(v.Messages), contents(st.Messages))
	if v.Turn != st.Turn || v.Calls != st.Calls || v.Usage != st.Usage {
		t.Errorf("View = turn %d, calls %d, usage %+v; State = turn %d, calls %d, usage %+v", v.Turn, v.Calls, v.Usage, st.Turn, st.Calls, st.Usage)
	}
	if n := testing.AllocsPerRun(100, func() { a.View() }); n != 0 {
		t.Errorf("View allocates %v times, want 0: it must not copy the conversation", n)
	}
}
