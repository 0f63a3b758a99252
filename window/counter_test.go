package window_test

import (
	"strings"
	"testing"

	"harness/protocol"
	"harness/window"
)

func sys(s string) protocol.Message  { return protocol.Message{Role: protocol.System, Content: s} }
func user(s string) protocol.Message { return protocol.Message{Role: protocol.User, Content: s} }
func asst(s string) protocol.Message { return protocol.Message{Role: protocol.Assistant, Content: s} }

// n is a text of n bytes.
func n(bytes int) string { return strings.Repeat("x", bytes) }

func TestCounterEstimate(t *testing.T) {
	tests := []struct {
		name  string
		ratio protocol.Usage // a usage to calibrate with first, on calib
		msgs  []protocol.Message
		want  int
	}{
		{name: "nothing", want: 0},
		// 16 bytes of template a message, 4 bytes a token, rounded up.
		{name: "one message", msgs: []protocol.Message{user(n(84))}, want: 25},
		{name: "an empty message", msgs: []protocol.Message{user("")}, want: 4},
		{name: "two messages", msgs: []protocol.Message{sys(n(84)), user(n(85))}, want: 51},
		// Calibrated to 2 bytes a token: 2000 bytes (with template) were 1000 tokens.
		{name: "calibrated", ratio: protocol.Usage{Known: true, PromptTokens: 1000}, msgs: []protocol.Message{user(n(84))}, want: 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c window.Counter
			c.Calibrate([]protocol.Message{sys(n(984)), user(n(984)), asst("reply")}, tt.ratio)
			if got := c.Estimate(tt.msgs...); got != tt.want {
				t.Errorf("Estimate = %d, want %d (ratio %v)", got, tt.want, c.BytesPerToken())
			}
		})
	}
}

func TestCounterCalibrate(t *testing.T) {
	conv := []protocol.Message{sys(n(984)), user(n(984)), asst(n(100)), user("TOOL_RESULT call_1 x SUCCESS\n" + n(1000))}
	tests := []struct {
		name string
		msgs []protocol.Message
		u    protocol.Usage
		want float64
	}{
		{name: "measured: the messages before the last reply", msgs: conv, u: protocol.Usage{Known: true, PromptTokens: 400}, want: 5},
		{name: "unknown usage", msgs: conv, u: protocol.Usage{PromptTokens: 400}, want: 4},
		{name: "no prompt tokens", msgs: conv, u: protocol.Usage{Known: true}, want: 4},
		{name: "no reply yet", msgs: conv[:2], u: protocol.Usage{Known: true, PromptTokens: 400}, want: 4},
		{name: "too little to tell", msgs: []protocol.Message{sys("SYSTEM"), user("hello"), asst("Hi.")}, u: protocol.Usage{Known: true, PromptTokens: 3}, want: 4},
		{name: "absurdly many tokens", msgs: conv, u: protocol.Usage{Known: true, PromptTokens: 1 << 20}, want: 1},
		{name: "absurdly few tokens", msgs: conv, u: protocol.Usage{Known: true, PromptTokens: 1}, want: 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c window.Counter
			c.Calibrate(tt.msgs, tt.u)
			if got := c.BytesPerToken(); got != tt.want {
				t.Errorf("BytesPerToken = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCounterCount(t *testing.T) {
	conv := []protocol.Message{sys(n(184)), user(n(184)), asst(n(84)), user(n(84))}
	tests := []struct {
		name string
		u    protocol.Usage
		want int
	}{
		// The backend counted the first two; the last two are estimated.
		{name: "measured", u: protocol.Usage{Known: true, PromptTokens: 123}, want: 123 + 50},
		{name: "unknown", u: protocol.Usage{}, want: 100 + 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c window.Counter
			if got := c.Count(conv, tt.u); got != tt.want {
				t.Errorf("Count = %d, want %d", got, tt.want)
			}
		})
	}
}
