package session

import (
	"os"
	"strings"
	"testing"
	"time"

	"harness/loop"
	"harness/protocol"
)

// growing is a conversation that gains a reply and a 2.5 KB result at
// every step, as a turn of read_file calls does.
type growing struct{ st loop.State }

// View shares g's messages, as loop.Agent.View does.
func (g *growing) View() loop.State { return g.st }

func (g *growing) step() {
	g.st.Calls++
	g.st.Messages = append(g.st.Messages,
		protocol.Message{Role: protocol.Assistant, Content: "Reading main.go.\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"src/main.go\"}}"},
		protocol.Message{Role: protocol.User, Content: "TOOL_RESULT call_7 read_file SUCCESS\n" + strings.Repeat("func f(a, b int) int { return a*b + 1 }\n", 64)})
}

// BenchmarkWriteStep is what saving costs a step: the two new messages
// and the request line, in one write to the file, of a conversation of
// 40 messages and more (it grows by two a step). Turn ends add a sync,
// which costs what the disk costs.
func BenchmarkWriteStep(b *testing.B) {
	s := openStore(b)
	g := &growing{st: loop.State{Messages: []protocol.Message{{Role: protocol.System, Content: strings.Repeat("s", 3300)}}, Turn: 1}}
	for range 20 {
		g.step()
	}
	w := s.Create(start)
	w.Follow(g)
	// The file is made once the first step has its reply.
	for _, k := range []loop.Kind{loop.StepStarted, loop.Replied} {
		if err := w.Event(loop.Event{Kind: k, Turn: 1, Step: 1}); err != nil {
			b.Fatal(err)
		}
	}
	defer w.Close()
	if _, err := os.Stat(s.Path(w.ID())); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		g.step()
		b.StartTimer()
		if err := w.Event(loop.Event{Kind: loop.StepStarted, Turn: 1, Step: 2}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewID is what naming a new session costs, once a run: the first
// in the process is the one a run pays.
func BenchmarkNewID(b *testing.B) {
	now := time.Now()
	for b.Loop() {
		newID(now)
	}
}
