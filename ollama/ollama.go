// Package ollama adapts a model served by Ollama to the harness: it sends
// the conversation to the native /api/chat endpoint in the wire types of
// github.com/ollama/ollama/api, streams the reply back, and turns the
// server's failures into errors a person can act on.
//
// It posts the request itself rather than through api.Client.Chat, which
// allocates an 8 MiB line buffer for every call: at one call a step that
// buffer was most of the harness's own time and memory. The bytes sent and
// the errors returned (api.StatusError for an HTTP error) are the same.
//
// The native endpoint is used because Ollama's OpenAI-compatible one ignores
// num_ctx. The context size is sent with every request and never changes
// within a run: a different value reloads the model and empties its cache.
// Requests carry truncate=false and shift=false, so a conversation that
// outgrows the context is an error the user sees, not a silent cut of its
// oldest messages, whether the prompt or the reply grows too long. No
// request ever carries tools: the protocol lives in plain text.
package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/ollama/ollama/api"

	"harness/protocol"
)

// What the harness needs to know of Ollama before there is a model: the
// name of the backend (and of its built-in provider), where the server is
// found, and the context window a request asks for.
const (
	// Name names the backend, as Describe gives it.
	Name = "ollama"
	// DefaultHost is where Ollama listens unless told otherwise.
	DefaultHost = "http://127.0.0.1:11434"
	// HostEnv is the environment variable that gives the server's address,
	// read as ParseHost reads it.
	HostEnv = "OLLAMA_HOST"
	// DefaultNumCtx is the context window, in tokens, a request asks for
	// unless told otherwise: Ollama's own default is small, and it drops
	// old messages without a word when a conversation outgrows it.
	DefaultNumCtx = 16384
)

var (
	// ErrUnreachable means no server answered at the address.
	ErrUnreachable = errors.New("cannot reach the Ollama server")
	// ErrModelNotFound means the server does not have the model.
	ErrModelNotFound = errors.New("model not found")
	// ErrRefused means the server answered the request with an error.
	ErrRefused = errors.New("the Ollama server refused the request")
	// ErrIncomplete means the reply's stream ended before the server said
	// it was done.
	ErrIncomplete = errors.New("the reply ended before the server finished it")
)

// Options are the model options sent with every request.
type Options struct {
	NumCtx      int      // context window in tokens; must be set
	NumPredict  int      // maximum output tokens; 0 leaves the server's default
	Temperature *float64 // nil leaves the model's default
	Seed        *int     // nil leaves it random
}

// Model is a model served by Ollama.
type Model struct {
	http *http.Client
	host *url.URL
	chat string // the address of /api/chat
	name string
	opts Options
	sent sent
	// frame is the JSON of the last request without its messages
	// (frameOf), for stop, its stop sequences: the same for every
	// request of a conversation.
	frame struct {
		sync.Mutex
		stop []string
		json []byte
	}
}

// New returns the model called name at host.
func New(host *url.URL, name string, opts Options) *Model {
	go readyJSON()
	return &Model{http: client(), host: host, chat: host.JoinPath("api", "chat").String(), name: name, opts: opts}
}

// readyJSON has encoding/json make, once, what encodes a request and
// decodes the chunks of a reply (it makes them at a type's first use, and
// for each type a map of options holds): New has them made while the rest
// of the program gets ready, not on the way to the first request.
var readyJSON = sync.OnceFunc(func() {
	temperature := 0.5
	m := &Model{opts: Options{NumCtx: 1, Temperature: &temperature}}
	frameOf(api.ChatRequest{Options: m.options([]string{"x"})})
	json.Marshal(api.Message{})
	json.Unmarshal([]byte(`{"message":{}}`), new(chunk))
})

// ParseHost reads an address the way OLLAMA_HOST is written: host, host:port
// or a URL. An empty string means DefaultHost.
func ParseHost(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = DefaultHost
	}
	bare := !strings.Contains(s, "://")
	if bare {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") {
		if err == nil {
			s = u.Redacted()
		}
		return nil, fmt.Errorf("invalid Ollama address %q: want host, host:port or http://host:port", s)
	}
	if bare && u.Port() == "" {
		// Like OLLAMA_HOST: a bare host means Ollama's port, a URL its scheme's.
		u.Host = net.JoinHostPort(u.Hostname(), "11434")
	}
	return u, nil
}

