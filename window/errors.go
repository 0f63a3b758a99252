package window

import (
	"errors"
	"fmt"
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
}

func (e *TooLargeError) Error() string {
	limit := fmt.Sprintf("the %s tokens a request may hold (a context window of %s less room for the reply)", Short(e.Limit), Short(e.Window))
	if e.Message >= 0 {
		what := "your message"
		if e.Part != Inputs {
			what = fmt.Sprintf("message %d (%s)", e.Message, e.Part)
		}
		return fmt.Sprintf("%s is about %s tokens; with the system prompt it does not fit %s. "+
			"Nothing was sent and nothing is lost: send it in smaller parts, or start again with a larger --num-ctx",
			what, Short(e.Tokens), limit)
	}
	return fmt.Sprintf("the conversation is about %s tokens even after compacting it, more than %s. "+
		"Nothing was sent and nothing is lost: /clear to start a new conversation, or start again with a larger --num-ctx",
		Short(e.Tokens), limit)
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }
