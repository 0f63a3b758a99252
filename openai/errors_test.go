package openai_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"harness/openai"
	"harness/protocol"
)

// sse writes events as a chat completions server streams them.
func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		io.WriteString(w, "data: "+e+"\n\n")
	}
}

func delta(content string) string {
	return fmt.Sprintf(`{"choices":[{"index":0,"delta":{"role":"assistant","content":%q},"finish_reason":null}]}`, content)
}

func finish(reason string) string {
	return fmt.Sprintf(`{"choices":[{"index":0,"delta":{},"finish_reason":%q}]}`, reason)
}

const usage = `{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`

// server serves h on /v1/chat/completions and models on /v1/models (a 404
// when models is nil), and counts the chat requests.
type server struct {
	*httptest.Server
	chats atomic.Int64
}

func newServer(t *testing.T, h http.HandlerFunc, models []string) *server {
	t.Helper()
	s := &server{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		s.chats.Add(1)
		h(w, r)
	})
	if models != nil {
		mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
			var data []string
			for _, m := range models {
				data = append(data, fmt.Sprintf(`{"id":%q,"object":"model"}`, m))
			}
			io.WriteString(w, `{"object":"list","data":[`+strings.Join(data, ",")+`]}`)
		})
	}
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// model returns a model for s whose waits are recorded, not waited.
func (s *server) model(t *testing.T, opts openai.Options) (*openai.Model, *[]time.Duration) {
	m := openai.New(mustBase(t, s.URL+"/v1"), "m", opts)
	var waits []time.Duration
	openai.SetSleep(m, func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	})
	return m, &waits
}

// TestChatReplies covers replies the fake server never sends.
func TestChatReplies(t *testing.T) {
	tests := []struct {
		name     string
		handler  http.HandlerFunc
		content  string
		thinking string
		done     string
		usage    protocol.Usage
		deltas   []protocol.Delta
	}{
		{
			name: "stream without usage",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sse(w, delta("hel"), delta("lo"), finish("stop"), "[DONE]")
			},
			content: "hello", done: protocol.DoneStop,
			deltas: []protocol.Delta{{Content: "hel"}, {Content: "lo"}},
		},
		{
			name: "usage",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sse(w, delta("hi"), finish("stop"), usage, "[DONE]")
			},
			content: "hi", done: protocol.DoneStop, usage: protocol.Usage{Known: true, PromptTokens: 12, OutputTokens: 3},
		},
		{
			name: "reasoning_content",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sse(w, `{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"TOOL_CALL {}"}}]}`,
					`{"choices":[{"index":0,"delta":{"content":"answer","reasoning_content":null}}]}`, finish("stop"), "[DONE]")
			},
			content: "answer", thinking: "TOOL_CALL {}", done: protocol.DoneStop,
			deltas: []protocol.Delta{{Thinking: "TOOL_CALL {}"}, {Content: "answer"}},
		},
		{
			name: "reasoning",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sse(w, `{"choices":[{"index":0,"delta":{"reasoning":"hmm"}}]}`, delta("x"), finish("stop"), "[DONE]")
			},
			content: "x", thinking: "hmm", done: protocol.DoneStop,
		},
		{
			name: "reasoning as an object is ignored",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sse(w, `{"choices":[{"index":0,"delta":{"content":"x","reasoning":{"effort":"low"}}}]}`, finish("stop"), "[DONE]")
			},
			content: "x", done: protocol.DoneStop,
		},
		{
			name: "finish_reason length",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sse(w, delta(`TOOL_CALL {"na`), finish("length"), "[DONE]")
			},
			content: `TOOL_CALL {"na`, done: protocol.DoneLength,
		},
		{
			name:    "other finish_reason kept",
			handler: func(w http.ResponseWriter, r *http.Request) { sse(w, delta("x"), finish("content_filter"), "[DONE]") },
			content: "x", done: "content_filter",
		},
		{
			name:    "done without finish_reason",
			handler: func(w http.ResponseWriter, r *http.Request) { sse(w, delta("x"), "[DONE]") },
			content: "x",
		},
		{
			name:    "finish_reason without done",
			handler: func(w http.ResponseWriter, r *http.Request) { sse(w, delta("x"), finish("stop")) },
			content: "x", done: protocol.DoneStop,
		},
		{
			name: "event stream details",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, ": keep-alive\r\n\r\nevent: message\r\ndata: "+delta("a")+"\r\n\r\n"+
					"data:"+delta("b")+"\n\n"+"data: "+finish("stop")+"\n\ndata: [DONE]")
			},
			content: "ab", done: protocol.DoneStop,
		},
		{
			name: "a chunk longer than the read buffer",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sse(w, delta(strings.Repeat("x", 10000)), finish("stop"), "[DONE]")
			},
			content: strings.Repeat("x", 10000), done: protocol.DoneStop,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newServer(t, tt.handler, nil).model(t, openai.Options{})
			var deltas []protocol.Delta
			reply, err := m.Chat(context.Background(), conversation("x"), func(d protocol.Delta) { deltas = append(deltas, d) })
			if err != nil {
				t.Fatal(err)
			}
			want := protocol.Reply{Content: tt.content, Thinking: tt.thinking, DoneReason: tt.done, Usage: tt.usage}
			if reply != want {
				t.Errorf("reply %+v\nwant  %+v", reply, want)
			}
			if tt.deltas != nil && fmt.Sprint(deltas) != fmt.Sprint(tt.deltas) {
				t.Errorf("deltas %q, want %q", deltas, tt.deltas)
			}
		})
	}
}