// Chat sends the conversation and streams the reply. On failure it returns
// what had arrived so far with the error.
func (m *Model) Chat(ctx context.Context, req protocol.Request, stream func(protocol.Delta)) (protocol.Reply, error) {
	frame, err := m.frameFor(req.Stop)
	if err != nil {
		return protocol.Reply{}, err
	}
	body, err := m.sent.framed(frame, req.Messages)
	if err != nil {
		return protocol.Reply{}, err
	}
	var reply protocol.Reply
	var content, thinking strings.Builder
	err = m.post(ctx, body, func(r *chunk) error {
		content.WriteString(r.Message.Content)
		thinking.WriteString(r.Message.Thinking)
		if stream != nil && (r.Message.Content != "" || r.Message.Thinking != "") {
			stream(protocol.Delta{Content: r.Message.Content, Thinking: r.Message.Thinking})
		}
		if r.Done {
			reply.DoneReason = r.DoneReason
			reply.Usage = protocol.Usage{
				Known:          r.EvalCount > 0 || r.PromptEvalCount > 0,
				PromptTokens:   r.PromptEvalCount,
				OutputTokens:   r.EvalCount,
				PromptDuration: r.PromptEvalDuration,
				OutputDuration: r.EvalDuration,
			}
		}
		return nil
	})
	reply.Content, reply.Thinking = content.String(), thinking.String()
	if err != nil {
		return reply, m.explain(ctx, err)
	}
	return reply, nil
}

// frameFor returns the JSON of a request with the stop sequences stop,
// without its messages (frameOf): made once, and again only for other
// stop sequences.
func (m *Model) frameFor(stop []string) ([]byte, error) {
	m.frame.Lock()
	defer m.frame.Unlock()
	if m.frame.json != nil && slices.Equal(m.frame.stop, stop) {
		return m.frame.json, nil
	}
	yes, no := true, false
	frame, err := frameOf(api.ChatRequest{
		Model:    m.name,
		Stream:   &yes,
		Truncate: &no,
		Shift:    &no,
		Options:  m.options(stop),
	})
	if err != nil {
		return nil, err
	}
	m.frame.stop, m.frame.json = slices.Clone(stop), frame
	return frame, nil
}

// Describe says what the model is: an Ollama model that honours every
// setting of Options and the stop sequences of each request.
func (m *Model) Describe() protocol.Backend {
	return protocol.Backend{
		Name:     Name,
		Model:    m.name,
		Settings: []protocol.Setting{protocol.NumCtx, protocol.NumPredict, protocol.Temperature, protocol.Seed, protocol.Stop},
		Options:  m.options(nil),
	}
}

func (m *Model) options(stop []string) map[string]any {
	o := map[string]any{string(protocol.NumCtx): m.opts.NumCtx}
	if len(stop) > 0 {
		o[string(protocol.Stop)] = stop
	}
	if m.opts.NumPredict > 0 {
		o[string(protocol.NumPredict)] = m.opts.NumPredict
	}
	if m.opts.Temperature != nil {
		o[string(protocol.Temperature)] = *m.opts.Temperature
	}
	if m.opts.Seed != nil {
		o[string(protocol.Seed)] = *m.opts.Seed
	}
	return o
}

// where is the server's address as an error may show it: without the
// password the address may carry.
func (m *Model) where() string { return m.host.Redacted() }

// explain turns a client error into one that says what is wrong: a
// *MissingError, with the models the server has, for a model it does
// not have (what to do about it depends on the server and on who asks);
// for the others, also what to do.
func (m *Model) explain(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("model call interrupted: %w", ctx.Err())
	}
	var status api.StatusError
	if errors.As(err, &status) {
		if status.StatusCode == http.StatusNotFound {
			return m.missing(ctx)
		}
		msg := status.ErrorMessage
		if msg == "" {
			msg = status.Status
		}
		return fmt.Errorf("%w (HTTP %d): %s", ErrRefused, status.StatusCode, msg)
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return fmt.Errorf("%w at %s: start it with `ollama serve`, or give its address with --host or OLLAMA_HOST: %w", ErrUnreachable, m.where(), err)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return fmt.Errorf("%w at %s: %w", ErrUnreachable, m.where(), err)
	}
	return fmt.Errorf("ollama chat: %w", err)
}
