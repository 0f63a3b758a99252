package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"harness/fakemodel"
	"harness/loop"
	"harness/ollama"
	"harness/openai"
	"harness/protocol"
)

// exchange20 is the script and the first request of a 20-step exchange:
// 19 read_file calls whose results are 2.5 KB each, then an answer.
func exchange20(b *testing.B) (*fakemodel.Script, protocol.Request, []string) {
	var s strings.Builder
	var results []string
	for n := 1; n < 20; n++ {
		fmt.Fprintf(&s, ">>>\nReading f%02d.go.\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"f%02d.go\"}}\n", n, n)
		body := strings.Repeat(fmt.Sprintf("func f%d(a, b int) int { return a*b + %d }\n", n, n), 80)[:2560]
		results = append(results, fmt.Sprintf("TOOL_RESULT call_%d read_file SUCCESS\n", n)+body)
	}
	s.WriteString(">>>\nDone.\n")
	script, err := fakemodel.Parse("bench.fake", []byte(s.String()))
	if err != nil {
		b.Fatal(err)
	}
	req := protocol.Request{
		Messages: []protocol.Message{
			{Role: protocol.System, Content: strings.Repeat("You are a coding assistant.\n", 130)},
			{Role: protocol.User, Content: "read the files"},
		},
		Stop: protocol.StopSequences(),
	}
	return script, req, results
}

// BenchmarkExchange20 is a 20-step streaming exchange over HTTP with the
// fake model server, each step sending the whole conversation so far, as
// the loop does: with this package over /v1/chat/completions (server-sent
// events), and, to weigh it, with the ollama package over /api/chat
// (NDJSON). The server's own work, the same for both, is included.
func BenchmarkExchange20(b *testing.B) {
	script, first, results := exchange20(b)
	var handler atomic.Pointer[http.Handler]
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*handler.Load()).ServeHTTP(w, r)
	}))
	defer hs.Close()
	base, _ := url.Parse(hs.URL)
	models := map[string]loop.Model{
		"openai": openai.New(base.JoinPath("v1"), "fake", openai.Options{}),
		"ollama": ollama.New(base, "fake", ollama.Options{NumCtx: 16384}),
	}
	for _, name := range []string{"openai", "ollama"} {
		m := models[name]
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				h := fakemodel.NewServer(script).Handler()
				handler.Store(&h)
				req := first
				req.Messages = append([]protocol.Message(nil), first.Messages...)
				for step := 0; ; step++ {
					reply, err := m.Chat(ctx, req, func(protocol.Delta) {})
					if err != nil {
						b.Fatal(err)
					}
					if step == len(results) {
						if reply.Content != "Done." {
							b.Fatalf("last reply %q", reply.Content)
						}
						break
					}
					req.Messages = append(req.Messages,
						protocol.Message{Role: protocol.Assistant, Content: reply.Content},
						protocol.Message{Role: protocol.User, Content: results[step]})
				}
			}
		})
	}
}

// BenchmarkClient20 is the client's own cost in a 20-step exchange: a
// server that reads each request and answers every one with the same
// canned stream of 12 events, so that nearly all the work left is the
// client's (encoding the growing request, sending it, reading the events).
func BenchmarkClient20(b *testing.B) {
	_, first, results := exchange20(b)
	var events strings.Builder
	events.WriteString("data: " + delta("Reading f01.go.\n") + "\n\n")
	for _, piece := range []string{"TOOL_CALL {\"name\":", "\"read_file\",", "\"arguments\":", "{\"path\":", "\"f01.go\"}}"} {
		events.WriteString("data: " + delta(piece) + "\n\n")
	}
	for range 4 {
		events.WriteString(": keep-alive\n\n")
	}
	events.WriteString("data: " + finish("stop") + "\n\ndata: " + usage + "\n\ndata: [DONE]\n\n")
	canned := events.String()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var buf [32 << 10]byte
		for {
			if _, err := r.Body.Read(buf[:]); err != nil {
				break
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(canned))
	}))
	defer hs.Close()
	base, _ := url.Parse(hs.URL)
	m := openai.New(base.JoinPath("v1"), "fake", openai.Options{APIKey: "sk-bench"})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		req := first
		req.Messages = append([]protocol.Message(nil), first.Messages...)
		for step := range 20 {
			reply, err := m.Chat(ctx, req, func(protocol.Delta) {})
			if err != nil || !reply.Usage.Known {
				b.Fatal(reply, err)
			}
			if step < len(results) {
				req.Messages = append(req.Messages,
					protocol.Message{Role: protocol.Assistant, Content: reply.Content},
					protocol.Message{Role: protocol.User, Content: results[step]})
			}
		}
	}
}
