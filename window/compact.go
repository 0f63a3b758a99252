package window

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"harness/loop"
	"harness/protocol"
)

// Defaults of Config.
const (
	DefaultShare = 0.9 // of the limit: compaction begins above it
	DefaultLow   = 0.5 // of the limit: compaction aims below it
	DefaultKeep  = 3   // recent steps whose results stay verbatim
)

// summaryCost is about what a summary request adds to the messages it
// summarizes (the instruction, with room to spare), and the most a summary
// costs in the conversation: a span smaller than this is not worth a model
// call.
const summaryCost = 400

// Config says how a Compactor shares out the window. Only the window
// itself comes from the conversation (loop.Config.Window).
type Config struct {
	// Reserve is the tokens kept free for the reply: the output limit
	// (--max-tokens) when there is one. 0 means an eighth of the window.
	Reserve int
	// Share is the part of the limit (the window less the reserve) above
	// which the conversation is compacted before the next request.
	// 0 means DefaultShare.
	Share float64
	// Low is the part of the limit a compaction aims to bring the
	// conversation below, so that many steps pass before the next one.
	// 0 means DefaultLow.
	Low float64
	// Keep is how many of the latest steps keep their results verbatim
	// while older ones are masked. When masking older ones is not enough,
	// fewer are kept, down to the last step. 0 means DefaultKeep.
	Keep int
	// Summarizer, when set, writes the summary that replaces older
	// messages when masking is not enough. Nil means no summaries.
	Summarizer Summarizer
	// Counter estimates tokens. Nil means a Counter of the Compactor's own.
	Counter *Counter
	// Target names what a call acted on (a path, a command) in the line
	// that replaces its result. Nil names only the call and the tool.
	Target func(protocol.Call) string
	// Parse reads a reply into its calls, as the loop did
	// (loop.Config.Parse): a reply's results are told from the user's
	// messages by its calls (see Parts). Nil means protocol.Parse.
	Parse func(reply string) protocol.Parsed
}

// Compactor keeps a conversation inside its context window. Before each
// request it counts the conversation (the backend's count of what it last
// measured, an estimate of what came since), and when that is over the
// threshold it compacts, cheapest first:
//
//  1. It masks the results of all steps but the latest few (see Mask), in
//     one go, keeping fewer recent steps when that is not enough to get
//     below the low mark.
//  2. If that is still not enough and there is a Summarizer, it replaces
//     everything older than the latest steps with a summary, except the
//     system prompt and the user's latest message, and masks again. A
//     summary that fails (the server is busy) is done without when
//     masking alone fits the window, its error kept in the Report; it
//     ends the turn when the context ended, when a limit stopped it
//     (loop.ErrLimit), or when nothing else fits. A summary the model
//     did not write (ErrEmptySummary) when masking alone does not fit
//     gives way to a note: the older steps go without one (Report's
//     Dropped).
//
// Compacting in large chunks leaves a conversation that the next steps
// only extend, so a server's prompt cache serves them; the system prompt is
// never touched. A result too large for the window on its own is replaced
// by a line saying so, so that the model can ask for less. A message of
// the user's that is, or a conversation that cannot be made to fit, is
// refused with a *TooLargeError. A Compactor serves one conversation
// (Last reports that conversation's compaction).
type Compactor struct {
	cfg     Config
	counter *Counter

	mu   sync.Mutex
	last Report

	// memo holds the parsed replies of the conversation: a compaction
	// looks at every reply, several times, and replies never change.
	memoMu sync.Mutex
	memo   map[string]protocol.Parsed
}

var (
	_ loop.Compactor    = (*Compactor)(nil)
	_ loop.TokenCounter = (*Compactor)(nil)
)

// New returns a Compactor configured by cfg.
func New(cfg Config) *Compactor {
	c := &Compactor{cfg: cfg, counter: cfg.Counter, memo: map[string]protocol.Parsed{}}
	if c.counter == nil {
		c.counter = new(Counter)
	}
	if c.cfg.Share <= 0 {
		c.cfg.Share = DefaultShare
	}
	if c.cfg.Low <= 0 {
		c.cfg.Low = DefaultLow
	}
	if c.cfg.Keep <= 0 {
		c.cfg.Keep = DefaultKeep
	}
	if c.cfg.Parse == nil {
		c.cfg.Parse = protocol.Parse
	}
	return c
}

