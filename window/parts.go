package window

import (
	"strings"

	"harness/protocol"
)

// Part says what a message of a conversation is.
type Part int

const (
	SystemPrompt Part = iota // the first message
	Instructions             // project instructions the harness added (see Measure)
	Inputs                   // what the user wrote
	Replies                  // what the model wrote
	Results                  // tool results, masked or not
	Summaries                // summaries that replaced older messages

	NumParts = iota // how many parts there are
)

var partNames = [NumParts]string{"system prompt", "instructions", "user messages", "replies", "tool results", "summaries"}

func (p Part) String() string {
	if p >= 0 && p < NumParts {
		return partNames[p]
	}
	return "unknown"
}

// PartOf says what m is. Instructions are only known by their text (see
// Measure): PartOf never returns them.
func PartOf(m protocol.Message) Part {
	switch {
	case m.Role == protocol.System:
		return SystemPrompt
	case m.Role == protocol.Assistant:
		return Replies
	case IsSummary(m):
		return Summaries
	}
	if _, ok := protocol.ReadResult(m); ok {
		return Results
	}
	return Inputs
}

// step is one reply of the model and the results of its calls.
type step struct {
	reply   int   // index of the assistant message
	results []int // indexes of its result messages, in call order
}

// steps finds the steps of msgs, oldest first.
func steps(msgs []protocol.Message) []step {
	var out []step
	for i := 1; i < len(msgs); i++ {
		if msgs[i].Role != protocol.Assistant {
			continue
		}
		s := step{reply: i}
		for i+1 < len(msgs) {
			if _, ok := protocol.ReadResult(msgs[i+1]); !ok {
				break
			}
			i++
			s.results = append(s.results, i)
		}
		out = append(out, s)
	}
	return out
}

// latestInput is the index of the last message the user wrote, or -1.
func latestInput(msgs []protocol.Message) int {
	for i := len(msgs) - 1; i > 0; i-- {
		if PartOf(msgs[i]) == Inputs {
			return i
		}
	}
	return -1
}

// oneLine is the first line of s, at most max bytes long.
func oneLine(s string, max int) string {
	s, _, cut := strings.Cut(strings.TrimSpace(s), "\n")
	s = strings.TrimSpace(s)
	if len(s) > max {
		i := max
		for i > 0 && s[i]&0xC0 == 0x80 { // not inside a rune
			i--
		}
		s, cut = s[:i], true
	}
	if cut {
		s += "..."
	}
	return s
}