// TestChatFailures covers what goes wrong after the server answered.
func TestChatFailures(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		is      error
		want    string
		content string
	}{
		{
			name:    "cut before done",
			handler: func(w http.ResponseWriter, r *http.Request) { sse(w, delta("TOOL_CALL {")) },
			is:      openai.ErrIncomplete, content: "TOOL_CALL {",
		},
		{
			name: "error event",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sse(w, delta("par"), `{"error":{"message":"model runner crashed","type":"server_error"}}`)
			},
			is: openai.ErrRefused, want: "model runner crashed", content: "par",
		},
		{
			name: "ollama-shaped error event",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sse(w, delta("par"), `{"error":"the model crashed while loading"}`)
			},
			is: openai.ErrRefused, want: "stopped the reply with an error: the model crashed while loading", content: "par",
		},
		{
			name:    "not json",
			handler: func(w http.ResponseWriter, r *http.Request) { sse(w, "<html>") },
			want:    "reading the reply",
		},
		{
			name: "other error status",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"error":{"message":"context length exceeded","type":"invalid_request_error","code":"context_length_exceeded"}}`)
			},
			is: openai.ErrRefused, want: "HTTP 400: context length exceeded",
		},
		{
			name: "ollama-shaped error",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusInternalServerError)
				io.WriteString(w, `{"error":"out of memory"}`)
			},
			is: openai.ErrRefused, want: "HTTP 500: out of memory",
		},
		{
			name: "plain text error",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusInternalServerError)
				io.WriteString(w, "it broke\n")
			},
			is: openai.ErrRefused, want: "HTTP 500: it broke",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.handler, nil)
			m, waits := s.model(t, openai.Options{})
			reply, err := m.Chat(context.Background(), conversation("x"), nil)
			if err == nil || (tt.is != nil && !errors.Is(err, tt.is)) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %v saying %q", err, tt.is, tt.want)
			}
			if reply.Content != tt.content {
				t.Errorf("content %q, want %q: the part that arrived was lost", reply.Content, tt.content)
			}
			if s.chats.Load() != 1 || len(*waits) != 0 {
				t.Errorf("%d requests, waits %v: asked again", s.chats.Load(), *waits)
			}
		})
	}
}

func TestChatAuth(t *testing.T) {
	tests := []struct {
		name   string
		status int
		opts   openai.Options
		want   string
	}{
		{"refused key", http.StatusUnauthorized, openai.Options{APIKey: "sk-1", KeyVar: "LMSTUDIO_KEY"}, "refused the key in LMSTUDIO_KEY"},
		{"forbidden", http.StatusForbidden, openai.Options{APIKey: "sk-1", KeyVar: "LMSTUDIO_KEY"}, "refused the key in LMSTUDIO_KEY"},
		{"no key", http.StatusUnauthorized, openai.Options{KeyVar: "OPENAI_API_KEY"}, "OPENAI_API_KEY is empty or unset"},
		{"no key, no variable", http.StatusUnauthorized, openai.Options{}, "none was given"},
		{"key withheld", http.StatusUnauthorized, openai.Options{Withheld: "OPENAI_API_KEY"},
			"none was sent: OPENAI_API_KEY is set, but it goes only to https://api.openai.com/v1, or to the address OPENAI_BASE_URL gives beside it, never to another; " +
				"to send it here, set OPENAI_BASE_URL to this address, or name the key in the api_key_env of a provider for this server"},
		{"key, no variable", http.StatusUnauthorized, openai.Options{APIKey: "sk-1"}, "refused the key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				io.WriteString(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
			}, nil)
			m, waits := s.model(t, tt.opts)
			_, err := m.Chat(context.Background(), conversation("x"), nil)
			if !errors.Is(err, openai.ErrUnauthorized) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "Incorrect API key provided") {
				t.Errorf("err = %v, want ErrUnauthorized saying %q", err, tt.want)
			}
			var status *openai.StatusError
			if !errors.As(err, &status) || status.StatusCode != tt.status || status.Code != "invalid_api_key" {
				t.Errorf("err = %#v, want a *StatusError %d", err, tt.status)
			}
			if len(*waits) != 0 {
				t.Errorf("asked again after %v", *waits)
			}
		})
	}
}

func TestChatNotFound(t *testing.T) {
	notFound := func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"The model 'm' does not exist","type":"invalid_request_error","code":"model_not_found"}}`)
	}
	s := newServer(t, notFound, []string{"zeta", "alpha", "mid"})
	m, _ := s.model(t, openai.Options{})
	_, err := m.Chat(context.Background(), conversation("x"), nil)
	if !errors.Is(err, openai.ErrModelNotFound) || !strings.Contains(err.Error(), "serves: alpha, mid, zeta") {
		t.Errorf("err = %v, want ErrModelNotFound listing the models", err)
	}

	many := make([]string, 25)
	for i := range many {
		many[i] = fmt.Sprintf("model-%02d", i)
	}
	m, _ = newServer(t, notFound, many).model(t, openai.Options{})
	_, err = m.Chat(context.Background(), conversation("x"), nil)
	if !errors.Is(err, openai.ErrModelNotFound) || !strings.Contains(err.Error(), "model-19 and 5 more") || strings.Contains(err.Error(), "model-20") {
		t.Errorf("err = %v, want 20 models listed and 5 more", err)
	}

	m, _ = newServer(t, notFound, []string{}).model(t, openai.Options{})
	_, err = m.Chat(context.Background(), conversation("x"), nil)
	if !errors.Is(err, openai.ErrModelNotFound) || !strings.Contains(err.Error(), "no models") {
		t.Errorf("err = %v, want ErrModelNotFound saying there are none", err)
	}

	// Without a model list, the base URL is probably wrong.
	m, _ = newServer(t, notFound, nil).model(t, openai.Options{})
	_, err = m.Chat(context.Background(), conversation("x"), nil)
	if !errors.Is(err, openai.ErrNotFound) || !strings.Contains(err.Error(), "base URL") {
		t.Errorf("err = %v, want ErrNotFound pointing at the base URL", err)
	}
	if _, err := m.Models(context.Background()); !errors.Is(err, openai.ErrNotFound) {
		t.Errorf("Models: err = %v, want ErrNotFound", err)
	}
}

