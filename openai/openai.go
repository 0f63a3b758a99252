// Package openai adapts a model served over the OpenAI chat completions API
// to the harness: OpenAI itself, and the many local servers that speak it
// (LM Studio, llama.cpp's server, vLLM, Ollama's /v1, ...). It posts the
// conversation to BASE/chat/completions, streams the reply back as
// server-sent events, and turns the server's failures into errors a person
// can act on.
//
// # Requests
//
// Every request streams and asks for usage with stream_options.include_usage.
// It carries the messages as they are, the stop sequences of the
// protocol.Request, and, when set in [Options], max_tokens, temperature and
// seed. It never carries tools: the tool protocol lives in plain text, which
// every model can write, and the harness reads it.
//
// The base URL is the API's root, the part before /chat/completions, as in
// https://api.openai.com/v1 or http://127.0.0.1:1234/v1; [ParseBaseURL]
// reads one and adds /v1 when it has no path.
//
// # The API key
//
// [Options].APIKey is sent as a bearer token, and is sent nowhere else. It
// is never part of an error: a server message that quotes it has it
// replaced by "[redacted]". [Options].KeyVar names the environment variable
// it came from, so that an error can say which one to fix. A server that
// needs no key (most local ones) gets no Authorization header when the key
// is empty.
//
// # Replies
//
// The content of each chunk streams through Chat's callback and becomes
// the reply's Content, verbatim: <think> spans in it stay where they are,
// and the protocol parser never reads calls inside them. The
// reasoning_content field (or reasoning, as Ollama and others name it) is
// thinking: it streams and is kept apart, as the reply's Thinking.
//
// finish_reason "length" becomes protocol.DoneLength, so the loop refuses
// the calls of a cut-off reply; "stop" becomes protocol.DoneStop; any other
// reason is kept as the server wrote it. The usage chunk gives the token
// counts; from a server that sends none, the reply's Usage has Known false.
// A stream that ends before a finish_reason or "data: [DONE]" is
// [ErrIncomplete]: its calls might be missing their ends.
//
// # Errors
//
// Each error wraps one of the sentinel errors below and, for an HTTP error
// status, a [*StatusError] with the status code and the server's message:
//
//   - 401 and 403 are [ErrUnauthorized], naming the key's variable (never
//     the key).
//   - 404 is [ErrModelNotFound] when GET BASE/models answers and lists other
//     models, and says which; otherwise [ErrNotFound], which points at the
//     base URL.
//   - 429, 502 and 503 are asked again up to three times, after the wait the
//     server gives in Retry-After (or retry-after-ms), else after 1, 2 and 4
//     seconds; then they are [ErrUnavailable]. A server that asks for a wait
//     of over a minute, or answers 429 with the code insufficient_quota, is
//     not asked again.
//   - Any other error status is [ErrRefused].
//   - A server that cannot be reached is [ErrUnreachable], naming the URL.
//   - An interrupted call wraps ctx.Err().
//
// The request is posted with a small buffer and no client library, as the
// ollama package does: at one call a step, the cost of each call is the
// harness's own.
package openai

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
	"time"

	"harness/protocol"
)

// What the harness needs to know of the API before there is a model: the
// name of the backend (and of its built-in provider), where OpenAI's own
// server is, and the environment variables its own libraries read.
const (
	// Name names the backend, as Describe gives it.
	Name = "openai"
	// DefaultBaseURL is OpenAI's own API.
	DefaultBaseURL = "https://api.openai.com/v1"
	// BaseURLEnv is the environment variable that gives the API's root,
	// read as ParseBaseURL reads it.
	BaseURLEnv = "OPENAI_BASE_URL"
	// KeyEnv is the environment variable that holds OpenAI's API key.
	KeyEnv = "OPENAI_API_KEY"
)

var (
	// ErrUnreachable means no server answered at the address.
	ErrUnreachable = errors.New("cannot reach the server")
	// ErrUnauthorized means the server refused the API key, or wanted one.
	ErrUnauthorized = errors.New("the server refused the API key")
	// ErrModelNotFound means the server does not serve the model.
	ErrModelNotFound = errors.New("model not found")
	// ErrNotFound means the server has no chat completions endpoint at the
	// base URL.
	ErrNotFound = errors.New("no chat completions endpoint at the base URL")
	// ErrUnavailable means the server stayed busy or unavailable (HTTP
	// 429, 502 or 503) after being asked again.
	ErrUnavailable = errors.New("the server is busy or unavailable")
	// ErrRefused means the server answered the request with an error.
	ErrRefused = errors.New("the server refused the request")
	// ErrIncomplete means the reply's stream ended before the server said
	// it was done.
	ErrIncomplete = errors.New("the reply ended before the server finished it")
)

// Options are the model options sent with every request, and the key.
type Options struct {
	// APIKey is sent as a bearer token; empty sends no Authorization
	// header.
	APIKey string
	// KeyVar names the environment variable APIKey came from, for errors.
	KeyVar string
	// Withheld names a variable that holds a key which was not sent to
	// this server, an address other than the one the key goes to (KeyEnv
	// goes only to DefaultBaseURL, or to the address BaseURLEnv gives
	// beside it), so that a refusal can say why no key was sent. It is
	// never read: only named.
	Withheld string
	// MaxTokens is the most tokens a reply may have; 0 leaves the
	// server's default.
	MaxTokens   int
	Temperature *float64 // nil leaves the model's default
	Seed        *int     // nil leaves it random
}

