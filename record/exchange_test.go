package record_test

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"harness/fakemodel"
	"harness/loop"
	"harness/protocol"
	"harness/record"
	"harness/tools"
	"harness/window"
)

type echoArgs struct {
	Text string `arg:"text" help:"what to say"`
}

// The exchanges read back from a record are the real ones: each holds the
// last message of the request as the model got it, and the reply.
func TestExchangesAreWhatWasSent(t *testing.T) {
	echo := tools.New("echo", "Echo.", false, func(_ context.Context, a echoArgs) (string, error) {
		if a.Text == "fail" {
			return "", errors.New("cannot echo fail")
		}
		return a.Text, nil
	})
	set, err := tools.NewSet(echo)
	if err != nil {
		t.Fatal(err)
	}
	script, err := fakemodel.Parse("t", []byte(`>>>
TOOL_CALL {"name":"echo","arguments":{"text":"hi"}}
TOOL_CALL {"name":"echo","arguments":{"text":"fail"}}
>>> think="done, I think"
All said.
>>>
TOOL_CALL {"name":"echo","arguments":{"text":""}}
>>> done=length
Cut off
`))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rec := record.New(&buf)
	if err := rec.Start(record.Start{Model: "t"}); err != nil {
		t.Fatal(err)
	}
	var want []record.Exchange
	var last protocol.Message
	seen := loop.Observe(func(e loop.Event) {
		switch e.Kind {
		case loop.StepStarted:
			last = e.Request.Messages[len(e.Request.Messages)-1]
		case loop.Replied:
			want = append(want, record.Exchange{Turn: e.Turn, Step: e.Step, Sent: last,
				Reply: protocol.Reply{Content: e.Reply.Content, Thinking: e.Reply.Thinking, DoneReason: e.Reply.DoneReason}})
		}
	})
	agent := loop.New(fakemodel.New(script), set, loop.Config{System: "S"}, rec, seen)
	for _, input := range []string{"first", "second"} {
		if _, err := agent.Turn(context.Background(), input); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Approval(2, 1, "call_3", "echo", "run", "yes"); err != nil {
		t.Fatal(err)
	}
	lines, err := record.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	runs := record.Runs(append(lines, lines...))
	if len(runs) != 2 || len(runs[0]) != len(lines) {
		t.Fatalf("a record written twice holds %d runs", len(runs))
	}
	got, err := record.Exchanges(lines)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || !reflect.DeepEqual(got, want) {
		t.Errorf("exchanges\n got %+v\nwant %+v", got, want)
	}
	if in := record.Inputs(lines); !reflect.DeepEqual(in, []string{"first", "second", "y"}) {
		t.Errorf("inputs = %q", in)
	}
}

func TestExchangesRefuseAReplyWithoutRequest(t *testing.T) {
	_, err := record.Exchanges([]record.Line{{Type: "turn", Input: "x"}, {Type: "reply", Content: "y"}})
	if err == nil {
		t.Error("a reply without a request was taken")
	}
}

type noArgs struct{}

// TestExchangesOfASummary: a summary that a compaction asked for is an
// exchange too, and its request ended with the instruction to summarize.
func TestExchangesOfASummary(t *testing.T) {
	look := tools.New("look", "Look.", false, func(context.Context, noArgs) (string, error) { return "nothing", nil })
	set, err := tools.NewSet(look)
	if err != nil {
		t.Fatal(err)
	}
	// Replies too long to mask: only a summary makes room for more.
	musing := strings.Repeat("I keep looking and thinking about what I saw. ", 24)
	var s strings.Builder
	for range 6 {
		s.WriteString(">>>\n" + musing + "\nTOOL_CALL {\"name\":\"look\",\"arguments\":{}}\n")
	}
	s.WriteString(">>> expect=\"Write the summary\"\nDone: looked six times, saw nothing.\n>>>\nThere is nothing.\n")
	script, err := fakemodel.Parse("t", []byte(s.String()))
	if err != nil {
		t.Fatal(err)
	}
	model := fakemodel.New(script)
	var buf bytes.Buffer
	rec := record.New(&buf)
	var want []record.Exchange
	last := map[string]protocol.Message{}
	seen := loop.Observe(func(e loop.Event) {
		switch e.Kind {
		case loop.StepStarted:
			last[e.Origin] = e.Request.Messages[len(e.Request.Messages)-1]
		case loop.Replied:
			want = append(want, record.Exchange{Turn: e.Turn, Step: e.Step, Origin: e.Origin, Sent: last[e.Origin],
				Reply: protocol.Reply{Content: e.Reply.Content, Thinking: e.Reply.Thinking, DoneReason: e.Reply.DoneReason}})
		}
	})
	compactor := window.New(window.Config{Keep: 1, Summarizer: window.ModelSummarizer(model, nil, rec, seen)})
	agent := loop.New(model, set, loop.Config{System: "S", Window: 2000, Compactor: compactor}, rec, seen)
	if answer, err := agent.Turn(context.Background(), "look around"); err != nil || answer != "There is nothing." {
		t.Fatalf("Turn = %q, %v", answer, err)
	}
	lines, err := record.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got, err := record.Exchanges(lines)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("exchanges\n got %+v\nwant %+v", got, want)
	}
	i := slices.IndexFunc(got, func(x record.Exchange) bool { return x.Origin == window.SummaryOrigin })
	if i < 0 || got[i].Sent != (protocol.Message{Role: protocol.User, Content: window.SummaryRequest}) {
		t.Errorf("no summary exchange that sent the instruction: %+v", got)
	}
}

// A turn's input is read back as the user typed it, not as the model got
// it: what the harness added (an attached file) is not typed again.
func TestInputsAreAsTyped(t *testing.T) {
	script, err := fakemodel.Parse("t", []byte(">>>\none\n>>>\ntwo\n>>>\nthree\n"))
	if err != nil {
		t.Fatal(err)
	}
	set, err := tools.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rec := record.New(&buf)
	agent := loop.New(fakemodel.New(script), set, loop.Config{System: "S"}, rec)
	turns := []struct{ typed, sent string }{
		{"fix @a.go", "fix @a.go\n\n--- a.go (attached) ---\nx\n--- end of a.go ---"},
		{"same", "same"},
		{"", "not told"},
	}
	for _, tt := range turns {
		if tt.typed != "" {
			rec.Typed(tt.typed)
		}
		if _, err := agent.Turn(context.Background(), tt.sent); err != nil {
			t.Fatal(err)
		}
	}
	lines, err := record.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var typed []string
	for _, l := range lines {
		if l.Type == "turn" {
			typed = append(typed, l.Typed)
		}
	}
	if !reflect.DeepEqual(typed, []string{"fix @a.go", "", ""}) {
		t.Errorf("typed fields = %q, want only the one that differs from the input", typed)
	}
	if in := record.Inputs(lines); !reflect.DeepEqual(in, []string{"fix @a.go", "same", "not told"}) {
		t.Errorf("inputs = %q", in)
	}
}
