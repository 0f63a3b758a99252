package fakemodel

import (
	"errors"
	"fmt"
	"net/http"

	"harness/protocol"
)

// ErrWindow is wrapped by every *WindowError.
var ErrWindow = errors.New("fakemodel: request exceeds the context window")

// windowMessage is the error text Ollama gives, with HTTP 400, for a prompt
// longer than the context window when truncation is off.
const windowMessage = "the input length exceeds the context length"

// defaultNumCtx is the window Ollama uses when a request sets no num_ctx
// (on a machine with little GPU memory).
const defaultNumCtx = 4096

// WindowError is a request refused because its prompt does not fit the
// context window. Its text begins with Ollama's.
type WindowError struct {
	Tokens int // the prompt's tokens, by the model's estimate
	Window int // the window it had to fit
}

func (e *WindowError) Error() string {
	return fmt.Sprintf("%s (%d tokens, num_ctx %d)", windowMessage, e.Tokens, e.Window)
}

func (e *WindowError) Unwrap() error { return ErrWindow }

// SetWindow makes the model hold every request to a context window of
// tokens, as Ollama holds it to num_ctx with truncation and context
// shifting off (as the harness asks): a request whose prompt is longer is
// refused with a *WindowError before it uses up a reply, and a reply that
// would run past the window is cut there, with done reason length. Tokens
// are the model's estimate (see Replying). 0, the default, enforces
// nothing. Call it before the first Chat.
func (m *Model) SetWindow(tokens int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.window = tokens
}

func (m *Model) windowSize() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.window
}

// promptTokens is the model's estimate of the tokens of req's prompt.
func promptTokens(req protocol.Request) int {
	n := 0
	for _, msg := range req.Messages {
		n += len(msg.Content)
	}
	return tokens(n)
}

// fits refuses a prompt of prompt tokens that a window of window tokens
// cannot hold; a window of 0 holds anything.
func fits(prompt, window int) error {
	if window > 0 && prompt > window {
		return &WindowError{Tokens: prompt, Window: window}
	}
	return nil
}

// fitOutput cuts reply where the window fills up, as a server that may not
// shift its context stops generating: thinking first, then content, at
// most 4 bytes a token.
func fitOutput(reply *protocol.Reply, prompt, window int) {
	if window <= 0 || prompt+tokens(len(reply.Thinking)+len(reply.Content)) <= window {
		return
	}
	room := max(window-prompt, 0) * 4
	if len(reply.Thinking) > room {
		reply.Thinking = reply.Thinking[:runeStart(reply.Thinking, room)]
	}
	room -= len(reply.Thinking)
	if len(reply.Content) > room {
		reply.Content = reply.Content[:runeStart(reply.Content, room)]
	}
	reply.DoneReason = protocol.DoneLength
}

// EnforceWindow makes the server hold each chat request to its context
// window as Ollama does: the request's num_ctx option (4096, Ollama's
// default, when it sets none), at most the model's context length. A
// request whose prompt is longer gets HTTP 400 with Ollama's error text, and
// a reply that would run past the window is cut there (see
// [Model.SetWindow]).
func EnforceWindow() Option {
	return func(s *Server) { s.enforce = true }
}

// WithContextLength sets the context length /api/show reports for the
// model (32768 unless set): the most any num_ctx gives under
// [EnforceWindow].
func WithContextLength(tokens int) Option {
	return func(s *Server) { s.contextLength = tokens }
}

// windowOf returns the window a chat request with options opts gets: 0
// when the server enforces none.
func (s *Server) windowOf(opts map[string]any) (int, error) {
	if !s.enforce {
		return 0, nil
	}
	n := defaultNumCtx
	switch v := opts["num_ctx"].(type) {
	case nil:
	case float64:
		if v > 0 {
			n = int(v)
		}
	default:
		return 0, fmt.Errorf("option %q must be of type integer", "num_ctx")
	}
	return min(n, s.maxContext()), nil
}

// maxContext is the model's context length.
func (s *Server) maxContext() int {
	if s.contextLength > 0 {
		return s.contextLength
	}
	return contextLength
}

// chatFailure is the answer to a chat that failed with err, as an HTTP
// status and Ollama's text: 400 with Ollama's own words for a prompt over
// the window, 500 with err's text for anything else.
func chatFailure(err error) (int, string) {
	if errors.Is(err, ErrWindow) {
		return http.StatusBadRequest, windowMessage
	}
	return http.StatusInternalServerError, err.Error()
}
