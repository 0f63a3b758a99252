package fakemodel

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"harness/protocol"
)

// start serves script on a test server and returns a real Ollama client
// for it.
func start(t *testing.T, script string, opts ...Option) (*Server, *api.Client) {
	t.Helper()
	srv := NewServer(mustParse(t, script), opts...)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	u, err := url.Parse(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	return srv, api.NewClient(u, http.DefaultClient)
}

func chatReq(model string, stream bool, msgs ...string) *api.ChatRequest {
	req := &api.ChatRequest{Model: model, Stream: &stream}
	for _, m := range msgs {
		req.Messages = append(req.Messages, api.Message{Role: "user", Content: m})
	}
	return req
}

func statusCode(t *testing.T, err error) int {
	t.Helper()
	var serr api.StatusError
	if !errors.As(err, &serr) {
		t.Fatalf("error %v (%T) is not an api.StatusError", err, err)
	}
	return serr.StatusCode
}

func TestServerChatStreaming(t *testing.T) {
	_, client := start(t, ">>> expect=hello think=\"hmm\"\nline one\nline two\n")
	var content, thinking strings.Builder
	var chunks []api.ChatResponse
	err := client.Chat(t.Context(), chatReq("fake", true, "hello"), func(r api.ChatResponse) error {
		chunks = append(chunks, r)
		content.WriteString(r.Message.Content)
		thinking.WriteString(r.Message.Thinking)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) < 3 {
		t.Fatalf("got %d chunks, want several", len(chunks))
	}
	for _, c := range chunks[:len(chunks)-1] {
		if c.Done || c.Message.Role != "assistant" || c.Model != "fake" {
			t.Errorf("chunk %+v: want assistant, model fake, not done", c)
		}
	}
	final := chunks[len(chunks)-1]
	if !final.Done || final.DoneReason != protocol.DoneStop || final.EvalCount == 0 || final.PromptEvalCount == 0 {
		t.Errorf("final chunk %+v: want done, reason stop, counts", final)
	}
	if content.String() != "line one\nline two" || thinking.String() != "hmm" {
		t.Errorf("streamed %q thinking %q", content.String(), thinking.String())
	}
}

func TestServerChatWhole(t *testing.T) {
	_, client := start(t, ">>> done=length think=t\nall at once\n>>>\ndefault\n", WithModelName("qwen3:8b"))
	var got []api.ChatResponse
	fn := func(r api.ChatResponse) error { got = append(got, r); return nil }
	if err := client.Chat(t.Context(), chatReq("qwen3:8b", false, "hi"), fn); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("got %d responses, want 1", len(got))
	}
	r := got[0]
	if !r.Done || r.DoneReason != protocol.DoneLength || r.Message.Content != "all at once" || r.Message.Thinking != "t" {
		t.Errorf("response %+v", r)
	}

	// A request without stream streams.
	got = nil
	req := chatReq("qwen3:8b", false, "hi")
	req.Stream = nil
	if err := client.Chat(t.Context(), req, fn); err != nil {
		t.Fatal(err)
	}
	if len(got) < 2 {
		t.Errorf("got %d responses without stream set, want a stream", len(got))
	}
}

func TestServerStop(t *testing.T) {
	_, client := start(t, ">>>\nTOOL_CALL {}\nTOOL_RESULT made up\n")
	req := chatReq("fake", false, "go")
	req.Options = map[string]any{"stop": []string{"\nTOOL_RESULT"}, "temperature": 0}
	var r api.ChatResponse
	if err := client.Chat(t.Context(), req, func(c api.ChatResponse) error { r = c; return nil }); err != nil {
		t.Fatal(err)
	}
	if r.Message.Content != "TOOL_CALL {}" || r.DoneReason != protocol.DoneStop {
		t.Errorf("response %q, %q", r.Message.Content, r.DoneReason)
	}
}

func TestServerErrors(t *testing.T) {
	tests := []struct {
		name string
		req  *api.ChatRequest
		code int
	}{
		{"unknown model", chatReq("llama3", true, "hi"), http.StatusNotFound},
		{"no model", chatReq("", true, "hi"), http.StatusBadRequest},
		{"tools", func() *api.ChatRequest {
			r := chatReq("fake:latest", true, "hi")
			r.Tools = api.Tools{{Type: "function", Function: api.ToolFunction{Name: "read"}}}
			return r
		}(), http.StatusBadRequest},
		{"bad stop option", func() *api.ChatRequest {
			r := chatReq("fake", true, "hi")
			r.Options = map[string]any{"stop": "x"}
			return r
		}(), http.StatusBadRequest},
		{"expectation", chatReq("fake", true, "hi"), http.StatusInternalServerError},
		{"exhausted", chatReq("fake", false, "hi"), http.StatusInternalServerError},
	}
	_, client := start(t, ">>> expect=nothing-like-this\nx\n")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := client.Chat(t.Context(), tt.req, func(api.ChatResponse) error {
				t.Error("got a response")
				return nil
			})
			if code := statusCode(t, err); code != tt.code {
				t.Errorf("status %d, want %d (%v)", code, tt.code, err)
			}
		})
	}
}

func TestServerInfo(t *testing.T) {
	_, client := start(t, "", WithModelName("mymodel"))
	ctx := t.Context()
	if err := client.Heartbeat(ctx); err != nil {
		t.Errorf("Heartbeat: %v", err)
	}
	if v, err := client.Version(ctx); err != nil || v == "" {
		t.Errorf("Version = %q, %v", v, err)
	}
	list, err := client.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Models) != 1 || list.Models[0].Name != "mymodel:latest" {
		t.Errorf("List = %+v, want mymodel:latest", list)
	}
	show, err := client.Show(ctx, &api.ShowRequest{Model: "mymodel"})
	if err != nil {
		t.Fatal(err)
	}
	if len(show.Capabilities) == 0 {
		t.Errorf("Show = %+v, want capabilities", show)
	}
	_, err = client.Show(ctx, &api.ShowRequest{Model: "other"})
	if code := statusCode(t, err); code != http.StatusNotFound {
		t.Errorf("Show of another model: status %d, want 404", code)
	}
}

