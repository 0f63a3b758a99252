package view

import (
	"bytes"
	"testing"

	"harness/loop"
	"harness/protocol"
)

func TestWireView(t *testing.T) {
	var out bytes.Buffer
	v := NewWire(&out, Style(false), true)
	sys := protocol.Message{Role: protocol.System, Content: "S"}
	hi := protocol.Message{Role: protocol.User, Content: "hi"}
	reply := protocol.Message{Role: protocol.Assistant, Content: "TOOL_CALL x"}
	res := protocol.Message{Role: protocol.User, Content: "TOOL_RESULT call_1 x SUCCESS\nok"}
	stop := protocol.StopSequences()
	for _, e := range []loop.Event{
		{Kind: loop.StepStarted, Request: protocol.Request{Messages: []protocol.Message{sys, hi}, Stop: stop}},
		{Kind: loop.Replied, Reply: protocol.Reply{Content: reply.Content, Thinking: "hm", DoneReason: "stop"}},
		{Kind: loop.CallEnded, Result: protocol.Result{Note: "lie: one\nlie: two"}},
		{Kind: loop.StepStarted, Request: protocol.Request{Messages: []protocol.Message{sys, hi, reply, res}, Stop: stop}},
		{Kind: loop.StepStarted, Request: protocol.Request{Messages: []protocol.Message{sys, res}, Stop: stop}},
		{Kind: loop.StepStarted, Origin: "call_2", Request: protocol.Request{Messages: []protocol.Message{sys}}},
	} {
		if err := v.Event(e); err != nil {
			t.Fatal(err)
		}
	}
	want := `=> request: 2 messages, 3 bytes, stop at "\nTOOL_RESULT", "\n**TOOL_RESULT", "\n> TOOL_RESULT", "<tool_response>"; all new
=> 1 system, 1 byte
S
=> 2 user, 2 bytes
hi
<= thinking, 2 bytes (never read for calls)
hm
<= reply: assistant, 11 bytes, done: stop
TOOL_CALL x
lie: one
lie: two
=> request: 4 messages, 45 bytes; the first 2 as sent before, then:
=> 3 assistant, 11 bytes: the reply received above, unchanged
=> 4 user, 31 bytes
TOOL_RESULT call_1 x SUCCESS
ok
=> request: 2 messages, 32 bytes; the conversation was rewritten since the last request, so all are shown
=> 1 system, 1 byte
S
=> 2 user, 31 bytes
TOOL_RESULT call_1 x SUCCESS
ok
=> request of call_2: 1 message, 1 byte; all new
=> 1 system, 1 byte
S
`
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	// Without --show-wire only the notes are shown.
	out.Reset()
	quiet := NewWire(&out, Style(false), false)
	quiet.Event(loop.Event{Kind: loop.StepStarted, Request: protocol.Request{Messages: []protocol.Message{sys}}})
	quiet.Event(loop.Event{Kind: loop.CallEnded, Result: protocol.Result{Note: "lie: x"}})
	if got := out.String(); got != "lie: x\n" {
		t.Errorf("without the wire: %q", got)
	}
}
