package window

import (
	"context"
	"errors"
	"strings"
	"time"

	"harness/loop"
	"harness/protocol"
)

// SummaryHeader is the first line of every summary message: how a summary
// is told from what the user wrote. The summary's text follows it.
const SummaryHeader = "[summary of the earlier conversation, written to save context; the messages it replaces are gone]"

// Summarizer writes the summary that replaces the older part of a
// conversation.
type Summarizer interface {
	// Summarize is given the conversation's system prompt and the messages
	// the summary will replace, in order (an earlier summary among them),
	// and returns the summary's text.
	Summarize(ctx context.Context, msgs []protocol.Message) (string, error)
}

// SummaryMessage returns the message that carries a summary's text.
func SummaryMessage(text string) protocol.Message {
	return protocol.Message{Role: protocol.User, Content: SummaryHeader + "\n" + strings.TrimSpace(text)}
}

// isSummary reports whether m reads as a summary message; where it stands
// says whether it is one (see Parts).
func isSummary(m protocol.Message) bool {
	return m.Role == protocol.User && (m.Content == SummaryHeader || strings.HasPrefix(m.Content, SummaryHeader+"\n"))
}

// SummaryOrigin is the Origin of the events a ModelSummarizer emits.
const SummaryOrigin = "summary"

// SummaryRequest is the instruction that ends a summary request: the last
// message, from the user, of every request a ModelSummarizer sends.
const SummaryRequest = `Stop working on the task for a moment: the messages above, after the system prompt, are about to be removed to save context, and replaced by a summary you write now for your own later use. The latest request of the user and your most recent steps will stay as they are.

Write the summary in plain text, at most 300 words, with no tool calls, under these headings:
Done: what was done, step by step, briefly.
Learned: facts found that still matter (names, paths, line numbers, commands, errors, results).
Files changed: each file written or edited, and how.
Open: what is left to do, and what the user asked that is not finished.`

// ErrEmptySummary is returned by a ModelSummarizer whose model wrote no
// summary. A Summarizer may return it too: a Compactor then does without a
// summary.
var ErrEmptySummary = errors.New("the model wrote no summary")

// ModelSummarizer returns a Summarizer that asks m. The request is the
// messages to summarize, which begin as the conversation does, so that a
// server can reuse its cache, and an instruction to summarize them; the
// summary is the reply's text as parse reads it (as the loop reads the
// conversation's replies; nil means protocol.Parse), calls and thinking
// left out. Each request is
// shown to hooks as a one-step conversation with Origin SummaryOrigin: a
// StepStarted event before it, and a Replied event after, so that budgets
// count it (a hook's error stops it and is returned), the run record keeps
// it and the user can see it.
func ModelSummarizer(m loop.Model, parse func(string) protocol.Parsed, hooks ...loop.Hook) Summarizer {
	if parse == nil {
		parse = protocol.Parse
	}
	return &modelSummarizer{model: m, parse: parse, hooks: hooks}
}

type modelSummarizer struct {
	model loop.Model
	parse func(string) protocol.Parsed
	hooks loop.Hooks
}

func (s *modelSummarizer) Summarize(ctx context.Context, msgs []protocol.Message) (string, error) {
	req := protocol.Request{
		Messages: append(msgs[:len(msgs):len(msgs)], protocol.Message{Role: protocol.User, Content: SummaryRequest}),
		Stop:     protocol.StopSequences(),
	}
	if err := s.emit(loop.Event{Kind: loop.StepStarted, Step: 1, Request: req}); err != nil {
		return "", err
	}
	start := time.Now()
	reply, err := s.model.Chat(ctx, req, nil)
	if err != nil {
		return "", err
	}
	parsed := s.parse(reply.Content)
	if err := s.emit(loop.Event{Kind: loop.Replied, Step: 1, Reply: reply, Parsed: parsed, Duration: time.Since(start)}); err != nil {
		return "", err
	}
	text := strings.TrimSpace(parsed.Text)
	if text == "" {
		return "", ErrEmptySummary
	}
	return text, nil
}

// emit shows e to the hooks and returns the first error.
func (s *modelSummarizer) emit(e loop.Event) error {
	e.Origin = SummaryOrigin
	return s.hooks.Event(e)
}
