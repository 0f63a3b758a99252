package fakemodel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"harness/protocol"
)

var (
	// ErrExhausted is wrapped by the error of a Chat call made after the
	// script's last reply was used.
	ErrExhausted = errors.New("fakemodel: script exhausted")
	// ErrExpectation is wrapped by the error of a Chat call whose request
	// did not meet the reply's expect or role.
	ErrExpectation = errors.New("fakemodel: expectation failed")
)

// Model serves the replies of a script in order, each conversation's apart
// (see the package comment). It is safe for concurrent use; concurrent
// calls each take a different reply.
type Model struct {
	name string

	mu     sync.Mutex
	convs  *conversations
	window int // see SetWindow
}

// New returns a model that serves the replies of s.
func New(s *Script) *Model {
	return &Model{name: s.Name, convs: newConversations(slices.Clone(s.Replies))}
}

// Describe says what the model is: a fake whose model is its script. It
// cuts replies at the stop sequences of each request, holds them to a
// context window once SetWindow gave it one (num_ctx), and ignores every
// other setting: its replies are written in the script.
func (m *Model) Describe() protocol.Backend {
	settings := []protocol.Setting{protocol.Stop}
	if m.windowSize() > 0 {
		settings = append(settings, protocol.NumCtx)
	}
	return protocol.Backend{Name: "fake", Model: m.name, Settings: settings}
}

// Remaining reports how many replies have not been served yet.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.convs.remaining()
}

// Chat serves the next reply of the script, checking first that req meets
// what the reply expects. It streams the reply through stream, when not nil,
// before returning it.
func (m *Model) Chat(ctx context.Context, req protocol.Request, stream func(protocol.Delta)) (protocol.Reply, error) {
	return m.chat(ctx, req, stream, m.windowSize())
}

// chat is Chat in a context window of window tokens (0: unbounded).
func (m *Model) chat(ctx context.Context, req protocol.Request, stream func(protocol.Delta), window int) (protocol.Reply, error) {
	if err := ctx.Err(); err != nil {
		return protocol.Reply{}, fmt.Errorf("fakemodel: %w", err)
	}
	prompt := promptTokens(req)
	if err := fits(prompt, window); err != nil {
		return protocol.Reply{}, err
	}
	r, n, err := m.take(req.Messages)
	if err != nil {
		return protocol.Reply{}, err
	}
	where := m.where(r, n)
	if err := check(r, req.Messages); err != nil {
		return protocol.Reply{}, fmt.Errorf("%w: %s: %w", ErrExpectation, where, err)
	}
	if err := sleep(ctx, r.Delay); err != nil {
		return protocol.Reply{}, fmt.Errorf("fakemodel: %s: %w", where, err)
	}

	reply := protocol.Reply{
		Content:    r.Body,
		Thinking:   r.Think,
		DoneReason: protocol.DoneStop,
	}
	if r.Done != "" {
		reply.DoneReason = r.Done
	}
	if content, ok := cut(r.Body, req.Stop); ok {
		reply.Content = content
		reply.DoneReason = protocol.DoneStop
	}
	fitOutput(&reply, prompt, window)
	reply.Usage = protocol.Usage{
		Known:        true,
		PromptTokens: prompt,
		OutputTokens: tokens(len(reply.Thinking) + len(reply.Content)),
	}

	if stream != nil {
		pieces := chunks
		if r.Pace > 0 {
			pieces = words
		}
		first := true
		for _, d := range append(deltas(pieces(reply.Thinking), true), deltas(pieces(reply.Content), false)...) {
			if !first {
				if err := sleep(ctx, r.Pace); err != nil {
					return protocol.Reply{}, fmt.Errorf("fakemodel: %s: %w", where, err)
				}
			}
			first = false
			stream(d)
		}
	}
	return reply, nil
}

// deltas are the pieces of a reply's thinking (thinking set) or content
// as the deltas of its stream.
func deltas(pieces []string, thinking bool) []protocol.Delta {
	out := make([]protocol.Delta, len(pieces))
	for i, p := range pieces {
		if thinking {
			out[i].Thinking = p
		} else {
			out[i].Content = p
		}
	}
	return out
}

// words cuts s after each space and line break: the pieces of a reply
// streamed a word at a time.
func words(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexAny(s, " \n") + 1
		if i == 0 {
			i = len(s)
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// take claims the next reply of the conversation msgs belong to, and its
// 1-based number in the script.
func (m *Model) take(msgs []protocol.Message) (Reply, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.convs.take(msgs, m.scriptName())
}

func (m *Model) scriptName() string {
	if m.name == "" {
		return "(unnamed)"
	}
	return m.name
}

// where names reply n of the script for error messages.
func (m *Model) where(r Reply, n int) string {
	if r.Line > 0 {
		return fmt.Sprintf("%s:%d: reply %d", m.scriptName(), r.Line, n)
	}
	return fmt.Sprintf("%s: reply %d", m.scriptName(), n)
}

// check reports how msgs fail to meet what r expects of the last message.
func check(r Reply, msgs []protocol.Message) error {
	var last protocol.Message
	if len(msgs) > 0 {
		last = msgs[len(msgs)-1]
	}
	if r.Role != "" && last.Role != r.Role {
		return fmt.Errorf("last message should have role %s; got %s", r.Role, describeLast(msgs))
	}
	if !r.Match.matches(last.Content, r.Expect) {
		return fmt.Errorf("last message should %s %s; got %s", r.Match.verb(), excerpt(r.Expect), describeLast(msgs))
	}
	return nil
}

// describeLast describes the last message of msgs for error messages.
func describeLast(msgs []protocol.Message) string {
	if len(msgs) == 0 {
		return "no messages at all"
	}
	last := msgs[len(msgs)-1]
	return fmt.Sprintf("message %d, role %s: %s", len(msgs), last.Role, excerpt(last.Content))
}

// excerpt quotes s, keeping only its start and end when it is long.
func excerpt(s string) string {
	const head, tail = 300, 100
	if len(s) <= head+tail+50 {
		return strconv.Quote(s)
	}
	h := s[:runeStart(s, head)]
	t := s[runeStart(s, len(s)-tail):]
	return fmt.Sprintf("%s [... %d bytes ...] %s", strconv.Quote(h), len(s)-len(h)-len(t), strconv.Quote(t))
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// cut cuts s before the earliest of the stop sequences, if any occurs.
func cut(s string, stops []string) (string, bool) {
	at := -1
	for _, stop := range stops {
		if stop == "" {
			continue
		}
		if i := strings.Index(s, stop); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if at < 0 {
		return s, false
	}
	return s[:at], true
}

// tokens approximates the number of tokens in n bytes of text.
func tokens(n int) int { return (n + 3) / 4 }

// chunks splits s into the pieces it is streamed in: each line in two.
func chunks(s string) []string {
	var out []string
	for _, line := range strings.SplitAfter(s, "\n") {
		if line == "" {
			continue
		}
		if half := runeStart(line, len(line)/2); half > 0 {
			out = append(out, line[:half], line[half:])
		} else {
			out = append(out, line)
		}
	}
	return out
}
