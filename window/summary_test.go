package window_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"harness/fakemodel"
	"harness/loop"
	"harness/protocol"
	"harness/window"
)

// reqModel is a loop.Model that records requests and gives one reply.
type reqModel struct {
	reqs  []protocol.Request
	reply protocol.Reply
	err   error
}

func (m *reqModel) Chat(_ context.Context, req protocol.Request, _ func(protocol.Delta)) (protocol.Reply, error) {
	m.reqs = append(m.reqs, req)
	return m.reply, m.err
}

func TestModelSummarizer(t *testing.T) {
	span := []protocol.Message{sys("SYSTEM"), user("read a.go"), call("a.go"), result("call_1", true, "package a")}
	model := &reqModel{reply: protocol.Reply{
		Content: "<think>what did I do?</think>\nDone: read a.go.\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"b.go\"}}\n",
		Usage:   protocol.Usage{Known: true, OutputTokens: 12},
	}}
	var events []loop.Event
	s := window.ModelSummarizer(model, nil, loop.Observe(func(e loop.Event) { events = append(events, e) }))
	text, err := s.Summarize(context.Background(), span)
	if err != nil {
		t.Fatal(err)
	}
	// Thinking and calls are not part of the summary.
	if text != "Done: read a.go." {
		t.Errorf("summary %q", text)
	}
	if len(model.reqs) != 1 {
		t.Fatalf("%d requests", len(model.reqs))
	}
	req := model.reqs[0]
	// The request begins as the conversation does, so that a server's
	// cache serves it, and ends asking for the summary.
	if len(req.Messages) != len(span)+1 || common(span, req.Messages) != len(span) {
		t.Fatalf("request\n%s", dump(req.Messages))
	}
	last := req.Messages[len(span)]
	if last.Role != protocol.User || !strings.Contains(last.Content, "Write the summary") {
		t.Errorf("the request ends with %q", last.Content)
	}
	if len(req.Stop) == 0 {
		t.Error("no stop sequences")
	}
	if len(events) != 2 || events[0].Kind != loop.StepStarted || events[1].Kind != loop.Replied {
		t.Fatalf("events %v", events)
	}
	for _, e := range events {
		if e.Origin != window.SummaryOrigin {
			t.Errorf("%v event with origin %q", e.Kind, e.Origin)
		}
	}
	if events[1].Reply.Usage.OutputTokens != 12 {
		t.Errorf("Replied event without the reply's usage: %+v", events[1].Reply)
	}
}

// TestModelSummarizerBudget: the budget counts summary calls as model
// calls, and stops them like any other.
func TestModelSummarizerBudget(t *testing.T) {
	model := &reqModel{reply: protocol.Reply{Content: "summary"}}
	budget := &loop.Budget{ModelCalls: 1}
	s := window.ModelSummarizer(model, nil, budget)
	span := []protocol.Message{sys("S"), user("go")}
	if _, err := s.Summarize(context.Background(), span); err != nil {
		t.Fatal(err)
	}
	_, err := s.Summarize(context.Background(), span)
	if !errors.Is(err, loop.ErrLimit) {
		t.Fatalf("err = %v, want the model-call limit", err)
	}
	if len(model.reqs) != 1 {
		t.Errorf("%d requests, want the one under the limit", len(model.reqs))
	}
}

func TestModelSummarizerErrors(t *testing.T) {
	boom := errors.New("boom")
	span := []protocol.Message{sys("S"), user("go")}
	if _, err := window.ModelSummarizer(&reqModel{err: boom}, nil).Summarize(context.Background(), span); !errors.Is(err, boom) {
		t.Errorf("model error: %v", err)
	}
	empty := &reqModel{reply: protocol.Reply{Content: "<think>nothing</think>\n"}}
	if _, err := window.ModelSummarizer(empty, nil).Summarize(context.Background(), span); !errors.Is(err, window.ErrEmptySummary) {
		t.Errorf("empty summary: %v", err)
	}
}

// TestModelSummarizerInTheWindow: the fake model, enforcing the window,
// accepts the request a Compactor makes of it.
func TestModelSummarizerInTheWindow(t *testing.T) {
	model := fakemodel.New(summaries(t, 1))
	model.SetWindow(2000)
	c := window.New(window.Config{Summarizer: window.ModelSummarizer(model, nil)})
	got, changed, err := c.Compact(context.Background(), loop.Conversation{Messages: conversation(24, 1000), Window: 2000})
	if err != nil || !changed || window.Parts(got)[2] != window.Summaries {
		t.Fatalf("Compact: %v, %v\n%s", changed, err, dump(got))
	}
}

func TestSummaryMessage(t *testing.T) {
	if got := window.SummaryMessage(" Done: nothing.\n").Content; got != window.SummaryHeader+"\nDone: nothing." {
		t.Errorf("SummaryMessage = %q", got)
	}
}

// TestModelSummarizerParse: the summary is read as the conversation's
// replies are: a call in a shape only a reader that knows the tools takes
// for one is no part of the summary.
func TestModelSummarizerParse(t *testing.T) {
	span := []protocol.Message{sys("SYSTEM"), user("read a.go")}
	reply := "Done: read a.go.\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"b.go\"}}"
	reader := protocol.NewReader([]protocol.ToolSpec{{Name: "read_file"}})
	for _, tt := range []struct {
		name  string
		parse func(string) protocol.Parsed
		want  string
	}{
		{"by the tools' reader", reader.Parse, "Done: read a.go."},
		{"by default", nil, reply},
	} {
		t.Run(tt.name, func(t *testing.T) {
			model := &reqModel{reply: protocol.Reply{Content: reply}}
			text, err := window.ModelSummarizer(model, tt.parse).Summarize(context.Background(), span)
			if err != nil || text != tt.want {
				t.Errorf("summary %q, %v; want %q", text, err, tt.want)
			}
		})
	}
}