// parse is cfg.Parse, remembered for each reply of the conversation.
func (c *Compactor) parse(reply string) protocol.Parsed {
	c.memoMu.Lock()
	defer c.memoMu.Unlock()
	p, ok := c.memo[reply]
	if !ok {
		p = c.cfg.Parse(reply)
		c.memo[reply] = p
	}
	return p
}

// forget drops the remembered replies when they outnumber the messages of
// msgs by far: most are of messages that compaction took away.
func (c *Compactor) forget(msgs []protocol.Message) {
	c.memoMu.Lock()
	defer c.memoMu.Unlock()
	if len(c.memo) > 2*len(msgs)+64 {
		clear(c.memo)
	}
}

// Counter returns the Counter the Compactor counts with: the one to show
// the window's use with (see Counter.Count and Short).
func (c *Compactor) Counter() *Counter { return c.counter }

// Budget is how a window is shared out, in tokens.
type Budget struct {
	Window    int // the context window
	Reserve   int // kept free for the reply
	Limit     int // the most a request may hold: Window - Reserve
	Threshold int // above it, the conversation is compacted before the next request
	Low       int // what a compaction aims to bring it below
}

// Budget returns how the Compactor shares out a window of window tokens.
func (c *Compactor) Budget(window int) Budget {
	reserve := c.cfg.Reserve
	if reserve <= 0 {
		reserve = window / 8
	}
	limit := max(window-reserve, 0)
	return Budget{
		Window:    window,
		Reserve:   reserve,
		Limit:     limit,
		Threshold: int(c.cfg.Share * float64(limit)),
		Low:       int(c.cfg.Low * float64(limit)),
	}
}

// minPage is the fewest tokens PageBytes gives a result, however full the
// window is: a page smaller than that is not worth a call.
const minPage = 256

// PageBytes is about the most bytes one tool result should hold to fit a
// window of window tokens beside the system prompt system and the rest of
// its step: half of what the compaction threshold leaves after the system
// prompt, at the ratio of bytes per token the Counter has measured, and
// never less than minPage tokens. A result of that size is never elided
// as too large for the window by itself. It is 0 when the window is
// unknown (0): tools then page as they would without a window.
func (c *Compactor) PageBytes(window int, system protocol.Message) int {
	if window <= 0 {
		return 0
	}
	b := c.Budget(window)
	tokens := max((b.Threshold-c.counter.Estimate(system))/2, minPage)
	return int(float64(tokens) * c.counter.BytesPerToken())
}

// Report says what a compaction did.
type Report struct {
	Before, After int // tokens of the conversation (After is an estimate)
	Masked        int // results whose bodies were replaced by a line
	TooLarge      int // of those, results too large for the window by themselves
	Summarized    int // messages replaced by a summary; 0 when none was written
	// Dropped is the messages that went without a summary, when the model
	// wrote none and masking alone did not fit the window: older steps,
	// their results masked already, replaced by a note that says so.
	Dropped int
	// SummaryErr is why a summary asked for was not written, when masking
	// alone fit the window, or older steps were dropped, and the
	// conversation went on without it: the Summarizer's error
	// (ErrEmptySummary when the model wrote none).
	SummaryErr error
}

