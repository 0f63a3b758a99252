package view

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"harness/loop"
	"harness/protocol"
)

// BenchmarkStream renders a reply of 100, 1000 and 10000 lines streamed in
// pieces, as the REPL shows it (as it arrives), and as -p
// handles it (no streaming: the text is shown once). The REPL's cost must
// grow in proportion to the reply.
func BenchmarkStream(b *testing.B) {
	for _, lines := range []int{100, 1000, 10000} {
		reply := longReply(lines)
		var deltas []protocol.Delta
		for _, line := range strings.SplitAfter(reply, "\n") {
			half := len(line) / 2
			deltas = append(deltas, protocol.Delta{Content: line[:half]}, protocol.Delta{Content: line[half:]})
		}
		parsed := protocol.Parse(reply)
		for _, mode := range []struct {
			name   string
			stream bool
		}{{"repl", true}, {"print", false}} {
			b.Run(fmt.Sprintf("%s/%d", mode.name, lines), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					v := &Turn{Out: io.Discard, Log: io.Discard, Stream: mode.stream, Final: !mode.stream}
					v.Event(loop.Event{Kind: loop.StepStarted, Step: 1})
					for _, d := range deltas {
						v.Event(loop.Event{Kind: loop.Streamed, Step: 1, Delta: d})
					}
					v.Event(loop.Event{Kind: loop.Replied, Step: 1, Parsed: parsed})
				}
			})
		}
	}
}

// BenchmarkStreamLine renders a reply of one line of 1000 and 10000
// words, streamed a word at a time, each shown as it comes: the cost must
// grow in proportion to the line, not to its square.
func BenchmarkStreamLine(b *testing.B) {
	for _, words := range []int{1000, 10000} {
		var deltas []protocol.Delta
		var reply strings.Builder
		for i := range words {
			word := fmt.Sprintf(" word%d", i)
			if i == 0 {
				word = "Words"
			}
			deltas = append(deltas, protocol.Delta{Content: word})
			reply.WriteString(word)
		}
		parsed := protocol.Parse(reply.String())
		b.Run(fmt.Sprint(words), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v := &Turn{Out: io.Discard, Log: io.Discard, Stream: true}
				v.Event(loop.Event{Kind: loop.StepStarted, Step: 1})
				for _, d := range deltas {
					v.Event(loop.Event{Kind: loop.Streamed, Step: 1, Delta: d})
				}
				v.Event(loop.Event{Kind: loop.Replied, Step: 1, Parsed: parsed})
			}
		})
	}
}

// longReply is an answer of n lines of prose.
func longReply(n int) string {
	var reply strings.Builder
	for i := range n {
		fmt.Fprintf(&reply, "Line %d of a long explanation, the kind a model writes about code.\n", i)
	}
	return reply.String()
}
