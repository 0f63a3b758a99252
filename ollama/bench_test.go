package ollama_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"encoding/json"
	"github.com/ollama/ollama/api"

	"harness/ollama"
	"harness/protocol"
)

// BenchmarkChatSession is the adapter's own part of a session of 20 and of
// 400 steps: each step sends the whole conversation, which grows by a
// reply and a 2.5 KB result, and reads a reply streamed in five chunks.
// The server reads each request and answers with the same bytes at once.
func BenchmarkChatSession(b *testing.B) {
	var stream strings.Builder
	enc := json.NewEncoder(&stream)
	for _, piece := range []string{"Reading ", "f.go", " next.\n", `TOOL_CALL {"name":"read_file","arguments":{"path":"f.go"}}`} {
		enc.Encode(api.ChatResponse{Model: "fake", CreatedAt: time.Now().UTC(), Message: api.Message{Role: "assistant", Content: piece}})
	}
	enc.Encode(api.ChatResponse{Model: "fake", CreatedAt: time.Now().UTC(), Message: api.Message{Role: "assistant"}, Done: true, DoneReason: "stop",
		Metrics: api.Metrics{PromptEvalCount: 1000, EvalCount: 30}})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(w, stream.String())
	}))
	defer hs.Close()
	host, err := url.Parse(hs.URL)
	if err != nil {
		b.Fatal(err)
	}
	result := "TOOL_RESULT call_1 read_file SUCCESS\n" + strings.Repeat("func f(a, b int) int { return a*b + 1 }\n", 64)
	ctx := context.Background()
	for _, steps := range []int{20, 400} {
		b.Run(fmt.Sprint(steps), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m := ollama.New(host, "fake", ollama.Options{NumCtx: 16384})
				msgs := []protocol.Message{{Role: protocol.System, Content: "You call tools."}, {Role: protocol.User, Content: "read the files"}}
				for range steps {
					reply, err := m.Chat(ctx, protocol.Request{Messages: msgs, Stop: protocol.StopSequences()}, func(protocol.Delta) {})
					if err != nil {
						b.Fatal(err)
					}
					msgs = append(msgs, protocol.Message{Role: protocol.Assistant, Content: reply.Content}, protocol.Message{Role: protocol.User, Content: result})
				}
			}
		})
	}
}