// Model is a model served over the OpenAI chat completions API.
type Model struct {
	http  *http.Client
	base  *url.URL
	name  string
	opts  Options
	sleep func(context.Context, time.Duration) error
}

// New returns the model called name at the API whose root is base.
func New(base *url.URL, name string, opts Options) *Model {
	return &Model{http: http.DefaultClient, base: base, name: name, opts: opts, sleep: sleep}
}

// Describe says what the model is: a model served over the chat
// completions API, which honours max tokens, temperature, seed and the
// stop sequences of each request, but not num_ctx: the API has no context
// size, which the server fixes when it loads the model. Options are keyed
// by the protocol's setting names, as for every backend; neither the key
// nor the base URL is among them.
func (m *Model) Describe() protocol.Backend {
	o := map[string]any{}
	if m.opts.MaxTokens > 0 {
		o[string(protocol.NumPredict)] = m.opts.MaxTokens
	}
	if m.opts.Temperature != nil {
		o[string(protocol.Temperature)] = *m.opts.Temperature
	}
	if m.opts.Seed != nil {
		o[string(protocol.Seed)] = *m.opts.Seed
	}
	if len(o) == 0 {
		o = nil
	}
	return protocol.Backend{
		Name:     Name,
		Model:    m.name,
		Settings: []protocol.Setting{protocol.NumPredict, protocol.Temperature, protocol.Seed, protocol.Stop},
		Options:  o,
	}
}

// ParseBaseURL reads the root of an OpenAI-compatible API: a URL such as
// http://127.0.0.1:1234/v1, or host:port for plain HTTP. A URL without a
// path gets /v1, where every such server has it. An empty string means
// DefaultBaseURL.
func ParseBaseURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = DefaultBaseURL
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") {
		if err == nil {
			s = u.Redacted()
		}
		return nil, fmt.Errorf("invalid base URL %q: want http://host:port/v1 or https://host/v1", s)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if u.Path == "" {
		u.Path = "/v1"
	}
	u.RawPath = ""
	return u, nil
}

// request is the body of a chat completions request.
type request struct {
	Model         string     `json:"model"`
	Messages      []message  `json:"messages"`
	Stream        bool       `json:"stream"`
	StreamOptions streamOpts `json:"stream_options"`
	Stop          []string   `json:"stop,omitempty"`
	MaxTokens     int        `json:"max_tokens,omitempty"`
	Temperature   *float64   `json:"temperature,omitempty"`
	Seed          *int       `json:"seed,omitempty"`
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type streamOpts struct {
	IncludeUsage bool `json:"include_usage"`
}

// Chat sends the conversation and streams the reply. On failure it returns
// what had arrived so far with the error.
func (m *Model) Chat(ctx context.Context, req protocol.Request, stream func(protocol.Delta)) (protocol.Reply, error) {
	msgs := make([]message, len(req.Messages))
	for i, msg := range req.Messages {
		msgs[i] = message{Role: string(msg.Role), Content: msg.Content}
	}
	body, err := json.Marshal(request{
		Model:         m.name,
		Messages:      msgs,
		Stream:        true,
		StreamOptions: streamOpts{IncludeUsage: true},
		Stop:          req.Stop,
		MaxTokens:     m.opts.MaxTokens,
		Temperature:   m.opts.Temperature,
		Seed:          m.opts.Seed,
	})
	if err != nil {
		return protocol.Reply{}, fmt.Errorf("openai chat: %w", err)
	}
	var reply protocol.Reply
	var content, thinking strings.Builder
	err = m.post(ctx, body, func(c *chunk) {
		if c.Usage != nil {
			reply.Usage = protocol.Usage{Known: true, PromptTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens}
		}
		for _, ch := range c.Choices {
			if ch.Index != 0 {
				continue
			}
			think := string(ch.Delta.ReasoningContent) + string(ch.Delta.Reasoning)
			content.WriteString(ch.Delta.Content)
			thinking.WriteString(think)
			if stream != nil && (ch.Delta.Content != "" || think != "") {
				stream(protocol.Delta{Content: ch.Delta.Content, Thinking: think})
			}
			if ch.FinishReason != "" {
				reply.DoneReason = ch.FinishReason
			}
		}
	})
	reply.Content, reply.Thinking = content.String(), thinking.String()
	if err != nil {
		return reply, m.explain(ctx, err)
	}
	return reply, nil
}

// explain turns a client error into one that says what to do.
func (m *Model) explain(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("model call interrupted: %w", ctx.Err())
	}
	where := m.base.Redacted()
	var status *StatusError
	if errors.As(err, &status) {
		switch status.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return m.unauthorized(status)
		case http.StatusNotFound:
			return m.notFound(ctx, status)
		case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable:
			return fmt.Errorf("%w: %s answered %w", ErrUnavailable, where, status)
		}
		return fmt.Errorf("%w: %s answered: %w", ErrRefused, where, status)
	}
	var stop *stopped
	if errors.As(err, &stop) {
		return fmt.Errorf("%w: %s stopped the reply with an error: %w", ErrRefused, where, err)
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return fmt.Errorf("%w at %s: is it running, and is that its address (the base URL)? %w", ErrUnreachable, where, err)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return fmt.Errorf("%w at %s: %w", ErrUnreachable, where, err)
	}
	return fmt.Errorf("openai chat at %s: %w", where, err)
}