func TestChatRetries(t *testing.T) {
	busy := func(code int, header, value, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if header != "" {
				w.Header().Set(header, value)
			}
			w.WriteHeader(code)
			io.WriteString(w, body)
		}
	}
	// then answers with h after failing n times with fail.
	then := func(n int64, fail, h http.HandlerFunc) http.HandlerFunc {
		var calls atomic.Int64
		return func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) <= n {
				fail(w, r)
				return
			}
			h(w, r)
		}
	}
	ok := func(w http.ResponseWriter, r *http.Request) { sse(w, delta("fine"), finish("stop"), "[DONE]") }
	tests := []struct {
		name    string
		handler http.HandlerFunc
		waits   []time.Duration
		chats   int64
		err     error
		want    string
	}{
		{"503 then success, Retry-After", then(1, busy(503, "Retry-After", "2", "overloaded"), ok),
			[]time.Duration{2 * time.Second}, 2, nil, ""},
		{"429 twice then success, retry-after-ms", then(2, busy(429, "Retry-After-Ms", "1500", `{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`), ok),
			[]time.Duration{1500 * time.Millisecond, 1500 * time.Millisecond}, 3, nil, ""},
		{"502 always, backoff", busy(502, "", "", "bad gateway"),
			[]time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, 4, openai.ErrUnavailable, "HTTP 502: bad gateway (asked 4 times)"},
		{"Retry-After as a date", then(1, busy(503, "Retry-After", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), ""), ok),
			nil, 1, openai.ErrUnavailable, "not asked again"},
		{"wait too long", busy(503, "Retry-After", "3600", "maintenance"),
			nil, 1, openai.ErrUnavailable, "HTTP 503: maintenance (not asked again: the server asks for a wait of 1h0m0s)"},
		{"out of quota", busy(429, "", "", `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`),
			nil, 1, openai.ErrUnavailable, "exceeded your current quota"},
		{"500 is not retried", busy(500, "Retry-After", "1", "oops"),
			nil, 1, openai.ErrRefused, "HTTP 500: oops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.handler, nil)
			m, waits := s.model(t, openai.Options{})
			reply, err := m.Chat(context.Background(), conversation("x"), nil)
			if tt.err == nil {
				if err != nil || reply.Content != "fine" {
					t.Fatalf("reply %+v, err %v", reply, err)
				}
			} else if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %v saying %q", err, tt.err, tt.want)
			}
			if fmt.Sprint(*waits) != fmt.Sprint(tt.waits) || s.chats.Load() != tt.chats {
				t.Errorf("waited %v in %d requests, want %v in %d", *waits, s.chats.Load(), tt.waits, tt.chats)
			}
		})
	}
}

