package fakemodel

import (
	"fmt"
	"strings"

	"harness/protocol"
)

// conversations deals the replies of a script out to the conversations
// their when attributes name, each conversation's in script order. It is
// not safe for concurrent use: Model guards it.
type conversations struct {
	replies []Reply
	// whens lists the script's when values in the order they first
	// appear: a request belongs to the first its first user message
	// contains, or to "" when it contains none.
	whens  []string
	queues map[string][]int // the indexes of each conversation's replies
	next   map[string]int   // each conversation's next reply in its queue
	served int
}

func newConversations(replies []Reply) *conversations {
	c := &conversations{replies: replies, queues: make(map[string][]int), next: make(map[string]int)}
	for i, r := range replies {
		if _, seen := c.queues[r.When]; !seen && r.When != "" {
			c.whens = append(c.whens, r.When)
		}
		c.queues[r.When] = append(c.queues[r.When], i)
	}
	return c
}

// of returns the conversation msgs belong to: the first when value that
// their first user message contains, or "".
func (c *conversations) of(msgs []protocol.Message) string {
	if len(c.whens) == 0 {
		return ""
	}
	for _, m := range msgs {
		if m.Role != protocol.User {
			continue
		}
		for _, w := range c.whens {
			if strings.Contains(m.Content, w) {
				return w
			}
		}
		break
	}
	return ""
}

// take claims the next reply of the conversation msgs belong to, and its
// 1-based number in the script. When that conversation has no reply left,
// it says so in an error wrapping ErrExhausted, whose text begins with the
// script's name.
func (c *conversations) take(msgs []protocol.Message, script string) (Reply, int, error) {
	conv := c.of(msgs)
	q, i := c.queues[conv], c.next[conv]
	if i >= len(q) {
		which := ""
		if conv != "" {
			which = fmt.Sprintf(" for the conversation when=%q", conv)
		} else if len(c.whens) > 0 {
			which = " for a conversation that no when attribute names"
		}
		return Reply{}, 0, fmt.Errorf("%w: script %s has no reply left%s (it had %d); this request ended with %s",
			ErrExhausted, script, which, len(q), describeLast(msgs))
	}
	c.next[conv]++
	c.served++
	return c.replies[q[i]], q[i] + 1, nil
}

// remaining counts the replies not served yet, in every conversation.
func (c *conversations) remaining() int { return len(c.replies) - c.served }
