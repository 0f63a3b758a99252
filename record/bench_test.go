package record

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"harness/loop"
	"harness/protocol"
)

// stepEvents are the events of one step that reads a 2.5 KB file: the
// request, a streamed piece (not written), the reply, the call and its
// result.
func stepEvents() []loop.Event {
	msgs := make([]protocol.Message, 40)
	for i := range msgs {
		msgs[i] = protocol.Message{Role: protocol.User, Content: strings.Repeat("x", 1400)}
	}
	call := protocol.Call{ID: "call_7", Name: "read_file", Args: map[string]any{"path": "src/main.go"}}
	return []loop.Event{
		{Kind: loop.StepStarted, Turn: 1, Step: 7, Request: protocol.Request{Messages: msgs, Stop: protocol.StopSequences()}},
		{Kind: loop.Streamed, Turn: 1, Step: 7, Delta: protocol.Delta{Content: "Reading"}},
		{Kind: loop.Replied, Turn: 1, Step: 7, Duration: 30 * time.Millisecond, Reply: protocol.Reply{
			Content:    "Reading main.go.\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"src/main.go\"}}",
			DoneReason: protocol.DoneStop, Usage: protocol.Usage{Known: true, PromptTokens: 14000, OutputTokens: 20}}},
		{Kind: loop.CallStarted, Turn: 1, Step: 7, Call: call},
		{Kind: loop.CallEnded, Turn: 1, Step: 7, Call: call, Ran: true, Duration: 80 * time.Microsecond,
			Result: protocol.Result{CallID: "call_7", Tool: "read_file", OK: true, Body: strings.Repeat("func f(a, b int) int { return a*b + 1 }\n", 64)}},
	}
}

// BenchmarkRecordStep records the events of one step, to a file as -record
// does and to nothing, which leaves the encoding alone.
func BenchmarkRecordStep(b *testing.B) {
	events := stepEvents()
	f, err := os.Create(filepath.Join(b.TempDir(), "run.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for _, out := range []struct {
		name string
		w    io.Writer
	}{{"file", f}, {"discard", io.Discard}} {
		b.Run(out.name, func(b *testing.B) {
			r := New(out.w)
			b.ReportAllocs()
			for b.Loop() {
				for _, e := range events {
					if err := r.Event(e); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
