package fakemodel

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"

	"harness/protocol"
)

// DefaultModelName is the name a Server answers to unless told otherwise.
const DefaultModelName = "fake"

// Family is the model family a Server reports for its model, in its list
// of models and their details: a client can tell the fake from a real
// Ollama by it, and say which model to ask for instead of how to pull one.
const Family = "fake"

// version is what the server reports as its Ollama version: the one whose
// API it imitates.
const version = "0.17.4"

// contextLength is the context length the server claims for its model.
const contextLength = 32768

// Server serves a script over Ollama's HTTP API, native and
// OpenAI-compatible.
type Server struct {
	model *Model
	name  string
	log   io.Writer

	enforce       bool // see EnforceWindow
	contextLength int  // see WithContextLength

	mu sync.Mutex
	n  int // chat requests received

	// made is when the server was made, the time its one model was last
	// modified, as a real server lists it.
	made time.Time
}

// Option configures a Server.
type Option func(*Server)

// WithModelName sets the name of the one model the server serves.
func WithModelName(name string) Option {
	return func(s *Server) { s.name = name }
}

// WithLog makes the server write every chat request it receives to w, as
// the client sent it, one JSON line each. See ReadLog.
func WithLog(w io.Writer) Option {
	return func(s *Server) { s.log = w }
}

// NewServer returns a server whose chat replies come from s.
func NewServer(s *Script, opts ...Option) *Server {
	srv := &Server{model: New(s), name: DefaultModelName, made: time.Now().UTC().Truncate(time.Second)}
	for _, o := range opts {
		o(srv)
	}
	return srv
}

// Remaining reports how many replies of the script have not been served.
func (s *Server) Remaining() int { return s.model.Remaining() }

// Handler returns the HTTP handler of the server's API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "Ollama is running")
	})
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": version})
	})
	mux.HandleFunc("GET /api/tags", s.tags)
	mux.HandleFunc("POST /api/show", s.show)
	mux.HandleFunc("POST /api/chat", s.chat)
	mux.HandleFunc("POST /api/generate", s.generate)
	mux.HandleFunc("GET /api/ps", s.ps)
	mux.HandleFunc("POST /v1/chat/completions", s.chatCompletions)
	mux.HandleFunc("GET /v1/models", s.listModels)
	mux.HandleFunc("GET /v1/models/{model...}", s.retrieveModel)
	return mux
}

// Serve serves the API on ln until ctx is done, then shuts down gracefully.
// Requests in flight see their context cancelled, so delayed replies end.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:     s.Handler(),
		BaseContext: func(net.Listener) context.Context { return ctx },
		ErrorLog:    log.New(io.Discard, "", 0),
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("fakemodel: serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("fakemodel: shutdown: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("fakemodel: serve: %w", err)
	}
	return nil
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if len(bytes.TrimSpace(body)) == 0 {
		writeError(w, http.StatusBadRequest, "missing request body")
		return
	}
	req, err := decodeChat(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := s.record(body); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if code, msg := s.refuse(req.Model, len(req.Tools) > 0); code != 0 {
		writeError(w, code, msg)
		return
	}
	stop, err := stopOption(req.Options)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	window, err := s.windowOf(req.Options)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	preq := protocol.Request{Messages: messages(req.Messages), Stop: stop}

	streaming := req.Stream == nil || *req.Stream
	send := ndjson[api.ChatResponse](w)
	var stream func(protocol.Delta)
	if streaming {
		stream = func(d protocol.Delta) {
			send(api.ChatResponse{
				Model:     req.Model,
				CreatedAt: time.Now().UTC(),
				Message:   api.Message{Role: "assistant", Content: d.Content, Thinking: d.Thinking},
			})
		}
	}

	// The model reports every error before it streams anything, so the
	// status line can still carry it.
	reply, err := s.model.chat(r.Context(), preq, stream, window)
	if err != nil {
		code, msg := chatFailure(err)
		writeError(w, code, msg)
		return
	}
	final := api.ChatResponse{
		Model:      req.Model,
		CreatedAt:  time.Now().UTC(),
		Message:    api.Message{Role: "assistant"},
		Done:       true,
		DoneReason: reply.DoneReason,
		Metrics: api.Metrics{
			TotalDuration:   time.Since(start),
			PromptEvalCount: reply.Usage.PromptTokens,
			EvalCount:       reply.Usage.OutputTokens,
		},
	}
	if !streaming {
		final.Message.Content = reply.Content
		final.Message.Thinking = reply.Thinking
		writeJSON(w, http.StatusOK, final)
		return
	}
	send(final)
}

// chatRequest is a chat request as it is decoded. Its messages skip
// api.Message's own UnmarshalJSON, which decodes each message twice: on a
// long conversation that was most of the server's time.
type chatRequest struct {
	api.ChatRequest
	Messages []message `json:"messages"`
}

