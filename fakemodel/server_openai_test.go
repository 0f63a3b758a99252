package fakemodel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"harness/protocol"
)

// chunk is a chat.completion.chunk as a client reads it.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			Reasoning string `json:"reasoning"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

// completion is a chat.completion as a client reads it.
type completion struct {
	Object  string `json:"object"`
	Choices []struct {
		Message struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			Reasoning string `json:"reasoning"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// openAIError is the body of an error reply in the OpenAI shape.
type openAIError struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}

// post sends body to path on a test server for srv and returns the reply.
func post(t *testing.T, srv *Server, path, body string) *http.Response {
	t.Helper()
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	resp, err := http.Post(ts.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// events reads a server-sent event stream: the data of each event, and
// whether it ended with [DONE].
func events(t *testing.T, r io.Reader) ([]chunk, bool) {
	t.Helper()
	var out []chunk
	sc := bufio.NewScanner(r)
	blank := true
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			blank = true
			continue
		}
		if !blank {
			t.Fatalf("event line %q does not follow a blank line", line)
		}
		blank = false
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %q is not data", line)
		}
		if data == "[DONE]" {
			if sc.Scan() && sc.Text() != "" || sc.Scan() {
				t.Fatal("the stream goes on after [DONE]")
			}
			return out, true
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		out = append(out, c)
	}
	return out, false
}

func TestServerOpenAIStreaming(t *testing.T) {
	srv := NewServer(mustParse(t, ">>> expect=hello think=\"hmm\"\nline one\nline two\nSTOP here\n"))
	resp := post(t, srv, "/v1/chat/completions", `{"model":"fake","stream":true,"stream_options":{"include_usage":true},
		"stop":"\nSTOP","messages":[{"role":"system","content":"sys"},{"role":"user","content":"hello"}]}`)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("HTTP %d, %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	chunks, done := events(t, resp.Body)
	if !done {
		t.Error("the stream did not end with [DONE]")
	}
	if len(chunks) < 4 {
		t.Fatalf("%d chunks, want several", len(chunks))
	}
	var content, reasoning strings.Builder
	var finish []string
	for _, c := range chunks[:len(chunks)-1] {
		if c.Object != "chat.completion.chunk" || c.Model != "fake" || c.ID != chunks[0].ID || len(c.Choices) != 1 || c.Usage != nil {
			t.Errorf("chunk %+v", c)
			continue
		}
		d := c.Choices[0]
		if d.Delta.Role != "assistant" {
			t.Errorf("delta role %q", d.Delta.Role)
		}
		content.WriteString(d.Delta.Content)
		reasoning.WriteString(d.Delta.Reasoning)
		if d.FinishReason != nil {
			finish = append(finish, *d.FinishReason)
		}
	}
	if content.String() != "line one\nline two" || reasoning.String() != "hmm" {
		t.Errorf("content %q reasoning %q", content.String(), reasoning.String())
	}
	if len(finish) != 1 || finish[0] != protocol.DoneStop {
		t.Errorf("finish reasons %q, want one stop", finish)
	}
	last := chunks[len(chunks)-1]
	if len(last.Choices) != 0 || last.Usage == nil || last.Usage.PromptTokens == 0 || last.Usage.CompletionTokens == 0 ||
		last.Usage.TotalTokens != last.Usage.PromptTokens+last.Usage.CompletionTokens {
		t.Errorf("usage chunk %+v", last)
	}
}

func TestServerOpenAIStreamWithoutUsage(t *testing.T) {
	srv := NewServer(mustParse(t, ">>> done=length\ncut off\n"))
	resp := post(t, srv, "/v1/chat/completions", `{"model":"fake","stream":true,"messages":[{"role":"user","content":"x"}]}`)
	chunks, done := events(t, resp.Body)
	if !done || len(chunks) == 0 {
		t.Fatalf("%d chunks, done %v", len(chunks), done)
	}
	for _, c := range chunks {
		if c.Usage != nil {
			t.Errorf("usage sent unasked: %+v", c.Usage)
		}
	}
	last := chunks[len(chunks)-1].Choices[0].FinishReason
	if last == nil || *last != protocol.DoneLength {
		t.Errorf("finish reason %v, want length", last)
	}
}

func TestServerOpenAIWhole(t *testing.T) {
	// Content as an array of parts, as some clients send it; roles in any
	// case, lower-cased as Ollama does (role=user checks it).
	srv := NewServer(mustParse(t, ">>> done=length think=t expect=hello role=user\nall at once\n"), WithModelName("qwen3:8b"))
	resp := post(t, srv, "/v1/chat/completions", `{"model":"qwen3:8b","messages":[{"role":"USER","content":[{"type":"text","text":"hello"}]}]}`)
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("HTTP %d: %s", resp.StatusCode, b)
	}
	var c completion
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	if c.Object != "chat.completion" || len(c.Choices) != 1 {
		t.Fatalf("completion %+v", c)
	}
	ch := c.Choices[0]
	if ch.Message.Role != "assistant" || ch.Message.Content != "all at once" || ch.Message.Reasoning != "t" || ch.FinishReason != protocol.DoneLength {
		t.Errorf("choice %+v", ch)
	}
	if c.Usage.PromptTokens == 0 || c.Usage.CompletionTokens == 0 {
		t.Errorf("usage %+v", c.Usage)
	}
}

// TestServerOpenAIRequestLogged: an OpenAI request has its stop sequences
// applied, and is logged as the client sent it.
func TestServerOpenAIRequestLogged(t *testing.T) {
	var log bytes.Buffer
	srv := NewServer(mustParse(t, ">>>\nTOOL_CALL {}\nTOOL_RESULT made up\n"), WithLog(&log))
	body := `{"model":"fake","messages":[{"role":"user","content":"go"}],"stop":["\nTOOL_RESULT"],"max_tokens":99,"temperature":0.5,"seed":7}`
	resp := post(t, srv, "/v1/chat/completions", body)
	var c completion
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	if c.Choices[0].Message.Content != "TOOL_CALL {}" || c.Choices[0].FinishReason != protocol.DoneStop {
		t.Errorf("the stop sequence was not applied: %+v", c.Choices[0])
	}
	if log.String() != body+"\n" {
		t.Errorf("log %q, want the body as sent", log.String())
	}
}

func TestServerOpenAIErrors(t *testing.T) {
	tests := []struct {
		name, body string
		code       int
		kind       string
	}{
		{"unknown model", `{"model":"llama3","messages":[{"role":"user","content":"hi"}]}`, http.StatusNotFound, "not_found_error"},
		{"no model", `{"messages":[{"role":"user","content":"hi"}]}`, http.StatusBadRequest, "invalid_request_error"},
		{"no messages", `{"model":"fake","messages":[]}`, http.StatusBadRequest, "invalid_request_error"},
		{"tools", `{"model":"fake","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"read"}}]}`, http.StatusBadRequest, "invalid_request_error"},
		{"bad stop", `{"model":"fake","messages":[{"role":"user","content":"hi"}],"stop":3}`, http.StatusBadRequest, "invalid_request_error"},
		{"not json", `{"model":`, http.StatusBadRequest, "invalid_request_error"},
		{"expectation", `{"model":"fake","stream":true,"messages":[{"role":"user","content":"hi"}]}`, http.StatusInternalServerError, "api_error"},
		{"exhausted", `{"model":"fake","messages":[{"role":"user","content":"hi"}]}`, http.StatusInternalServerError, "api_error"},
	}
	srv := NewServer(mustParse(t, ">>> expect=nothing-like-this\nx\n"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, srv, "/v1/chat/completions", tt.body)
			var e openAIError
			if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.code || e.Error.Type != tt.kind || e.Error.Message == "" {
				t.Errorf("HTTP %d %+v, want %d %s", resp.StatusCode, e, tt.code, tt.kind)
			}
		})
	}
}

