package view

import (
	"strings"
	"testing"

	"harness/loop"
	"harness/protocol"
)

// TestIndented: every line starts with the prefix, however the writes cut
// the lines.
func TestIndented(t *testing.T) {
	tests := []struct {
		writes []string
		want   string
	}{
		{[]string{"one\n"}, "> one\n"},
		{[]string{"one\ntwo\n"}, "> one\n> two\n"},
		{[]string{"Assistant: ", "hi", "\n"}, "> Assistant: hi\n"},
		{[]string{"a\n\nb"}, "> a\n> \n> b"},
		{[]string{"", "x\n"}, "> x\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		in := &indented{w: &b, prefix: "> "}
		for _, w := range tt.writes {
			if n, err := in.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", w, n, err)
			}
		}
		if b.String() != tt.want {
			t.Errorf("writes %q gave %q, want %q", tt.writes, b.String(), tt.want)
		}
	}
}

// TestNestShowsOnlyNestedConversations: the main conversation's events are
// the main view's; each nested one is shown with its own marker.
func TestNestShowsOnlyNestedConversations(t *testing.T) {
	var b strings.Builder
	n := NewNest(&b, Style(false))
	for _, e := range []loop.Event{
		{Kind: loop.StepStarted, Step: 1},
		{Kind: loop.StepStarted, Step: 1, Origin: "call_1"},
		{Kind: loop.StepStarted, Step: 1, Origin: "call_2"},
		{Kind: loop.Replied, Step: 1, Origin: "call_2", Parsed: protocol.Parse("two")},
		{Kind: loop.Replied, Step: 1, Origin: "call_1", Parsed: protocol.Parse("one")},
		{Kind: loop.StepStarted, Step: 2, Origin: "call_1/call_4"},
	} {
		if err := n.Event(e); err != nil {
			t.Fatal(err)
		}
	}
	want := "  [call_1] <Step 1>\n  [call_2] <Step 1>\n  [call_2] Assistant: two\n  [call_1] Assistant: one\n    [call_1/call_4] <Step 2>\n"
	if b.String() != want {
		t.Errorf("shown:\n%s\nwant\n%s", b.String(), want)
	}
}
