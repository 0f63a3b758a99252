package window

import (
	"strconv"
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

// Parts says what each message of the conversation msgs is, reading its
// replies with protocol.Parse. Instructions are only known by their text
// (see Measure): Parts never returns them.
//
// A user message is told by where it stands, never by its first line
// alone, so that nothing the user writes is taken for what the harness
// wrote:
//
//   - A result is one of the user messages right after a reply, no more of
//     them than the reply makes calls, each with the header of the result
//     of the call in its place (that call's tool), their call ids in
//     order. The loop gives every call of a reply its result there, so a
//     message after them, or after a reply that made no call, is the
//     user's, however it begins.
//   - A summary is a user message that begins with SummaryHeader before
//     the conversation's first reply: a Compactor puts it after the system
//     prompt, and at most the user's latest message.
//   - Any other user message is the user's (Inputs).
func Parts(msgs []protocol.Message) []Part { return parts(msgs, protocol.Parse) }

// parts is Parts reading replies with parse: as the loop that wrote them
// read them.
func parts(msgs []protocol.Message, parse func(string) protocol.Parsed) []Part {
	out := make([]Part, len(msgs))
	var calls []protocol.Call // of the latest reply: the results that may follow
	answered := 0             // of those calls, the ones whose results followed
	prev := ""                // the call id of the latest of those results, "" before the first
	replied := false
	for i, m := range msgs {
		switch {
		case i == 0 || m.Role == protocol.System:
			out[i] = SystemPrompt
			continue
		case m.Role == protocol.Assistant:
			out[i] = Replies
			calls, answered, prev, replied = parse(m.Content).Calls, 0, "", true
			continue
		}
		if answered < len(calls) {
			if id, ok := answers(m, calls[answered], prev); ok {
				out[i], prev = Results, id
				answered++
				continue
			}
		}
		calls = nil
		if !replied && isSummary(m) {
			out[i] = Summaries
		} else {
			out[i] = Inputs
		}
	}
	return out
}

// answers reports whether m is the result of call, which follows the call
// whose result has the id prev ("" for a reply's first call), and returns
// its call id.
func answers(m protocol.Message, call protocol.Call, prev string) (string, bool) {
	r, ok := protocol.ReadResult(m)
	if !ok {
		return "", false
	}
	header, _, _ := strings.Cut(m.Content, "\n")
	want := protocol.Result{CallID: r.CallID, Tool: call.Name, OK: r.OK}
	return r.CallID, header == want.Header() && (prev == "" || r.CallID == nextID(prev))
}

// nextID is the call id after id (call_3 after call_2), or "" when id is
// not one the harness numbered.
func nextID(id string) string {
	n, err := strconv.Atoi(id[strings.LastIndexByte(id, '_')+1:])
	if err != nil || protocol.CallID(n) != id {
		return ""
	}
	return protocol.CallID(n + 1)
}

// step is one reply of the model and the results of its calls.
type step struct {
	reply   int   // index of the assistant message
	results []int // indexes of its result messages, in call order
}

// steps finds the steps of msgs, whose parts are parts, oldest first.
func steps(parts []Part) []step {
	var out []step
	for i := 1; i < len(parts); i++ {
		if parts[i] != Replies {
			continue
		}
		s := step{reply: i}
		for i+1 < len(parts) && parts[i+1] == Results {
			i++
			s.results = append(s.results, i)
		}
		out = append(out, s)
	}
	return out
}

// latestInput is the index of the last message the user wrote, or -1.
func latestInput(parts []Part) int {
	for i := len(parts) - 1; i > 0; i-- {
		if parts[i] == Inputs {
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