// Last returns the report of the latest compaction: at the Compacted event,
// the one that just happened.
func (c *Compactor) Last() Report {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// Tokens is the loop.TokenCounter method: Last's Before and After, which
// the Compacted event then carries.
func (c *Compactor) Tokens() (before, after int) {
	r := c.Last()
	return r.Before, r.After
}

// Compact is the loop.Compactor method: it returns the conversation to send
// instead of conv's, with changed true, when conv's is over the threshold.
// It does nothing when the window is unknown (0).
func (c *Compactor) Compact(ctx context.Context, conv loop.Conversation) ([]protocol.Message, bool, error) {
	msgs := conv.Messages
	if conv.Window <= 0 || len(msgs) == 0 {
		return nil, false, nil
	}
	c.forget(msgs)
	b := c.Budget(conv.Window)
	c.counter.Calibrate(msgs, conv.Usage)
	before := c.counter.Count(msgs, conv.Usage)

	out, tooLarge, err := c.fitEach(msgs, b)
	if err != nil {
		return nil, false, err
	}
	used := before
	if tooLarge > 0 {
		used = c.counter.Estimate(out...)
	}
	summarized, dropped := 0, 0
	var serr error // why the summary asked for was not written
	if used > b.Threshold {
		fitted := out
		out, used = c.mask(fitted, b)
		if used > b.Low && c.cfg.Summarizer != nil {
			s, n, sused, err := c.summarize(ctx, fitted, b)
			switch {
			case err == nil:
				if n > 0 && sused < used {
					out, used, summarized = s, sused, n
				}
			case ctx.Err() != nil, errors.Is(err, loop.ErrLimit), used > b.Limit && !errors.Is(err, ErrEmptySummary):
				return nil, false, fmt.Errorf("summarizing the conversation: %w", err)
			default:
				serr = err // masking alone fits, or is too large whatever
			}
			if used > b.Limit && errors.Is(serr, ErrEmptySummary) {
				// The model wrote no summary, and masked steps still fill
				// the window: the oldest go without one, so that a long
				// turn goes on.
				if d, n, dused := c.drop(fitted, b); n > 0 && dused < used {
					out, used, dropped = d, dused, n
				}
			}
		}
	}
	if used > b.Limit {
		return nil, false, &TooLargeError{Message: -1, Part: -1, Tokens: used, Limit: b.Limit, Window: b.Window, Parts: c.sizes(out)}
	}
	if tooLarge == 0 && before <= b.Threshold {
		return nil, false, nil // nothing was touched: no need to look for what changed
	}
	masked := newlyMasked(msgs, out, c.parse)
	if masked == 0 && summarized == 0 && dropped == 0 {
		return nil, false, nil
	}
	c.mu.Lock()
	c.last = Report{Before: before, After: used, Masked: masked, TooLarge: tooLarge, Summarized: summarized, Dropped: dropped, SummaryErr: serr}
	c.mu.Unlock()
	return out, true, nil
}

// fitEach checks that each message fits the window with the system prompt:
// a result that does not is replaced by a line saying so (it returns how
// many), anything else is refused.
func (c *Compactor) fitEach(msgs []protocol.Message, b Budget) ([]protocol.Message, int, error) {
	out, n := msgs, 0
	system := c.counter.Estimate(msgs[0])
	var ps []Part
	for i := 1; i < len(msgs); i++ {
		tokens := c.counter.Estimate(msgs[i])
		if system+tokens <= b.Limit {
			continue
		}
		if ps == nil {
			ps = parts(msgs, c.parse)
		}
		if ps[i] != Results {
			return nil, 0, &TooLargeError{Message: i, Part: ps[i], Tokens: tokens, Limit: b.Limit, Window: b.Window, Parts: c.sizes(out)}
		}
		if n == 0 {
			out = slices.Clone(msgs)
		}
		out[i] = elide(msgs, i, steps(ps), c.cfg.Target, c.parse)
		n++
	}
	return out, n, nil
}

// sizes estimates the tokens each part of msgs holds.
func (c *Compactor) sizes(msgs []protocol.Message) [NumParts]int {
	var out [NumParts]int
	for i, p := range parts(msgs, c.parse) {
		out[p] += c.counter.Estimate(msgs[i])
	}
	return out
}

// mask masks the results of all steps but the latest Keep, or fewer when
// that leaves the conversation over the low mark, down to the last step,
// and returns the tokens left.
func (c *Compactor) mask(msgs []protocol.Message, b Budget) ([]protocol.Message, int) {
	for keep := c.cfg.Keep; ; keep-- {
		out, _ := mask(msgs, keep, c.cfg.Target, c.parse)
		used := c.counter.Estimate(out...)
		if keep <= 1 || used <= b.Low {
			return out, used
		}
	}
}

// summarize replaces the messages of msgs older than the latest Keep steps,
// but the system prompt and the user's latest message, with a summary, and
// masks what is left as mask does. It returns the new conversation, how
// many messages the summary replaced (0 when there was too little to
// summarize: nothing was asked) and the tokens left.
func (c *Compactor) summarize(ctx context.Context, msgs []protocol.Message, b Budget) ([]protocol.Message, int, int, error) {
	msgs, input, cut, replaced := c.span(msgs, b, true)
	if replaced <= 0 {
		return nil, 0, 0, nil
	}
	text, err := c.cfg.Summarizer.Summarize(ctx, slices.Clone(msgs[:cut]))
	if err != nil {
		return nil, 0, 0, err
	}
	out, used := c.replace(msgs, input, cut, SummaryMessage(text), b)
	return out, replaced, used, nil
}

// droppedNote is the text of the summary that stands for messages dropped
// without one.
const droppedNote = "No summary could be written (the model wrote none). The %d messages this replaces, earlier steps of the work whose results were already elided, are gone: call the tools again for what you need from them."

// drop is summarize without a model: the messages a summary would have
// replaced give way to a note that says they are gone. It returns the new
// conversation, how many messages went, and the tokens left.
func (c *Compactor) drop(msgs []protocol.Message, b Budget) ([]protocol.Message, int, int) {
	msgs, input, cut, replaced := c.span(msgs, b, false)
	if replaced <= 0 {
		return nil, 0, 0
	}
	out, used := c.replace(msgs, input, cut, SummaryMessage(fmt.Sprintf(droppedNote, replaced)), b)
	return out, replaced, used
}

// span returns msgs with the results of all but the latest Keep steps
// masked, and the part of it a summary replaces: msgs[1:cut], but the
// user's latest message, at input when it lies there, and how many
// messages that is; 0 when there is too little to be worth it. The span
// ends where a step begins, so that no result is parted from its call:
// where the latest Keep steps begin, or, for a request that summarizes
// it, early enough for that request to fit the window.
func (c *Compactor) span(msgs []protocol.Message, b Budget, request bool) (masked []protocol.Message, input, cut, replaced int) {
	ps := parts(msgs, c.parse)
	all := steps(ps)
	if len(all) <= c.cfg.Keep {
		return nil, 0, 0, 0
	}
	msgs, _ = mask(msgs, c.cfg.Keep, c.cfg.Target, c.parse) // what is summarized, masked; its parts stay
	input = latestInput(ps)
	for _, s := range slices.Backward(all[:len(all)-c.cfg.Keep+1]) {
		if !request || c.counter.Estimate(msgs[:s.reply]...)+summaryCost <= b.Limit {
			cut = s.reply
			break
		}
	}
	replaced = cut - 1
	if input > 0 && input < cut {
		replaced--
	}
	if replaced <= 0 || c.counter.Estimate(msgs[1:cut]...) < summaryCost {
		return nil, 0, 0, 0
	}
	return msgs, input, cut, replaced
}

// replace returns msgs with msgs[1:cut], but the user's latest message at
// input, replaced by summary, masked as mask does, and the tokens left.
func (c *Compactor) replace(msgs []protocol.Message, input, cut int, summary protocol.Message, b Budget) ([]protocol.Message, int) {
	out := []protocol.Message{msgs[0]}
	if input > 0 && input < cut {
		out = append(out, msgs[input])
	}
	out = append(out, summary)
	out = append(out, msgs[cut:]...)
	return c.mask(out, b)
}

// newlyMasked counts the results of after that are masked there but were
// not in before.
func newlyMasked(before, after []protocol.Message, parse func(string) protocol.Parsed) int {
	masked := func(msgs []protocol.Message, f func(id string)) {
		for i, p := range parts(msgs, parse) {
			if r, _ := protocol.ReadResult(msgs[i]); p == Results && IsMasked(r.Body) {
				f(r.CallID)
			}
		}
	}
	was := map[string]bool{}
	masked(before, func(id string) { was[id] = true })
	n := 0
	masked(after, func(id string) {
		if !was[id] {
			n++
		}
	})
	return n
}