func TestServerLog(t *testing.T) {
	var log bytes.Buffer
	srv, client := start(t, ">>>\nfirst\n>>>\nsecond\n", WithLog(&log))
	ctx := t.Context()
	req := chatReq("fake", false, "one")
	var r api.ChatResponse
	fn := func(c api.ChatResponse) error { r = c; return nil }
	if err := client.Chat(ctx, req, fn); err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, r.Message, api.Message{Role: "user", Content: "two"})
	if err := client.Chat(ctx, req, fn); err != nil {
		t.Fatal(err)
	}
	if srv.Remaining() != 0 {
		t.Errorf("Remaining = %d, want 0", srv.Remaining())
	}

	logged, err := ReadLog(&log)
	if err != nil {
		t.Fatal(err)
	}
	if len(logged) != 2 || srv.count() != 2 {
		t.Fatalf("logged %d requests of %d, want 2", len(logged), srv.count())
	}
	if len(logged[0].Messages) != 1 || len(logged[1].Messages) != 3 || logged[1].Messages[1].Content != "first" {
		t.Errorf("second request logged as %+v", logged[1])
	}
	if err := CheckPrefixes(logged); err != nil {
		t.Errorf("CheckPrefixes: %v", err)
	}
}

func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(mustParse(t, ">>> delay=1h\nnever\n"))
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()

	client := api.NewClient(&url.URL{Scheme: "http", Host: ln.Addr().String()}, http.DefaultClient)
	if err := client.Heartbeat(t.Context()); err != nil {
		t.Fatal(err)
	}
	chatted := make(chan error, 1)
	go func() {
		chatted <- client.Chat(t.Context(), chatReq("fake", true, "hi"), func(api.ChatResponse) error { return nil })
	}()
	for srv.count() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
	if err := <-chatted; err == nil {
		t.Error("a chat cut off by shutdown succeeded")
	}
}

func TestStopOption(t *testing.T) {
	tests := []struct {
		opts map[string]any
		want []string
		ok   bool
	}{
		{nil, nil, true},
		{map[string]any{"stop": nil}, nil, true},
		{map[string]any{"stop": []any{"a", "b"}}, []string{"a", "b"}, true},
		{map[string]any{"stop": "a"}, nil, false},
		{map[string]any{"stop": []any{"a", 1.0}}, nil, false},
	}
	for _, tt := range tests {
		got, err := stopOption(tt.opts)
		if (err == nil) != tt.ok || strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("stopOption(%v) = %q, %v", tt.opts, got, err)
		}
	}
}

// TestServerLogAsSent: the log holds each request as the client sent it,
// compacted onto one line when it spans several, and the request is
// decoded as Ollama decodes it, roles lower-cased.
func TestServerLogAsSent(t *testing.T) {
	var log bytes.Buffer
	srv := NewServer(mustParse(t, ">>>\none\n>>>\ntwo\n"), WithLog(&log))
	h := srv.Handler()
	bodies := []string{
		`{"model":"fake","stream":false,"messages":[{"role":"USER","content":"hi"}],"options":{"num_ctx":8}}`,
		"{\n  \"model\": \"fake\",\n  \"stream\": false,\n  \"messages\": [{\"role\": \"user\", \"content\": \"a\\nb\"}]\n}\n",
	}
	for _, body := range bodies {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/api/chat", strings.NewReader(body)))
		if w.Code != http.StatusOK {
			t.Fatalf("HTTP %d: %s", w.Code, w.Body)
		}
	}
	want := bodies[0] + "\n" + `{"model":"fake","stream":false,"messages":[{"role":"user","content":"a\nb"}]}` + "\n"
	if log.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", log.String(), want)
	}
	var reqs []api.ChatRequest
	for _, body := range bodies {
		req, err := decodeChat([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, req)
	}
	if len(reqs) != 2 || reqs[0].Messages[0].Role != "user" || reqs[1].Messages[0].Content != "a\nb" {
		t.Errorf("decoded requests %+v", reqs)
	}
	if reqs[0].Options["num_ctx"] != float64(8) {
		t.Errorf("options %v", reqs[0].Options)
	}
}

// TestServerKeepsNoRequests: a server keeps nothing of the requests it has
// answered, so that a long session against `harness fake-ollama` does not
// hold every request it sent (the sum of a growing conversation: square in
// its length). 100 requests of 256 KB each would hold 25 MB.
func TestServerKeepsNoRequests(t *testing.T) {
	const n, size = 100, 256 << 10
	srv := NewServer(mustParse(t, strings.Repeat(">>>\nok\n", n)))
	h := srv.Handler()
	body := `{"model":"fake","stream":false,"messages":[{"role":"user","content":"` + strings.Repeat("x", size) + `"}]}`
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	for range n {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/api/chat", strings.NewReader(body)))
		if w.Code != http.StatusOK {
			t.Fatalf("HTTP %d: %s", w.Code, w.Body)
		}
	}
	after := heap()
	if srv.count() != n {
		t.Errorf("count = %d, want %d", srv.count(), n)
	}
	if grown := int64(after) - int64(before); grown > n*size/4 {
		t.Errorf("the heap grew by %d bytes over %d requests of %d bytes: the server keeps them", grown, n, size)
	}
	runtime.KeepAlive(srv)
}