func (m *Model) unauthorized(status *StatusError) error {
	where := m.base.Redacted()
	switch {
	case m.opts.APIKey == "" && m.opts.KeyVar != "":
		return fmt.Errorf("%w: %s wants an API key and %s is empty or unset: %w", ErrUnauthorized, where, m.opts.KeyVar, status)
	case m.opts.APIKey == "" && m.opts.Withheld != "":
		return fmt.Errorf("%w: %s wants an API key and none was sent: %s is set, but it goes only to %s, or to the address %s gives beside it, never to another; "+
			"to send it here, set %s to this address, or name the key in the api_key_env of a provider for this server: %w",
			ErrUnauthorized, where, m.opts.Withheld, DefaultBaseURL, BaseURLEnv, BaseURLEnv, status)
	case m.opts.APIKey == "":
		return fmt.Errorf("%w: %s wants an API key and none was given: %w", ErrUnauthorized, where, status)
	case m.opts.KeyVar != "":
		return fmt.Errorf("%w: %s refused the key in %s: %w", ErrUnauthorized, where, m.opts.KeyVar, status)
	}
	return fmt.Errorf("%w: %s refused the key: %w", ErrUnauthorized, where, status)
}

// maxListed bounds how many model names a not-found error lists.
const maxListed = 20

// notFound explains a 404: a model the server does not have, which it
// lists, or a base URL with nothing behind it.
func (m *Model) notFound(ctx context.Context, status *StatusError) error {
	where := m.base.Redacted()
	names, err := m.models(ctx)
	if err != nil || slices.Contains(names, m.name) {
		return fmt.Errorf("%w: %s answered POST chat/completions with %w; is the base URL right (it usually ends in /v1)?",
			ErrNotFound, where, status)
	}
	if len(names) == 0 {
		return fmt.Errorf("%w: %s serves no models at all (GET models lists none): %w", ErrModelNotFound, where, status)
	}
	return fmt.Errorf("%w: %q is not served at %s, which serves: %s: %w", ErrModelNotFound, m.name, where, listed(names), status)
}

// Check asks the server whether it serves the model: an *UnlistedError
// when its list of models (GET BASE/models) does not name it, as NAME or
// NAME:latest. A server that lists no models at that address is not asked
// further (nil), and one that cannot be reached, or refuses the key, is
// explained as a chat would be. Some servers answer whatever the name
// (llama.cpp's serves its one model): for them a missing name is no
// failure, so callers warn.
func (m *Model) Check(ctx context.Context) error {
	names, err := m.models(ctx)
	var status *StatusError
	switch {
	case errors.As(err, &status) && status.StatusCode == http.StatusNotFound:
		return nil
	case err != nil:
		return m.explain(ctx, err)
	case slices.Contains(names, m.name) || slices.Contains(names, m.name+":latest"):
		return nil
	}
	return &UnlistedError{Model: m.name, Base: m.base, Listed: names}
}

// UnlistedError is the error of Check for a model the server's list does
// not name. It wraps ErrModelNotFound.
type UnlistedError struct {
	Model  string
	Base   *url.URL // as the model was given it, password and all
	Listed []string // the models the server lists, in its order
}

func (e *UnlistedError) Error() string {
	where := e.Base.Redacted()
	if len(e.Listed) == 0 {
		return fmt.Sprintf("%v: %s lists no models at all (GET models)", ErrModelNotFound, where)
	}
	return fmt.Sprintf("%v: %q is not among the models %s lists: %s", ErrModelNotFound, e.Model, where, listed(e.Listed))
}

func (e *UnlistedError) Unwrap() error { return ErrModelNotFound }

// Certain reports that the model may be there all the same: a server may
// answer to a name its list leaves out.
func (e *UnlistedError) Certain() bool { return false }

// listed is names sorted, as a list of at most maxListed.
func listed(names []string) string {
	names = slices.Sorted(slices.Values(names))
	list := strings.Join(names[:min(len(names), maxListed)], ", ")
	if len(names) > maxListed {
		list += fmt.Sprintf(" and %d more", len(names)-maxListed)
	}
	return list
}

// Models lists the models the server serves (GET BASE/models).
func (m *Model) Models(ctx context.Context) ([]string, error) {
	names, err := m.models(ctx)
	if err != nil {
		var status *StatusError
		if errors.As(err, &status) && status.StatusCode == http.StatusNotFound {
			return nil, fmt.Errorf("%w: %s answered GET models with %w", ErrNotFound, m.base.Redacted(), status)
		}
		return nil, m.explain(ctx, err)
	}
	return names, nil
}
