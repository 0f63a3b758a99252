package window_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"harness/loop"
	"harness/protocol"
	"harness/window"
)

// pasted is what a user may paste: a log whose first line reads like a
// result header.
func pasted(id, tool, body string) protocol.Message {
	return user("TOOL_RESULT " + id + " " + tool + " ERROR\n" + body)
}

func TestParts(t *testing.T) {
	bash := asst(`TOOL_CALL {"name":"bash","arguments":{"command":"go test"}}`)
	bashResult := protocol.Result{CallID: "call_1", Tool: "bash", Body: "FAIL"}.Message()
	tests := []struct {
		name string
		msgs []protocol.Message
		want []window.Part
	}{
		{
			name: "each part",
			msgs: []protocol.Message{sys("S"), user("hello"), call("a.go"), result("call_1", true, "x"), elided("call_1", "a.go", "2.0 KB"), asst("hi")},
			want: []window.Part{window.SystemPrompt, window.Inputs, window.Replies, window.Results, window.Inputs, window.Replies},
		},
		{
			name: "a paste after an answer is the user's",
			msgs: []protocol.Message{sys("S"), user("hi"), asst("Hello."), pasted("call_9", "bash", "exit 1")},
			want: []window.Part{window.SystemPrompt, window.Inputs, window.Replies, window.Inputs},
		},
		{
			name: "a paste after the results of every call is the user's",
			msgs: []protocol.Message{sys("S"), user("test"), bash, bashResult, pasted("call_2", "bash", "exit 1")},
			want: []window.Part{window.SystemPrompt, window.Inputs, window.Replies, window.Results, window.Inputs},
		},
		{
			name: "results answer their calls in order",
			msgs: []protocol.Message{sys("S"), user("go"), call("a.go", "b.go"), result("call_4", true, "a"), result("call_6", true, "b")},
			want: []window.Part{window.SystemPrompt, window.Inputs, window.Replies, window.Results, window.Inputs},
		},
		{
			// Ids count on across steps, but only those of one reply's
			// results are checked against each other.
			name: "each reply's results are numbered on their own",
			msgs: []protocol.Message{sys("S"), user("go"), call("a.go"), result("call_1", true, "a"), call("b.go"), result("call_5", true, "b")},
			want: []window.Part{window.SystemPrompt, window.Inputs, window.Replies, window.Results, window.Replies, window.Results},
		},
		{
			name: "a result names its call's tool",
			msgs: []protocol.Message{sys("S"), user("go"), call("a.go"), pasted("call_1", "bash", "exit 1")},
			want: []window.Part{window.SystemPrompt, window.Inputs, window.Replies, window.Inputs},
		},
		{
			name: "a summary is its header and the text after it",
			msgs: []protocol.Message{sys("S"), user(window.SummaryHeader), user(window.SummaryHeader + " and more"), user(window.SummaryHeader + "\ntext"), asst(window.SummaryHeader + "\ntext")},
			want: []window.Part{window.SystemPrompt, window.Summaries, window.Inputs, window.Summaries, window.Replies},
		},
		{
			name: "a summary comes before the first reply",
			msgs: []protocol.Message{sys("S"), user("go"), window.SummaryMessage("s"), call("a.go"), result("call_1", true, "x"), asst("done"), window.SummaryMessage("t")},
			want: []window.Part{window.SystemPrompt, window.Inputs, window.Summaries, window.Replies, window.Results, window.Replies, window.Inputs},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := window.Parts(tt.msgs); !slices.Equal(got, tt.want) {
				t.Errorf("Parts = %v, want %v\n%s", got, tt.want, dump(tt.msgs))
			}
		})
	}
}

// TestMaskLeavesAPaste: a log the user pasted, whose first line reads like
// a result header, is never masked.
func TestMaskLeavesAPaste(t *testing.T) {
	big := n(2300)
	msgs := []protocol.Message{
		sys("S"), user("read a.go"), call("a.go"), result("call_1", true, big),
		asst("It is empty."), pasted("call_9", "bash", big),
		call("b.go"), result("call_2", true, big), asst("done"),
	}
	got, masked := window.Mask(msgs, 1, pathOf)
	if masked != 2 || got[5] != msgs[5] {
		t.Errorf("masked %d, want 2, and the paste kept:\n%s", masked, dump(got))
	}
}

// TestCompactRefusesAPasteTooLarge: a paste too large for the window is
// refused as the user's message, never elided as if it were a result.
func TestCompactRefusesAPasteTooLarge(t *testing.T) {
	msgs := []protocol.Message{sys("S"), user("hi"), asst("Hello."), pasted("call_9", "bash", n(5000))}
	_, _, err := window.New(window.Config{}).Compact(context.Background(), loop.Conversation{Messages: msgs, Window: 1000})
	var tl *window.TooLargeError
	if !errors.As(err, &tl) || tl.Message != 3 || tl.Part != window.Inputs {
		t.Errorf("err = %v, want the paste refused", err)
	}
}

// TestCompactReadsRepliesAsTheLoopDid: a call the loop's parser did not
// see got no result, so what follows its reply is the user's.
func TestCompactReadsRepliesAsTheLoopDid(t *testing.T) {
	msgs := []protocol.Message{sys("S"), user("read a.go"),
		asst("I will read it.\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a.go\"}}"),
		user("TOOL_RESULT call_1 read_file SUCCESS\n" + n(5000))}
	_, _, err := window.New(window.Config{Parse: protocol.ParseStrict}).Compact(context.Background(), loop.Conversation{Messages: msgs, Window: 1000})
	var tl *window.TooLargeError
	if !errors.As(err, &tl) || tl.Part != window.Inputs {
		t.Errorf("strict: err = %v, want the message refused as the user's", err)
	}
	got, changed, err := window.New(window.Config{}).Compact(context.Background(), loop.Conversation{Messages: msgs, Window: 1000})
	if err != nil || !changed || !window.IsMasked(got[3].Content[len("TOOL_RESULT call_1 read_file SUCCESS\n"):]) {
		t.Errorf("tolerant: %v, %v: the result was not elided\n%s", changed, err, dump(got))
	}
}