func TestServerOpenAIModels(t *testing.T) {
	srv := NewServer(mustParse(t, ""), WithModelName("qwen2.5-coder:7b"))
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	get := func(path string, v any) int {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode
	}
	var list struct {
		Object string `json:"object"`
		Data   []struct {
			ID      string `json:"id"`
			Object  string `json:"object"`
			Created int64  `json:"created"`
		} `json:"data"`
	}
	// created is a time in Unix seconds, as a real server gives, not the
	// zero time's -62135596800.
	if code := get("/v1/models", &list); code != http.StatusOK || list.Object != "list" || len(list.Data) != 1 ||
		list.Data[0].ID != "qwen2.5-coder:7b" || list.Data[0].Object != "model" || list.Data[0].Created <= 0 {
		t.Errorf("HTTP %d, list %+v", code, list)
	}
	var m struct {
		ID string `json:"id"`
	}
	if code := get("/v1/models/qwen2.5-coder:7b", &m); code != http.StatusOK || m.ID != "qwen2.5-coder:7b" {
		t.Errorf("retrieve: HTTP %d, %+v", code, m)
	}
	var e openAIError
	if code := get("/v1/models/other", &e); code != http.StatusNotFound || e.Error.Type != "not_found_error" {
		t.Errorf("retrieve another: HTTP %d, %+v", code, e)
	}
}

