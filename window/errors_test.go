package window_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"harness/loop"
	"harness/protocol"
	"harness/window"
)

func TestTooLargeErrorSaysWhatFills(t *testing.T) {
	parts := func(system, results, inputs, replies int) [window.NumParts]int {
		var p [window.NumParts]int
		p[window.SystemPrompt], p[window.Results], p[window.Inputs], p[window.Replies] = system, results, inputs, replies
		return p
	}
	tests := []struct {
		name string
		err  window.TooLargeError
		want string
	}{
		{
			name: "a paste",
			err:  window.TooLargeError{Message: 1, Part: window.Inputs, Tokens: 5000, Limit: 3584, Window: 4096, Parts: parts(900, 0, 5000, 0)},
			want: "your message is about 5.0k tokens; with the system prompt (about 900) it does not fit the 3.6k tokens a request may hold (a context window of 4.1k less room for the reply). " +
				"Nothing was sent and nothing is lost: send it in smaller parts, or start again with a larger --num-ctx",
		},
		{
			name: "a short message after a large system prompt and a result",
			err:  window.TooLargeError{Message: 3, Part: window.Inputs, Tokens: 39, Limit: 3584, Window: 4096, Parts: parts(3560, 1200, 49, 30)},
			want: "your message is about 39 tokens; with the system prompt (about 3.6k) it does not fit the 3.6k tokens a request may hold (a context window of 4.1k less room for the reply); " +
				"the rest of the conversation holds user messages about 10, replies about 30, tool results about 1.2k. " +
				"Nothing was sent and nothing is lost: the system prompt takes the most: start again with a larger --num-ctx, or with fewer tools (--tools) for a shorter system prompt; or send it in smaller parts",
		},
		{
			name: "a system prompt larger than the window",
			err:  window.TooLargeError{Message: 1, Part: window.Inputs, Tokens: 5, Limit: 896, Window: 1024, Parts: parts(910, 0, 5, 0)},
			want: "the system prompt alone is about 910 tokens, more than the 896 tokens a request may hold (a context window of 1.0k less room for the reply). " +
				"Nothing was sent and nothing is lost: start again with a larger --num-ctx, or with fewer tools (--tools) for a shorter system prompt",
		},
		{
			name: "a reply",
			err:  window.TooLargeError{Message: 2, Part: window.Replies, Tokens: 4000, Limit: 875, Window: 1000, Parts: parts(2, 0, 1, 4000)},
			want: "message 2 (replies) is about 4.0k tokens; with the system prompt (about 2) it does not fit the 875 tokens a request may hold (a context window of 1.0k less room for the reply); " +
				"the rest of the conversation holds user messages about 1. Nothing was sent and nothing is lost: send it in smaller parts, or start again with a larger --num-ctx",
		},
		{
			name: "results fill the conversation",
			err:  window.TooLargeError{Message: -1, Part: -1, Tokens: 7000, Limit: 7168, Window: 8192, Parts: parts(900, 6000, 50, 50)},
			want: "the conversation is about 7.0k tokens even after compacting it, more than the 7.2k tokens a request may hold (a context window of 8.2k less room for the reply): " +
				"the system prompt about 900, user messages about 50, replies about 50, tool results about 6.0k. " +
				"Nothing was sent and nothing is lost: /clear to start a new conversation, or start again with a larger --num-ctx; or ask the tools for less at a time (a smaller read)",
		},
		{
			name: "the system prompt fills the conversation",
			err:  window.TooLargeError{Message: -1, Part: -1, Tokens: 4000, Limit: 3584, Window: 4096, Parts: parts(3000, 500, 250, 250)},
			want: "the conversation is about 4.0k tokens even after compacting it, more than the 3.6k tokens a request may hold (a context window of 4.1k less room for the reply): " +
				"the system prompt about 3.0k, user messages about 250, replies about 250, tool results about 500. " +
				"Nothing was sent and nothing is lost: /clear to start a new conversation, or start again with a larger --num-ctx, or with fewer tools (--tools) for a shorter system prompt",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() =\n%s\nwant\n%s", got, tt.want)
			}
			if !errors.Is(&tt.err, window.ErrTooLarge) {
				t.Error("not ErrTooLarge")
			}
		})
	}
}

// TestCompactTooLargeSaysWhatFills: the refusal of a short message after a
// long system prompt and a result gives the size of each, so that the
// message is not blamed alone.
func TestCompactTooLargeSaysWhatFills(t *testing.T) {
	msgs := []protocol.Message{sys(n(3300)), user("go"), call("a.go"), result("call_1", true, n(400)), user(n(200))}
	_, _, err := window.New(window.Config{}).Compact(context.Background(), loop.Conversation{Messages: msgs, Window: 1000})
	var tl *window.TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("err = %v, want a *TooLargeError", err)
	}
	if tl.Message != 4 || tl.Parts[window.SystemPrompt] < 800 || tl.Parts[window.Results] < 30 || tl.Parts[window.Inputs] < 50 {
		t.Errorf("%+v: the parts are not counted", tl)
	}
	for _, want := range []string{"with the system prompt (about 8", "tool results about 39", "--tools"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}
