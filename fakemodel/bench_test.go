package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// BenchmarkServerChat is the fake server's own cost for the last request
// of a 20-step session (about 56 KB, 40 messages) with the request log on:
// what every benchmark run against it adds to the client's time.
func BenchmarkServerChat(b *testing.B) {
	req := api.ChatRequest{Model: "fake", Options: map[string]any{"num_ctx": 16384, "stop": []string{"\nTOOL_RESULT"}}}
	req.Messages = append(req.Messages, api.Message{Role: "system", Content: strings.Repeat("You are a coding assistant.\n", 100)})
	req.Messages = append(req.Messages, api.Message{Role: "user", Content: "read the files"})
	for n := 1; n < 20; n++ {
		req.Messages = append(req.Messages,
			api.Message{Role: "assistant", Content: fmt.Sprintf("Reading f%02d.go.\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"f%02d.go\"}}", n, n)},
			api.Message{Role: "user", Content: fmt.Sprintf("TOOL_RESULT call_%d read_file SUCCESS\n", n) + strings.Repeat("func f(a, b int) int { return a*b + 1 }\n", 64)})
	}
	body, err := json.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	script := &Script{Replies: []Reply{{Body: "Reading the next file.\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a.go\"}}"}}}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		h := NewServer(script, WithLog(io.Discard)).Handler()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/api/chat", strings.NewReader(string(body))))
		if w.Code != http.StatusOK {
			b.Fatalf("HTTP %d: %s", w.Code, w.Body)
		}
	}
}