func TestServerGenerate(t *testing.T) {
	srv, client := start(t, ">>> expect=\"why is the sky blue\" think=hmm\nRayleigh\nscattering\n>>> role=user\nwhole\n")
	ctx := t.Context()

	// Without a prompt, a request only loads the model, as `ollama run`
	// does first; it uses no reply.
	var loaded api.GenerateResponse
	if err := client.Generate(ctx, &api.GenerateRequest{Model: "fake"}, func(r api.GenerateResponse) error { loaded = r; return nil }); err != nil {
		t.Fatal(err)
	}
	if !loaded.Done || loaded.DoneReason != "load" || srv.Remaining() != 2 {
		t.Errorf("load: %+v, %d replies left", loaded, srv.Remaining())
	}

	var content, thinking strings.Builder
	var last api.GenerateResponse
	n := 0
	err := client.Generate(ctx, &api.GenerateRequest{Model: "fake", System: "be brief", Prompt: "why is the sky blue?"}, func(r api.GenerateResponse) error {
		n++
		content.WriteString(r.Response)
		thinking.WriteString(r.Thinking)
		last = r
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 3 || content.String() != "Rayleigh\nscattering" || thinking.String() != "hmm" {
		t.Errorf("%d chunks, response %q, thinking %q", n, content.String(), thinking.String())
	}
	if !last.Done || last.DoneReason != protocol.DoneStop || last.EvalCount == 0 {
		t.Errorf("last chunk %+v", last)
	}

	no := false
	err = client.Generate(ctx, &api.GenerateRequest{Model: "fake", Prompt: "x", Stream: &no}, func(r api.GenerateResponse) error { last = r; return nil })
	if err != nil || last.Response != "whole" || !last.Done {
		t.Errorf("whole: %+v, %v", last, err)
	}

	err = client.Generate(ctx, &api.GenerateRequest{Model: "other", Prompt: "x"}, func(api.GenerateResponse) error { return nil })
	if code := statusCode(t, err); code != http.StatusNotFound {
		t.Errorf("another model: status %d", code)
	}
	err = client.Generate(ctx, &api.GenerateRequest{Model: "fake", Prompt: "x"}, func(api.GenerateResponse) error { return nil })
	if code := statusCode(t, err); code != http.StatusInternalServerError {
		t.Errorf("exhausted: status %d", code)
	}
	if srv.count() != 0 {
		t.Error("generate requests were counted as chat requests")
	}
}

func TestServerGenerateStop(t *testing.T) {
	_, client := start(t, ">>>\nanswer\nSTOP more\n")
	var got strings.Builder
	req := &api.GenerateRequest{Model: "fake", Prompt: "x", Options: map[string]any{"stop": []string{"\nSTOP"}}}
	if err := client.Generate(t.Context(), req, func(r api.GenerateResponse) error { got.WriteString(r.Response); return nil }); err != nil {
		t.Fatal(err)
	}
	if got.String() != "answer" {
		t.Errorf("response %q, want it cut at the stop sequence", got.String())
	}
}

func TestServerPs(t *testing.T) {
	_, client := start(t, "", WithModelName("tiny"))
	ps, err := client.ListRunning(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(ps.Models) != 1 || ps.Models[0].Name != "tiny:latest" || ps.Models[0].ContextLength == 0 || ps.Models[0].ExpiresAt.IsZero() {
		t.Errorf("ps = %+v", ps)
	}
}

// TestServerOneScript: one script drives every endpoint, each request
// taking the next reply and checking what it expects of the conversation
// that request carries.
func TestServerOneScript(t *testing.T) {
	srv, client := start(t, ">>> expect=one\nfirst\n>>> expect=two\nsecond\n>>> expect=three\nthird\n")
	var r api.ChatResponse
	if err := client.Chat(t.Context(), chatReq("fake", false, "one"), func(c api.ChatResponse) error { r = c; return nil }); err != nil || r.Message.Content != "first" {
		t.Fatalf("/api/chat: %+v, %v", r, err)
	}
	resp := post(t, srv, "/v1/chat/completions", `{"model":"fake","messages":[{"role":"user","content":"one"},{"role":"assistant","content":"first"},{"role":"user","content":"two"}]}`)
	var c completion
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || len(c.Choices) != 1 || c.Choices[0].Message.Content != "second" {
		t.Fatalf("/v1/chat/completions: %+v, %v", c, err)
	}
	var g api.GenerateResponse
	if err := client.Generate(t.Context(), &api.GenerateRequest{Model: "fake", Prompt: "three"}, func(x api.GenerateResponse) error { g = x; return nil }); err != nil || !g.Done {
		t.Fatalf("/api/generate: %+v, %v", g, err)
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d replies left", srv.Remaining())
	}
}

// TestServerOpenAIEnforcesWindow: /v1/chat/completions has no num_ctx, so
// under EnforceWindow a request gets Ollama's default window, at most the
// model's context length: a longer prompt is refused with HTTP 400 and
// Ollama's text in the OpenAI shape, and a reply that would run past the
// window is cut there, with finish_reason length.
func TestServerOpenAIEnforcesWindow(t *testing.T) {
	request := func(prompt int) string {
		return `{"model":"fake","messages":[{"role":"user","content":"` + strings.Repeat("x", prompt) + `"}]}`
	}
	tests := []struct {
		name   string
		opts   []Option
		prompt int
		status int
		finish string
	}{
		{name: "not enforced", prompt: 1 << 16, status: http.StatusOK, finish: protocol.DoneStop},
		{name: "within the default", opts: []Option{EnforceWindow()}, prompt: 4000 * 4, status: http.StatusOK, finish: protocol.DoneStop},
		{name: "over the default", opts: []Option{EnforceWindow()}, prompt: 4097 * 4, status: http.StatusBadRequest},
		{name: "over the context length", opts: []Option{EnforceWindow(), WithContextLength(100)}, prompt: 404, status: http.StatusBadRequest},
		{name: "the reply runs past it", opts: []Option{EnforceWindow(), WithContextLength(100)}, prompt: 396, status: http.StatusOK, finish: protocol.DoneLength},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(mustParse(t, ">>>\n"+strings.Repeat("y", 64)+"\n"), tt.opts...)
			resp := post(t, srv, "/v1/chat/completions", request(tt.prompt))
			if resp.StatusCode != tt.status {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("HTTP %d %s, want %d", resp.StatusCode, b, tt.status)
			}
			if tt.status != http.StatusOK {
				var e openAIError
				if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
					t.Fatal(err)
				}
				if e.Error.Message != windowMessage || e.Error.Type != "invalid_request_error" {
					t.Errorf("error %+v, want Ollama's text as an invalid_request_error", e.Error)
				}
				if srv.Remaining() != 1 {
					t.Error("a refused request used up a reply")
				}
				return
			}
			var c completion
			if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
				t.Fatal(err)
			}
			if got := c.Choices[0].FinishReason; got != tt.finish {
				t.Errorf("finish_reason %q, want %q", got, tt.finish)
			}
		})
	}
}
