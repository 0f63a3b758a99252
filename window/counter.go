package window

import (
	"math"
	"sync"

	"harness/protocol"
)

// DefaultBytesPerToken is the ratio a Counter starts from, before a backend
// has measured a request: about right for English text and code with the
// tokenizers of current open models.
const DefaultBytesPerToken = 4.0

// messageOverhead is counted as bytes of every message: the chat template
// wraps each in a few tokens of role markers.
const messageOverhead = 16

// Counter estimates the tokens of a conversation from its bytes, with a
// ratio of bytes per token calibrated on what the backend last measured.
// Its zero value is ready to use, with DefaultBytesPerToken. It is safe for
// concurrent use.
type Counter struct {
	mu    sync.Mutex
	ratio float64 // bytes per token; 0 means the default
}

// BytesPerToken returns the ratio estimates use now.
func (c *Counter) BytesPerToken() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ratio == 0 {
		return DefaultBytesPerToken
	}
	return c.ratio
}

// Calibrate sets the ratio from usage u, what the backend reported for the
// last reply of msgs: its prompt tokens are the true size of the messages
// before that reply. It does nothing when u measured nothing (see
// loop.Conversation.Usage).
func (c *Counter) Calibrate(msgs []protocol.Message, u protocol.Usage) {
	sent, ok := measured(msgs, u)
	if !ok {
		return
	}
	n := size(sent...)
	if n < minCalibration {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ratio = min(max(float64(n)/float64(u.PromptTokens), 1), 8) // no tokenizer is outside these
}

// minCalibration is the fewest bytes a ratio is calibrated on: in fewer,
// the template's tokens around each message weigh too much.
const minCalibration = 1024

// Estimate returns the tokens of msgs by the current ratio, rounded up.
func (c *Counter) Estimate(msgs ...protocol.Message) int {
	if len(msgs) == 0 {
		return 0
	}
	return int(math.Ceil(float64(size(msgs...)) / c.BytesPerToken()))
}

// Count returns the tokens of the conversation msgs whose last reply had
// usage u: the backend's count for the messages it measured, and an
// estimate for the ones after (that reply and what followed it). Without a
// measure it is an estimate of the whole.
func (c *Counter) Count(msgs []protocol.Message, u protocol.Usage) int {
	sent, ok := measured(msgs, u)
	if !ok {
		return c.Estimate(msgs...)
	}
	return u.PromptTokens + c.Estimate(msgs[len(sent):]...)
}

// measured returns the messages u measured: those before the last reply.
func measured(msgs []protocol.Message, u protocol.Usage) ([]protocol.Message, bool) {
	if !u.Known || u.PromptTokens <= 0 {
		return nil, false
	}
	for i := len(msgs) - 1; i > 0; i-- {
		if msgs[i].Role == protocol.Assistant {
			return msgs[:i], true
		}
	}
	return nil, false
}

// size is the bytes msgs are counted as.
func size(msgs ...protocol.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content) + messageOverhead
	}
	return n
}
