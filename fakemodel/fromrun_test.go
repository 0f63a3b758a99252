package fakemodel

import (
	"strings"
	"testing"

	"harness/protocol"
	"harness/record"
)

func TestExpectTail(t *testing.T) {
	tests := []struct {
		text  string
		limit int
		want  string
		cut   bool
	}{
		{"short", 10, "short", false},
		{"no limit at all", 0, "no limit at all", false},
		{"line one\nline two\nline three", 15, "line three", true},
		{"one long line without breaks", 10, "out breaks", true},
		{"héhéhé", 4, "hé", true}, // never from the middle of a character
		{"ends\n", 3, "ds\n", true},
	}
	for _, tt := range tests {
		got, cut := expectTail(tt.text, tt.limit)
		if got != tt.want || cut != tt.cut {
			t.Errorf("expectTail(%q, %d) = %q, %v; want %q, %v", tt.text, tt.limit, got, cut, tt.want, tt.cut)
		}
		if !strings.HasSuffix(tt.text, got) {
			t.Errorf("expectTail(%q, %d) = %q is not its end", tt.text, tt.limit, got)
		}
	}
}

// The script parses back into the run's replies, whatever they hold, and
// each expects the message sent.
func TestFakeScriptRoundTrip(t *testing.T) {
	xs := []record.Exchange{
		{Turn: 1, Step: 1, Sent: protocol.Message{Role: protocol.User, Content: "do \"it\"\n"},
			Reply: protocol.Reply{Content: ">>> a header lookalike\n\\backslash\nTOOL_CALL {\"name\":\"x\"}", Thinking: "hm\n", DoneReason: "stop"}},
		{Turn: 1, Step: 2, Sent: protocol.Message{Role: protocol.User, Content: "TOOL_RESULT call_1 x SUCCESS\n" + strings.Repeat("line\n", 50) + "end\n"},
			Reply: protocol.Reply{Content: "cut", DoneReason: protocol.DoneLength}},
		{Turn: 2, Step: 1, Sent: protocol.Message{Role: protocol.User, Content: "again"}, Reply: protocol.Reply{Content: ""}},
	}
	text := FromRun("run.jsonl", &record.Start{Workspace: "/ws", Tools: []string{"x"}}, xs, []string{"do it", "again"}, 40)
	s, err := Parse("run.fake", text)
	if err != nil {
		t.Fatalf("%v in:\n%s", err, text)
	}
	if len(s.Replies) != len(xs) {
		t.Fatalf("%d replies:\n%s", len(s.Replies), text)
	}
	for i, r := range s.Replies {
		x := xs[i]
		if r.Body != x.Reply.Content || r.Think != x.Reply.Thinking || r.Role != x.Sent.Role {
			t.Errorf("reply %d = %+v, want %+v", i+1, r, x)
		}
	}
	if r := s.Replies[0]; r.Expect != xs[0].Sent.Content || r.Match != MatchWhole {
		t.Errorf("reply 1 expects %q (%s)", r.Expect, r.Match)
	}
	if r := s.Replies[1]; r.Expect != strings.Repeat("line\n", 7)+"end\n" || r.Match != MatchEnd || r.Done != protocol.DoneLength {
		t.Errorf("reply 2 expects %q (%s), done %q", r.Expect, r.Match, r.Done)
	}
	for _, want := range []string{"# reply 2: turn 1, step 2; expects only the last 39 of the 283 bytes sent\n", "#   harness --fake FILE < input\n", "#   again\n", "2 turns"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the script lacks %q:\n%s", want, text)
		}
	}
}

// Inputs of several lines stay in the comments, whatever they hold, with
// -p or typed into the REPL, where they go between """ lines.
func TestFakeScriptInputsStayComments(t *testing.T) {
	xs := []record.Exchange{{Turn: 1, Step: 1, Sent: protocol.Message{Role: protocol.User, Content: "x"}, Reply: protocol.Reply{Content: "ok"}}}
	tests := []struct {
		inputs []string
		want   string
	}{
		{[]string{"one\n>>> two\n"}, "#   harness --fake FILE -p $'one\\n>>> two\\n'\n"},
		{[]string{"first\nsecond", "y"}, "#   \"\"\"\n#   first\n#   second\n#   \"\"\"\n#   y\n"},
	}
	for _, tt := range tests {
		text := FromRun("run.jsonl", nil, xs, tt.inputs, 0)
		if _, err := Parse("run.fake", text); err != nil {
			t.Errorf("inputs %q: %v in:\n%s", tt.inputs, err, text)
		}
		if !strings.Contains(string(text), tt.want) {
			t.Errorf("inputs %q: the script lacks %q:\n%s", tt.inputs, tt.want, text)
		}
	}
}
