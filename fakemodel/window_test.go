package fakemodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"harness/protocol"
)

// sized is a request of one user message of n bytes: n/4 tokens, rounded up.
func sized(n int) protocol.Request {
	return protocol.Request{Messages: []protocol.Message{{Role: protocol.User, Content: strings.Repeat("x", n)}}}
}

func TestModelWindow(t *testing.T) {
	tests := []struct {
		name    string
		window  int
		prompt  int // bytes
		body    string
		want    string // content, or "" with wantErr
		done    string
		wantErr bool
	}{
		{name: "no window", window: 0, prompt: 1 << 20, body: "ok", want: "ok", done: protocol.DoneStop},
		{name: "fits", window: 100, prompt: 396, body: "ab", want: "ab", done: protocol.DoneStop},
		{name: "exactly full prompt", window: 100, prompt: 400, body: "ab", want: "", done: protocol.DoneLength},
		{name: "one token over", window: 100, prompt: 401, body: "ab", wantErr: true},
		{name: "reply cut where the window fills", window: 100, prompt: 392, body: "0123456789abcdef", want: "01234567", done: protocol.DoneLength},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(mustParse(t, ">>>\n"+tt.body+"\n"))
			m.SetWindow(tt.window)
			r, err := m.Chat(t.Context(), sized(tt.prompt), nil)
			if tt.wantErr {
				var werr *WindowError
				if !errors.As(err, &werr) || !errors.Is(err, ErrWindow) {
					t.Fatalf("err = %v, want a *WindowError", err)
				}
				if werr.Tokens != tokens(tt.prompt) || werr.Window != tt.window {
					t.Errorf("WindowError = %+v", werr)
				}
				if m.Remaining() != 1 {
					t.Error("a refused request used up a reply")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Content != tt.want || r.DoneReason != tt.done {
				t.Errorf("reply %q done %q, want %q done %q", r.Content, r.DoneReason, tt.want, tt.done)
			}
			if tt.window > 0 && r.Usage.PromptTokens+r.Usage.OutputTokens > tt.window {
				t.Errorf("usage %+v runs past the window %d", r.Usage, tt.window)
			}
		})
	}
}

// TestModelWindowCutsThinkingFirst: thinking comes before content, so it is
// what the window keeps first.
func TestModelWindowCutsThinkingFirst(t *testing.T) {
	m := New(mustParse(t, ">>> think=\"0123456789\"\nabcdef\n"))
	m.SetWindow(3)
	r, err := m.Chat(t.Context(), sized(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Thinking != "01234567" || r.Content != "" || r.DoneReason != protocol.DoneLength {
		t.Errorf("reply %+v", r)
	}
}

// postChat sends a chat request with options to the server and returns the
// status and body of the answer.
func postChat(t *testing.T, url string, options map[string]any, content string) (int, string) {
	t.Helper()
	stream := false
	body, err := json.Marshal(api.ChatRequest{Model: "fake", Stream: &stream, Options: options,
		Messages: []api.Message{{Role: "user", Content: content}}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url+"/api/chat", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, strings.TrimSpace(string(got))
}

func TestServerEnforcesWindow(t *testing.T) {
	const overflow = `{"error":"the input length exceeds the context length"}`
	tests := []struct {
		name    string
		opts    []Option
		options map[string]any
		prompt  int // bytes
		status  int
		body    string // the whole body when set, else only the status is checked
	}{
		{name: "not enforced", prompt: 1 << 16, status: 200},
		{name: "num_ctx holds it", opts: []Option{EnforceWindow()}, options: map[string]any{"num_ctx": 64}, prompt: 256, status: 200},
		{name: "over num_ctx", opts: []Option{EnforceWindow()}, options: map[string]any{"num_ctx": 64}, prompt: 257, status: 400, body: overflow},
		{name: "default num_ctx 4096", opts: []Option{EnforceWindow()}, prompt: 4097 * 4, status: 400, body: overflow},
		{name: "within the default", opts: []Option{EnforceWindow()}, prompt: 4096 * 4, status: 200},
		{name: "num_ctx capped by the context length", opts: []Option{EnforceWindow(), WithContextLength(100)},
			options: map[string]any{"num_ctx": 16384}, prompt: 404, status: 400, body: overflow},
		{name: "num_ctx of the wrong type", opts: []Option{EnforceWindow()}, options: map[string]any{"num_ctx": "big"}, prompt: 1, status: 400,
			body: `{"error":"option \"num_ctx\" must be of type integer"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(mustParse(t, ">>>\nok\n"), tt.opts...)
			ts := httptest.NewServer(srv.Handler())
			defer ts.Close()
			status, body := postChat(t, ts.URL, tt.options, strings.Repeat("x", tt.prompt))
			if status != tt.status || (tt.body != "" && body != tt.body) {
				t.Errorf("got %d %s, want %d %s", status, body, tt.status, tt.body)
			}
			if status == 200 {
				var resp api.ChatResponse
				if err := json.Unmarshal([]byte(body), &resp); err != nil {
					t.Fatal(err)
				}
				if resp.PromptEvalCount != tokens(tt.prompt) {
					t.Errorf("prompt_eval_count %d, want %d", resp.PromptEvalCount, tokens(tt.prompt))
				}
			}
		})
	}
}

func TestServerContextLength(t *testing.T) {
	for _, tt := range []struct {
		opts []Option
		want float64
	}{
		{want: 32768},
		{opts: []Option{WithContextLength(8192)}, want: 8192},
	} {
		_, client := start(t, "", tt.opts...)
		show, err := client.Show(t.Context(), &api.ShowRequest{Model: "fake"})
		if err != nil {
			t.Fatal(err)
		}
		if got := show.ModelInfo["fake.context_length"]; got != tt.want {
			t.Errorf("context_length %v (%T), want %v", got, got, tt.want)
		}
	}
}

// TestModelWindowHonoursNumCtx: a model held to a window says that it
// honours num_ctx; one that is not does not.
func TestModelWindowHonoursNumCtx(t *testing.T) {
	m := New(&Script{Name: "s.fake"})
	if m.Describe().Honours(protocol.NumCtx) {
		t.Error("a model with no window honours num_ctx")
	}
	m.SetWindow(4096)
	if b := m.Describe(); !b.Honours(protocol.NumCtx) || !b.Honours(protocol.Stop) || b.Honours(protocol.Temperature) {
		t.Errorf("a model held to a window: %+v", b.Settings)
	}
}
