package loop

import (
	"context"
	"fmt"
	"slices"

	"harness/protocol"
)

// Compactor keeps a long conversation inside the model's context window. It
// is offered the conversation before every step, and may return a shorter
// one (changed true) to be sent instead and kept from then on: older tool
// results masked, a span of turns replaced by a summary, whatever the
// strategy is. The first message must stay the system prompt; the Agent
// checks it and ends the turn with an error wrapping ErrConversation if
// not. An error from Compact ends the turn too.
type Compactor interface {
	Compact(ctx context.Context, c Conversation) (msgs []protocol.Message, changed bool, err error)
}

// Conversation is what a Compactor is given.
type Conversation struct {
	// Messages is the conversation the next request would send. It is the
	// Agent's own: read it, never modify it; return a new slice instead.
	Messages []protocol.Message
	// Window is Config.Window: the context window in tokens, 0 when
	// unknown.
	Window int
	// Usage is what the backend reported for the last reply. Its
	// PromptTokens measure the conversation the model last saw, before the
	// reply and any results since were appended. Known is false before the
	// first reply, when the backend did not report, and after a compaction.
	Usage protocol.Usage
}

// Compaction says what a Compactor changed (see Compacted).
type Compaction struct {
	Before, After           int // messages
	BeforeBytes, AfterBytes int // bytes of message content
	// BeforeTokens and AfterTokens are the conversation's tokens by the
	// Compactor's count, when it is a TokenCounter; 0 when not.
	BeforeTokens, AfterTokens int
}

// TokenCounter may be implemented by a Compactor that counts tokens. After
// a Compact that changed the conversation, Tokens returns its count of the
// conversation before and after, for the Compacted event.
type TokenCounter interface {
	Tokens() (before, after int)
}

// compact offers the conversation to the Compactor, if there is one, and
// keeps what it returns.
func (t *turn) compact(ctx context.Context) error {
	a := t.agent
	if a.cfg.Compactor == nil {
		return nil
	}
	msgs, changed, err := a.cfg.Compactor.Compact(ctx, Conversation{Messages: slices.Clip(a.msgs), Window: a.cfg.Window, Usage: a.usage})
	if err == nil && changed {
		err = check(a.cfg.System, msgs)
	}
	if err != nil {
		return fmt.Errorf("compacting the conversation: %w", err)
	}
	if !changed {
		return nil
	}
	c := Compaction{Before: len(a.msgs), After: len(msgs), BeforeBytes: size(a.msgs), AfterBytes: size(msgs)}
	if tc, ok := a.cfg.Compactor.(TokenCounter); ok {
		c.BeforeTokens, c.AfterTokens = tc.Tokens()
	}
	a.edit(0, msgs...)
	a.usage = protocol.Usage{} // it measured the conversation replaced
	return a.emit(Event{Kind: Compacted, Step: t.step, Compaction: c})
}

// size is the bytes of content in msgs.
func size(msgs []protocol.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
	}
	return n
}
