package view

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"harness/loop"
	"harness/protocol"
	"harness/window"
)

func TestCompactedLine(t *testing.T) {
	c := loop.Compaction{Before: 41, After: 12, BeforeTokens: 3420, AfterTokens: 1610}
	tests := []struct {
		name string
		r    window.Report
		want string
	}{
		{"masked", window.Report{Masked: 4}, "3.4k -> 1.6k tokens, 41 -> 12 messages (4 older results masked)"},
		{"one masked", window.Report{Masked: 1}, "3.4k -> 1.6k tokens, 41 -> 12 messages (1 older result masked)"},
		{"too large", window.Report{Masked: 3, TooLarge: 1}, "3.4k -> 1.6k tokens, 41 -> 12 messages (2 older results masked, 1 result too large for the window elided)"},
		{"summarized", window.Report{Masked: 2, Summarized: 25}, "3.4k -> 1.6k tokens, 41 -> 12 messages (2 older results masked, 25 messages summarized)"},
		{"summary failed", window.Report{Masked: 2, SummaryErr: window.ErrEmptySummary}, "3.4k -> 1.6k tokens, 41 -> 12 messages (2 older results masked, no summary: the model wrote no summary)"},
		{"nothing said", window.Report{}, "3.4k -> 1.6k tokens, 41 -> 12 messages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Compacted(c, tt.r); got != tt.want {
				t.Errorf("compacted = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestWindowEvents: what the display shows of a turn in the REPL: the use
// after each step, from the backend's count or estimated when it gave
// none; a summary request as part of the compaction, not as a step; and
// nothing of a helper's steps.
func TestWindowEvents(t *testing.T) {
	var out bytes.Buffer
	v := &Window{W: &out, Compact: window.New(window.Config{}), Size: 4096, Steps: true}
	sent := []protocol.Message{{Role: protocol.System, Content: strings.Repeat("s", 400)}, {Role: protocol.User, Content: strings.Repeat("u", 400)}}
	for _, e := range []loop.Event{
		{Kind: loop.TurnStarted, Turn: 2},
		{Kind: loop.StepStarted, Turn: 2, Step: 1, Request: protocol.Request{Messages: sent}},
		{Kind: loop.Replied, Turn: 2, Step: 1, Reply: protocol.Reply{Content: "x", Usage: protocol.Usage{Known: true, PromptTokens: 2900, OutputTokens: 120}}},
		{Kind: loop.StepStarted, Turn: 1, Step: 1, Origin: "call_1", Request: protocol.Request{Messages: sent}},
		{Kind: loop.Replied, Turn: 1, Step: 1, Origin: "call_1", Reply: protocol.Reply{Content: "x"}},
		{Kind: loop.StepStarted, Origin: window.SummaryOrigin, Step: 1, Request: protocol.Request{Messages: make([]protocol.Message, 19)}},
		{Kind: loop.Replied, Origin: window.SummaryOrigin, Step: 1, Reply: protocol.Reply{Content: "Done: x"}},
		{Kind: loop.Compacted, Turn: 2, Step: 2, Compaction: loop.Compaction{Before: 20, After: 5, BeforeTokens: 3100, AfterTokens: 1200}},
		{Kind: loop.StepStarted, Turn: 2, Step: 2, Request: protocol.Request{Messages: sent}},
		// No count: two messages of 400 bytes and the reply's 4, with 16
		// bytes of template each, are 852 bytes: 213 tokens at 4 a token.
		{Kind: loop.Replied, Turn: 2, Step: 2, Reply: protocol.Reply{Content: "abcd"}},
	} {
		if err := v.Event(e); err != nil {
			t.Fatal(err)
		}
	}
	want := `ctx 3.0k/4.1k
compacting: asking the model for a summary of 17 earlier messages
compacted: 3.1k -> 1.2k tokens, 20 -> 5 messages
ctx ~213/4.1k
`
	if out.String() != want {
		t.Errorf("shown:\n%s\nwant\n%s", out.String(), want)
	}
}

// TestSummaryHooks: the events of a summary reach the hooks with the turn
// of the main conversation and the step the compaction came before.
func TestSummaryHooks(t *testing.T) {
	v := &Window{W: &bytes.Buffer{}, Compact: window.New(window.Config{}), Size: 4096}
	var got []loop.Event
	hooks := v.SummaryHooks(loop.Observe(func(e loop.Event) { got = append(got, e) }))
	for _, e := range []loop.Event{
		{Kind: loop.TurnStarted, Turn: 3},
		{Kind: loop.StepStarted, Turn: 3, Step: 1},
		{Kind: loop.StepStarted, Turn: 3, Step: 2},
		{Kind: loop.StepStarted, Turn: 1, Step: 7, Origin: "call_4"}, // a helper's: not the main conversation's step
	} {
		v.Event(e)
	}
	for _, h := range hooks {
		h.Event(loop.Event{Kind: loop.StepStarted, Step: 1, Origin: window.SummaryOrigin})
	}
	if len(got) != 1 || got[0].Turn != 3 || got[0].Step != 3 || got[0].Origin != window.SummaryOrigin {
		t.Errorf("the hook got %+v, want turn 3, step 3, origin summary", got)
	}
	v.Event(loop.Event{Kind: loop.TurnStarted, Turn: 4})
	hooks[0].Event(loop.Event{Kind: loop.Replied, Step: 1, Origin: window.SummaryOrigin})
	if e := got[len(got)-1]; e.Turn != 4 || e.Step != 1 {
		t.Errorf("before a turn's first step: turn %d, step %d; want 4, 1", e.Turn, e.Step)
	}
}

// TestShowContext is /context: the conversation by part, from the
// backend's count of what it measured and an estimate of the rest.
func TestShowContext(t *testing.T) {
	v := &Window{W: &bytes.Buffer{}, Compact: window.New(window.Config{Reserve: 512}), Size: 4096}
	st := loop.State{
		Messages: []protocol.Message{
			{Role: protocol.System, Content: strings.Repeat("s", 2000)},
			{Role: protocol.User, Content: strings.Repeat("u", 400)},
			{Role: protocol.Assistant, Content: `TOOL_CALL {"name":"read_file","arguments":{"path":"a"}}`},
			{Role: protocol.User, Content: "TOOL_RESULT call_1 read_file SUCCESS\n" + strings.Repeat("r", 1200)},
		},
		Usage: protocol.Usage{Known: true, PromptTokens: 600, OutputTokens: 20},
	}
	var out bytes.Buffer
	if err := v.Show(&out, st, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"context window 4.1k tokens: ",
		"\n  system prompt ",
		"\n  tool results ",
		"\n  free ",
		"\n  reply reserve    512  13%  ###\n",
		"\ncompaction above 3.2k (79%), down to 1.8k (44%)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("/context lacks %q:\n%s", want, out.String())
		}
	}
	// It measures, and changes nothing: a compaction afterwards sees the
	// same conversation.
	if _, changed, err := v.Compact.Compact(context.Background(), loop.Conversation{Messages: st.Messages, Window: v.Size, Usage: st.Usage}); changed || err != nil {
		t.Errorf("Compact after /context: changed %v, %v", changed, err)
	}
}
