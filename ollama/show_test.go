package ollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"harness/fakemodel"
	"harness/ollama"
)

func TestContextLengthFromFakeServer(t *testing.T) {
	s, err := fakemodel.Parse("test.fake", nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := fakemodel.NewServer(s, fakemodel.WithModelName("tiny"), fakemodel.WithContextLength(8192))
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	host, _ := url.Parse(hs.URL)
	n, err := ollama.New(host, "tiny", ollama.Options{}).ContextLength(context.Background())
	if err != nil || n != 8192 {
		t.Errorf("ContextLength = %d, %v; want 8192", n, err)
	}
	_, err = ollama.New(host, "llama9", ollama.Options{}).ContextLength(context.Background())
	if !errors.Is(err, ollama.ErrModelNotFound) {
		t.Errorf("missing model: %v", err)
	}
}

// TestContextLength reads what real servers answer: the key of the
// model's architecture first, since a model with a vision part has two.
func TestContextLength(t *testing.T) {
	tests := []struct {
		name string
		info string // model_info as JSON
		want int
	}{
		{"llama", `{"general.architecture":"llama","llama.context_length":131072,"llama.embedding_length":4096}`, 131072},
		{"the architecture's key wins", `{"general.architecture":"qwen25vl","qwen25vl.context_length":128000,"clip.context_length":999999}`, 128000},
		{"no architecture: the largest", `{"a.context_length":2048,"b.context_length":4096}`, 4096},
		{"architecture without its key", `{"general.architecture":"x","y.context_length":1024}`, 1024},
		{"not a number", `{"general.architecture":"x","x.context_length":"big"}`, 0},
		{"not whole", `{"x.context_length":1.5}`, 0},
		{"none", `{"general.architecture":"x"}`, 0},
		{"no model_info", ``, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var req struct{ Model string }
				if r.URL.Path != "/api/show" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "m" {
					t.Errorf("request %s %s for %q", r.Method, r.URL.Path, req.Model)
				}
				body := `{"details":{"format":"gguf"}}`
				if tt.info != "" {
					body = `{"model_info":` + tt.info + `}`
				}
				io.WriteString(w, body)
			}))
			defer hs.Close()
			host, _ := url.Parse(hs.URL)
			n, err := ollama.New(host, "m", ollama.Options{}).ContextLength(context.Background())
			if err != nil || n != tt.want {
				t.Errorf("ContextLength = %d, %v; want %d", n, err, tt.want)
			}
		})
	}
}

func TestContextLengthErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down, _ := ollama.ParseHost(ln.Addr().String())
	ln.Close()
	if _, err := ollama.New(down, "m", ollama.Options{}).ContextLength(context.Background()); !errors.Is(err, ollama.ErrUnreachable) {
		t.Errorf("server down: %v", err)
	}

	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":"boom"}`)
	}))
	defer hs.Close()
	host, _ := url.Parse(hs.URL)
	if _, err := ollama.New(host, "m", ollama.Options{}).ContextLength(context.Background()); !errors.Is(err, ollama.ErrRefused) {
		t.Errorf("server error: %v", err)
	}

	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<html>")
	}))
	defer html.Close()
	host, _ = url.Parse(html.URL)
	if _, err := ollama.New(host, "m", ollama.Options{}).ContextLength(context.Background()); err == nil {
		t.Error("an answer that is not JSON was read")
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ollama.New(host, "m", ollama.Options{}).ContextLength(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestContextLengthReadsABoundedAnswer: an answer to /api/show is read up to
// a bound, as every answer but a reply's stream is, and one longer is an
// error rather than memory spent on it.
func TestContextLengthReadsABoundedAnswer(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"model_info":{"general.architecture":"x","x.context_length":8192,"pad":"`)
		io.WriteString(w, strings.Repeat("x", 5<<20))
		io.WriteString(w, `"}}`)
	}))
	defer hs.Close()
	host, _ := url.Parse(hs.URL)
	if n, err := ollama.New(host, "m", ollama.Options{}).ContextLength(context.Background()); err == nil {
		t.Errorf("ContextLength = %d, read an answer of over 5 MiB whole", n)
	}
}