// message has the fields of api.Message, so that one converts to the other.
type message struct {
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	Thinking   string          `json:"thinking,omitempty"`
	Images     []api.ImageData `json:"images,omitempty"`
	ToolCalls  []api.ToolCall  `json:"tool_calls,omitempty"`
	ToolName   string          `json:"tool_name,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// decodeChat decodes the body of a chat request as Ollama does, roles
// lower-cased included.
func decodeChat(body []byte) (api.ChatRequest, error) {
	var in chatRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return api.ChatRequest{}, err
	}
	req := in.ChatRequest
	for _, m := range in.Messages {
		m.Role = strings.ToLower(m.Role)
		req.Messages = append(req.Messages, api.Message(m))
	}
	return req, nil
}

// record counts a chat request and writes body, the request as
// received, to the log, if there is one, as one line. Nothing of it is
// kept: a session's requests together grow as the square of its length.
func (s *Server) record(body []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	if s.log == nil {
		return nil
	}
	line := bytes.TrimSpace(body)
	if bytes.ContainsAny(line, "\r\n") {
		var b bytes.Buffer
		if err := json.Compact(&b, line); err != nil {
			return fmt.Errorf("fakemodel: logging request: %w", err)
		}
		line = b.Bytes()
	}
	if _, err := s.log.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("fakemodel: logging request: %w", err)
	}
	return nil
}

// refuse says why a request for model, with native tools or not, gets no
// reply, as an HTTP status and Ollama's error text; 0 when it gets one.
func (s *Server) refuse(model string, tools bool) (int, string) {
	switch {
	case model == "":
		return http.StatusBadRequest, "model is required"
	case !s.serves(model):
		return http.StatusNotFound, fmt.Sprintf("model '%s' not found", model)
	case tools:
		return http.StatusBadRequest, qualified(model) + " does not support tools"
	}
	return 0, ""
}

// count reports how many chat requests the server has received.
func (s *Server) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func (s *Server) tags(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.list())
}

// list lists the one model the server serves.
func (s *Server) list() api.ListResponse {
	name := withTag(s.name)
	return api.ListResponse{Models: []api.ListModelResponse{{
		Name:       name,
		Model:      name,
		ModifiedAt: s.made,
		Digest:     s.digest(),
		Details:    s.details(),
	}}}
}

func (s *Server) digest() string {
	return fmt.Sprintf("%x", sha256.Sum256([]byte(withTag(s.name))))
}

func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	var req api.ShowRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	name := req.Model
	if name == "" {
		//lint:ignore SA1019 older clients still send the model as "name", and Ollama's /api/show takes it when "model" is empty; the fake must answer them alike
		name = req.Name
	}
	if name == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	if !s.serves(name) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}
	writeJSON(w, http.StatusOK, api.ShowResponse{
		Details: s.details(),
		ModelInfo: map[string]any{
			"general.architecture": "fake",
			"fake.context_length":  s.maxContext(),
		},
		Capabilities: []model.Capability{model.CapabilityCompletion},
	})
}

func (s *Server) details() api.ModelDetails {
	return api.ModelDetails{Format: "gguf", Family: Family, Families: []string{Family}}
}

// serves reports whether name names the server's model.
func (s *Server) serves(name string) bool {
	return withTag(name) == withTag(s.name)
}

// withTag adds the tag "latest" to a model name that has none.
func withTag(name string) string {
	base := name[strings.LastIndex(name, "/")+1:]
	if strings.Contains(base, ":") {
		return name
	}
	return name + ":latest"
}

// qualified spells a model name out in full, host and namespace included,
// as Ollama does in some errors.
func qualified(name string) string {
	name = withTag(name)
	switch strings.Count(name, "/") {
	case 0:
		return "registry.ollama.ai/library/" + name
	case 1:
		return "registry.ollama.ai/" + name
	}
	return name
}

// stopOption reads the "stop" option of a chat request.
func stopOption(opts map[string]any) ([]string, error) {
	v, ok := opts["stop"]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("option %q must be of type array", "stop")
	}
	stop := make([]string, len(list))
	for i, item := range list {
		if stop[i], ok = item.(string); !ok {
			return nil, fmt.Errorf("option %q must be of an array of strings", "stop")
		}
	}
	return stop, nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	// A failed write means the client has gone; nothing is left to tell.
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

// ndjson returns what writes each value as one line of a streamed NDJSON
// reply: the first starts the reply (200), and each is flushed at once.
func ndjson[T any](w http.ResponseWriter) func(T) {
	started := false
	enc := json.NewEncoder(w)
	return func(v T) {
		if !started {
			w.Header().Set("Content-Type", "application/x-ndjson")
			w.WriteHeader(http.StatusOK)
			started = true
		}
		// A failed write means the client has gone; nothing is left to tell.
		enc.Encode(v)
		http.NewResponseController(w).Flush()
	}
}