// TestChatInterruptedWhileWaiting: Ctrl-C during a wait for a busy server
// ends the call at once.
func TestChatInterruptedWhileWaiting(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusServiceUnavailable)
	}, nil)
	m := openai.New(mustBase(t, s.URL), "m", openai.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := m.Chat(ctx, conversation("x"), nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want one wrapping the context's error", err)
	}
}

// TestKeyNeverLeaks runs every error path against servers that quote the
// Authorization header back, and checks that the key is in no error and no
// returned value, though it was sent every time.
func TestKeyNeverLeaks(t *testing.T) {
	const key = "sk-proj-SECRET-0123456789"
	echo := func(code int, shape string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+key {
				t.Errorf("Authorization %q: the key was not sent", r.Header.Get("Authorization"))
			}
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(code)
			fmt.Fprintf(w, shape, r.Header.Get("Authorization"))
		}
	}
	handlers := map[string]http.HandlerFunc{
		"401":         echo(401, `{"error":{"message":"Incorrect API key provided: %s","code":"invalid_api_key"}}`),
		"403":         echo(403, `{"error":"forbidden for %s"}`),
		"404":         echo(404, `{"error":{"message":"no model for %s"}}`),
		"429":         echo(429, `{"error":{"message":"slow down, %s"}}`),
		"500 as text": echo(500, `crashed handling %s`),
		"502":         echo(502, `%s`),
		"503":         echo(503, `{"error":{"message":"busy: %s"}}`),
		"error event": func(w http.ResponseWriter, r *http.Request) {
			sse(w, `{"error":{"message":"`+r.Header.Get("Authorization")+`"}}`)
		},
		"ollama-shaped error event": func(w http.ResponseWriter, r *http.Request) {
			sse(w, `{"error":"`+r.Header.Get("Authorization")+`"}`)
		},
		"cut off":      func(w http.ResponseWriter, r *http.Request) { sse(w, delta("partial")) },
		"not json":     func(w http.ResponseWriter, r *http.Request) { sse(w, "{"+r.Header.Get("Authorization")) },
		"no such port": nil,
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			base := "http://127.0.0.1:1/v1"
			if h != nil {
				mux := http.NewServeMux()
				mux.HandleFunc("/v1/chat/completions", h)
				mux.HandleFunc("/v1/models", echo(401, `{"error":{"message":"models need %s"}}`))
				hs := httptest.NewServer(mux)
				defer hs.Close()
				base = hs.URL + "/v1"
			}
			m := openai.New(mustBase(t, base), "m", openai.Options{APIKey: key, KeyVar: "MY_KEY"})
			openai.SetSleep(m, func(context.Context, time.Duration) error { return nil })
			reply, err := m.Chat(context.Background(), conversation("x"), nil)
			if err == nil {
				t.Fatal("no error")
			}
			for what, text := range map[string]string{
				"error":       err.Error(),
				"error %#v":   fmt.Sprintf("%#v", err),
				"reply":       fmt.Sprintf("%#v", reply),
				"inner error": unwrapAll(err),
			} {
				if strings.Contains(text, key) || strings.Contains(text, "SECRET") {
					t.Errorf("the key is in the %s: %s", what, text)
				}
			}
			_, err = m.Models(context.Background())
			if err != nil && strings.Contains(err.Error(), "SECRET") {
				t.Errorf("the key is in the error of Models: %v", err)
			}
		})
	}
}

// unwrapAll is the text of every error err wraps.
func unwrapAll(err error) string {
	var b strings.Builder
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		b.WriteString(e.Error() + "\n")
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	return b.String()
}
