package window

import (
	"fmt"
	"slices"
	"strings"

	"harness/protocol"
)

// The line a masked result's body becomes is
//
//	[result of <call-id> <tool>[ <target>] elided to save context (<size>); call the tool again if you need it]
//
// and that of a result too large for the window by itself
//
//	[result of <call-id> <tool>[ <target>] elided: too large for the context window (<size>); ask for a smaller part]
const (
	maskStart = "[result of "
	maskMid   = " elided to save context ("
	maskEnd   = "); call the tool again if you need it]"
	bigMid    = " elided: too large for the context window ("
	bigEnd    = "); ask for a smaller part]"
)

// maxTarget bounds the target named in a masked result's line.
const maxTarget = 80

// Mask returns msgs with the body of every result older than the last keep
// steps (a step is a reply and the results of its calls) replaced by one
// line that names the call and the size of what was there, and how many it
// masked. The header line of each result stays, and so does every other
// message. A result already masked, or whose body is no longer than its
// line would be, is left as it is: masking is deterministic and idempotent,
// and a masked result stays byte for byte the same from then on. target,
// when not nil, names what a call acted on (a path, a command) for the
// line. msgs itself is never changed; when nothing is masked, Mask returns
// it as it is.
//
// Results are told from the user's messages by where they stand (see
// Parts), the replies read with protocol.Parse.
func Mask(msgs []protocol.Message, keep int, target func(protocol.Call) string) ([]protocol.Message, int) {
	return mask(msgs, keep, target, protocol.Parse)
}

// mask is Mask reading replies with parse.
func mask(msgs []protocol.Message, keep int, target func(protocol.Call) string, parse func(string) protocol.Parsed) ([]protocol.Message, int) {
	all := steps(parts(msgs, parse))
	if len(all) <= keep {
		return msgs, 0
	}
	var out []protocol.Message
	n := 0
	for _, s := range all[:len(all)-max(keep, 0)] {
		for k, i := range s.results {
			r, _ := protocol.ReadResult(msgs[i])
			if IsMasked(r.Body) {
				continue
			}
			line := maskLine(r, callOf(msgs[s.reply], k, parse), target, maskMid, maskEnd)
			if len(line) >= len(r.Body) {
				continue
			}
			if out == nil {
				out = slices.Clone(msgs)
			}
			out[i] = protocol.Message{Role: msgs[i].Role, Content: r.Header() + "\n" + line}
			n++
		}
	}
	if out == nil {
		return msgs, 0
	}
	return out, n
}

// callOf returns the k-th call of a reply: the one its k-th result
// answers, since results follow their reply in call order.
func callOf(reply protocol.Message, k int, parse func(string) protocol.Parsed) protocol.Call {
	if calls := parse(reply.Content).Calls; k < len(calls) {
		return calls[k]
	}
	return protocol.Call{}
}

// maskLine is the line that replaces r's body. call is the call r answers,
// when known.
func maskLine(r protocol.Result, call protocol.Call, target func(protocol.Call) string, mid, end string) string {
	what := r.CallID + " " + r.Tool
	if target != nil && call.Name == r.Tool && call.Err == nil {
		if t := oneLine(target(call), maxTarget); t != "" {
			what += " " + t
		}
	}
	return maskStart + what + mid + bytes(len(r.Body)) + end
}

// IsMasked reports whether a result's body is a line that replaced it: by
// Mask, or by a Compactor because it was too large.
func IsMasked(body string) bool {
	return strings.HasPrefix(body, maskStart) && !strings.Contains(body, "\n") &&
		(strings.HasSuffix(body, maskEnd) && strings.Contains(body, maskMid) || strings.HasSuffix(body, bigEnd) && strings.Contains(body, bigMid))
}

// elide replaces the body of the result msgs[i], too large for the window,
// with a line that says so; all are the steps of msgs.
func elide(msgs []protocol.Message, i int, all []step, target func(protocol.Call) string, parse func(string) protocol.Parsed) protocol.Message {
	r, _ := protocol.ReadResult(msgs[i])
	var call protocol.Call
	for _, s := range all {
		if k := slices.Index(s.results, i); k >= 0 {
			call = callOf(msgs[s.reply], k, parse)
		}
	}
	return protocol.Message{Role: msgs[i].Role, Content: r.Header() + "\n" + maskLine(r, call, target, bigMid, bigEnd)}
}

// bytes writes a size for people: 812 B, 2.3 KB, 1.4 MB.
func bytes(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
