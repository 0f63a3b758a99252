package window

import (
	"errors"
	"fmt"
	"strings"
)

// ErrTooLarge is wrapped by every *TooLargeError.
var ErrTooLarge = errors.New("too large for the context window")

// TooLargeError is the refusal to send a request that cannot fit the
// context window, whatever compaction does: nothing was sent, and the
// conversation is as it was.
type TooLargeError struct {
	// Message is the index of the one message that is too large by itself
	// (with the system prompt), or -1 when the conversation as a whole is.
	Message int
	Part    Part // what that message is; -1 for the conversation
	Tokens  int  // of that message, or of the conversation after compaction; estimated
	Limit   int  // what a request may hold: the window less the reply's reserve
	Window  int
	// Parts is what fills the window: the tokens each part of the
	// conversation holds, as it would have been sent, that message
	// included; estimated.
	Parts [NumParts]int
}

func (e *TooLargeError) Error() string {
	limit := fmt.Sprintf("the %s tokens a request may hold (a context window of %s less room for the reply)", Short(e.Limit), Short(e.Window))
	const nothing = "Nothing was sent and nothing is lost: "
	if e.Message >= 0 && e.Parts[SystemPrompt] > e.Limit {
		return fmt.Sprintf("the system prompt alone is about %s tokens, more than %s. ", Short(e.Parts[SystemPrompt]), limit) +
			nothing + "start again with a larger --num-ctx, or with fewer tools (--tools) for a shorter system prompt"
	}
	if e.Message >= 0 {
		what := "your message"
		if e.Part != Inputs {
			what = fmt.Sprintf("message %d (%s)", e.Message, e.Part)
		}
		rest := e.Parts
		if e.Part >= 0 && e.Part < NumParts {
			rest[e.Part] = max(rest[e.Part]-e.Tokens, 0)
		}
		fills := fmt.Sprintf("%s is about %s tokens; with the system prompt (about %s) it does not fit %s",
			what, Short(e.Tokens), Short(e.Parts[SystemPrompt]), limit)
		if others := list(rest, SystemPrompt); others != "" {
			fills += "; the rest of the conversation holds " + others
		}
		advice := "send it in smaller parts, or start again with a larger --num-ctx"
		if e.Parts[SystemPrompt] > e.Tokens {
			advice = "the system prompt takes the most: start again with a larger --num-ctx, or with fewer tools (--tools) for a shorter system prompt; or send it in smaller parts"
		}
		return fills + ". " + nothing + advice
	}
	fills := fmt.Sprintf("the conversation is about %s tokens even after compacting it, more than %s", Short(e.Tokens), limit)
	if parts := list(e.Parts, -1); parts != "" {
		fills += ": " + parts
	}
	advice := "/clear to start a new conversation, or start again with a larger --num-ctx"
	switch e.largest() {
	case SystemPrompt:
		advice += ", or with fewer tools (--tools) for a shorter system prompt"
	case Results:
		advice += "; or ask the tools for less at a time (a smaller read)"
	}
	return fills + ". " + nothing + advice
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// largest is the part that holds the most tokens.
func (e *TooLargeError) largest() Part {
	best := SystemPrompt
	for p := range Part(NumParts) {
		if e.Parts[p] > e.Parts[best] {
			best = p
		}
	}
	return best
}

// list says how many tokens each part of parts but skip holds, the
// parts that hold none left out: "the system prompt about 3.1k, tool
// results about 900".
func list(parts [NumParts]int, skip Part) string {
	var out []string
	for p := range Part(NumParts) {
		if p == skip || parts[p] == 0 {
			continue
		}
		name := p.String()
		if p == SystemPrompt {
			name = "the system prompt"
		}
		out = append(out, fmt.Sprintf("%s about %s", name, Short(parts[p])))
	}
	return strings.Join(out, ", ")
}
