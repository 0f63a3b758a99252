package window

import (
	"fmt"
	"io"
	"math"
	"strings"

	"harness/protocol"
)

// Breakdown is what a context window holds, by part, in tokens.
type Breakdown struct {
	Budget
	Tokens [NumParts]int // by Part
	Used   int           // their sum
}

// Measure breaks the conversation msgs, whose last reply had usage u, down
// by part. Used is c.Count(msgs, u): the backend's count of the messages it
// measured is shared out among their parts in proportion to their sizes,
// and the messages after them are estimated. instructions, when not "", is
// the text of the project instructions the harness put in the
// conversation: wherever a message holds it, it counts as Instructions and
// the rest of the message as what the message is. Measure changes nothing,
// c included.
func Measure(msgs []protocol.Message, u protocol.Usage, c *Counter, b Budget, instructions string) Breakdown {
	return measure(msgs, u, c, b, instructions, protocol.Parse)
}

// Measure is the package's Measure of msgs in a window of size tokens,
// with the compactor's counter, and its replies read as the compactor
// reads them (Config.Parse): a call in another format than ours is a call,
// and its result a result.
func (c *Compactor) Measure(msgs []protocol.Message, u protocol.Usage, size int, instructions string) Breakdown {
	return measure(msgs, u, c.Counter(), c.Budget(size), instructions, c.cfg.Parse)
}

func measure(msgs []protocol.Message, u protocol.Usage, c *Counter, b Budget, instructions string, parse func(string) protocol.Parsed) Breakdown {
	d := Breakdown{Budget: b}
	ps := parts(msgs, parse)
	sent, ok := measured(msgs, u)
	if ok {
		d.Tokens = share(u.PromptTokens, sizes(sent, ps, instructions))
	}
	tail := msgs[len(sent):]
	rest := share(c.Estimate(tail...), sizes(tail, ps[len(sent):], instructions))
	for p, n := range rest {
		d.Tokens[p] += n
	}
	for _, n := range d.Tokens {
		d.Used += n
	}
	return d
}

// sizes is the bytes of msgs by part; parts are theirs.
func sizes(msgs []protocol.Message, parts []Part, instructions string) [NumParts]int {
	var out [NumParts]int
	for i, m := range msgs {
		part := parts[i]
		n := size(m)
		if instructions != "" && strings.Contains(m.Content, instructions) {
			out[Instructions] += len(instructions)
			n -= len(instructions)
		}
		out[part] += n
	}
	return out
}

// share divides total in proportion to weights, rounding so that the parts
// add up to total (largest remainders first).
func share(total int, weights [NumParts]int) [NumParts]int {
	var out [NumParts]int
	sum := 0
	for _, w := range weights {
		sum += w
	}
	if sum == 0 {
		return out
	}
	var rest [NumParts]float64
	left := total
	for p, w := range weights {
		exact := float64(total) * float64(w) / float64(sum)
		out[p] = int(exact)
		rest[p] = exact - float64(out[p])
		left -= out[p]
	}
	for ; left > 0; left-- {
		best := 0
		for p := range rest {
			if rest[p] > rest[best] {
				best = p
			}
		}
		out[best]++
		rest[best] = -1
	}
	return out
}

// Free is the room left before a request would hold more than the limit.
func (d Breakdown) Free() int { return max(d.Limit-d.Used, 0) }

// barWidth is the width of a whole window's bar.
const barWidth = 20

// Render writes the breakdown as a small text bar chart: one row a part,
// then the free space and the reply's reserve, each with its tokens, its
// share of the window and a bar, and the line where compaction begins.
func (d Breakdown) Render(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "context window %s tokens: %s used (%s), %s free\n", Short(d.Window), Short(d.Used), d.percent(d.Used), Short(d.Free()))
	row := func(name string, n int) {
		line := fmt.Sprintf("  %-14s %5s %4s  %s", name, Short(n), d.percent(n), d.bar(n))
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	for p, n := range d.Tokens {
		row(Part(p).String(), n)
	}
	row("free", d.Free())
	row("reply reserve", d.Reserve)
	fmt.Fprintf(&b, "compaction above %s (%s), down to %s (%s)\n", Short(d.Threshold), d.percent(d.Threshold), Short(d.Low), d.percent(d.Low))
	_, err := io.WriteString(w, b.String())
	return err
}

// percent is n as a share of the window.
func (d Breakdown) percent(n int) string {
	if d.Window <= 0 {
		return "-"
	}
	return fmt.Sprintf("%d%%", int(math.Round(100*float64(n)/float64(d.Window))))
}

// bar is n as a bar, barWidth being the whole window.
func (d Breakdown) bar(n int) string {
	if d.Window <= 0 {
		return ""
	}
	return strings.Repeat("#", int(math.Round(barWidth*float64(n)/float64(d.Window))))
}

// Short writes a number of tokens for a status line: 950, 9.1k, 16k (as in
// "ctx 9.1k/16k").
func Short(tokens int) string {
	switch {
	case tokens < 1000:
		return fmt.Sprint(tokens)
	case tokens < 9950:
		return fmt.Sprintf("%.1fk", float64(tokens)/1000)
	}
	return fmt.Sprintf("%dk", int(math.Round(float64(tokens)/1000)))
}
