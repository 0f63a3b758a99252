package window_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"harness/fakemodel"
	"harness/loop"
	"harness/protocol"
	"harness/tools"
	"harness/window"
)

// conversation is a system prompt, an input and steps read_file calls,
// each with a result of size bytes.
func conversation(steps, size int) []protocol.Message {
	msgs := []protocol.Message{sys("SYSTEM"), user("read the files")}
	for i := 1; i <= steps; i++ {
		msgs = append(msgs, call(fmt.Sprintf("f%d.go", i)), result(protocol.CallID(i), true, n(size)))
	}
	return msgs
}

// masked lists which results of msgs are masked, by call number.
func masked(msgs []protocol.Message) (masked, verbatim []int) {
	for _, m := range msgs {
		r, ok := protocol.ReadResult(m)
		if !ok {
			continue
		}
		var id int
		fmt.Sscanf(r.CallID, "call_%d", &id)
		if window.IsMasked(r.Body) {
			masked = append(masked, id)
		} else {
			verbatim = append(verbatim, id)
		}
	}
	return masked, verbatim
}

func TestBudget(t *testing.T) {
	tests := []struct {
		cfg    window.Config
		window int
		want   window.Budget
	}{
		{window.Config{}, 16384, window.Budget{Window: 16384, Reserve: 2048, Limit: 14336, Threshold: 12902, Low: 7168}},
		{window.Config{Reserve: 4000, Share: 0.5, Low: 0.25}, 16384, window.Budget{Window: 16384, Reserve: 4000, Limit: 12384, Threshold: 6192, Low: 3096}},
		{window.Config{Reserve: 9000}, 8192, window.Budget{Window: 8192, Reserve: 9000, Limit: 0, Threshold: 0, Low: 0}},
	}
	for _, tt := range tests {
		if got := window.New(tt.cfg).Budget(tt.window); got != tt.want {
			t.Errorf("Budget(%d) with %+v = %+v, want %+v", tt.window, tt.cfg, got, tt.want)
		}
	}
}

func TestCompactLeavesWhatFits(t *testing.T) {
	tests := []struct {
		name   string
		window int
		msgs   []protocol.Message
	}{
		{"no window", 0, conversation(50, 1000)},
		{"under the threshold", 2000, conversation(5, 1000)},
		{"over the threshold with nothing to mask", 2000, conversation(1, 6000)[:3]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := window.New(window.Config{})
			got, changed, err := c.Compact(context.Background(), loop.Conversation{Messages: tt.msgs, Window: tt.window})
			if got != nil || changed || err != nil {
				t.Errorf("Compact = %d messages, %v, %v; want nothing", len(got), changed, err)
			}
		})
	}
}

// TestCompactMasks: in a window of 2000 tokens (threshold 1575, low mark
// 875), six steps of 1000-byte results (about 260 tokens each) are over
// the threshold; masking all but the last three leaves too much, all but
// the last two is enough.
func TestCompactMasks(t *testing.T) {
	msgs := conversation(6, 1000)
	c := window.New(window.Config{Target: pathOf})
	got, changed, err := c.Compact(context.Background(), loop.Conversation{Messages: msgs, Window: 2000})
	if err != nil || !changed {
		t.Fatalf("Compact: changed %v, %v", changed, err)
	}
	m, v := masked(got)
	if !slices.Equal(m, []int{1, 2, 3, 4}) || !slices.Equal(v, []int{5, 6}) {
		t.Errorf("masked %v, verbatim %v", m, v)
	}
	if !slices.Equal(got[:2], msgs[:2]) || len(got) != len(msgs) {
		t.Errorf("the system prompt, the input or the messages' count changed:\n%s", dump(got))
	}
	var counter window.Counter
	want := window.Report{Before: counter.Estimate(msgs...), After: counter.Estimate(got...), Masked: 4}
	if rep := c.Last(); rep != want {
		t.Errorf("Last = %+v, want %+v", rep, want)
	}
	if want.After > 875 {
		t.Errorf("%d tokens left, over the low mark", want.After)
	}
	// The next steps extend it; it is compacted again only over the
	// threshold, and then what was masked stays as it was.
	next := slices.Concat(got, conversation(9, 1000)[14:])
	again, changed, err := c.Compact(context.Background(), loop.Conversation{Messages: next, Window: 2000})
	if err != nil || !changed {
		t.Fatalf("Compact again: changed %v, %v", changed, err)
	}
	if common(got, again) < 8 {
		t.Errorf("the second compaction changed what the first had masked:\n%s", dump(again))
	}
}

// TestCompactParsesEachReplyOnce: under the threshold a conversation's
// replies are not parsed at all; over it, each is parsed once, however many
// times compaction looks at it.
func TestCompactParsesEachReplyOnce(t *testing.T) {
	parsed := map[string]int{}
	c := window.New(window.Config{Target: pathOf, Parse: func(s string) protocol.Parsed {
		parsed[s]++
		return protocol.Parse(s)
	}})
	small := conversation(2, 100)
	if _, changed, err := c.Compact(context.Background(), loop.Conversation{Messages: small, Window: 2000}); err != nil || changed {
		t.Fatalf("Compact under the threshold: changed %v, %v", changed, err)
	}
	if len(parsed) != 0 {
		t.Errorf("under the threshold, replies were parsed: %v", parsed)
	}
	msgs := conversation(12, 1000)
	for range 3 {
		if _, changed, err := c.Compact(context.Background(), loop.Conversation{Messages: msgs, Window: 2000}); err != nil || !changed {
			t.Fatalf("Compact: changed %v, %v", changed, err)
		}
	}
	if len(parsed) != 12 {
		t.Errorf("%d replies parsed, want the 12 of the conversation", len(parsed))
	}
	for reply, n := range parsed {
		if n != 1 {
			t.Errorf("reply %q parsed %d times", reply, n)
		}
	}
}

// recorder is a Summarizer that records what it was given.
type recorder struct {
	got  [][]protocol.Message
	text string
	err  error
}

func (r *recorder) Summarize(_ context.Context, msgs []protocol.Message) (string, error) {
	r.got = append(r.got, msgs)
	return r.text, r.err
}

// TestCompactSummarizes: 24 masked steps are still over the low mark; the
// steps before the last Keep are summarized, the input stays before the
// summary.
func TestCompactSummarizes(t *testing.T) {
	msgs := conversation(24, 1000)
	s := &recorder{text: "Read f1.go to f22.go.\n"}
	c := window.New(window.Config{Keep: 2, Summarizer: s, Target: pathOf})
	got, changed, err := c.Compact(context.Background(), loop.Conversation{Messages: msgs, Window: 2000})
	if err != nil || !changed {
		t.Fatalf("Compact: changed %v, %v", changed, err)
	}
	if len(s.got) != 1 {
		t.Fatalf("summarized %d times", len(s.got))
	}
	// It was given the system prompt, the input and the 22 older steps,
	// masked.
	span := s.got[0]
	if len(span) != 2+2*22 || span[0] != msgs[0] || span[1] != msgs[1] {
		t.Fatalf("the summarizer got\n%s", dump(span))
	}
	if m, v := masked(span); len(m) != 22 || len(v) != 0 {
		t.Errorf("the summarizer got masked %v, verbatim %v", m, v)
	}
	want := slices.Concat(msgs[:2], []protocol.Message{user(window.SummaryHeader + "\nRead f1.go to f22.go.")}, msgs[len(msgs)-4:])
	equalMsgs(t, got, want)
	if window.Parts(got)[2] != window.Summaries {
		t.Error("the summary is not known as one")
	}
	rep := c.Last()
	if rep.Summarized != 44 || rep.Masked != 0 || rep.After >= rep.Before {
		t.Errorf("Last = %+v", rep)
	}

	// Later, the summary is summarized with the rest.
	next := slices.Concat(got, conversation(48, 1000)[50:])
	s.text = "Read f1.go to f46.go."
	got, _, err = c.Compact(context.Background(), loop.Conversation{Messages: next, Window: 2000})
	if err != nil || len(s.got) != 2 || !slices.Contains(s.got[1], want[2]) {
		t.Fatalf("second summary: %v, given\n%s", err, dump(s.got[len(s.got)-1]))
	}
	equalMsgs(t, got[:3], slices.Concat(msgs[:2], []protocol.Message{window.SummaryMessage(s.text)}))
	equalMsgs(t, got[len(got)-4:], next[len(next)-4:])
	// The summary request had to fit the 1750 tokens a request may hold,
	// so it summarized a little less.
	var counter window.Counter
	if n := counter.Estimate(s.got[1]...); n+400 > 1750 {
		t.Errorf("the summary request holds %d tokens", n)
	}
}

// TestCompactSummaryErrors: a summary that fails leaves masking to do the
// work when masking alone fits the window, and the error in the report;
// it ends the turn when nothing else fits, when the turn was interrupted,
// or when a limit stopped it.
func TestCompactSummaryErrors(t *testing.T) {
	boom := errors.New("503 Service Unavailable")
	limit := &loop.LimitError{Name: "max-model-calls", Value: "3", What: "model calls in the run"}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name  string
		ctx   context.Context
		err   error
		steps int   // of 1000-byte results, in a window of 2000 tokens
		want  error // from Compact; nil: masking alone went on
	}{
		{name: "masking fits", ctx: context.Background(), err: boom, steps: 24},
		{name: "nothing fits", ctx: context.Background(), err: boom, steps: 60, want: boom},
		{name: "a limit", ctx: context.Background(), err: limit, steps: 24, want: loop.ErrLimit},
		{name: "interrupted", ctx: cancelled, err: cancelled.Err(), steps: 24, want: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &recorder{err: tt.err}
			c := window.New(window.Config{Summarizer: s})
			got, changed, err := c.Compact(tt.ctx, loop.Conversation{Messages: conversation(tt.steps, 1000), Window: 2000})
			if len(s.got) != 1 {
				t.Fatalf("summary asked %d times", len(s.got))
			}
			if tt.want != nil {
				if !errors.Is(err, tt.want) || changed {
					t.Errorf("Compact: %v, %v; want %v", changed, err, tt.want)
				}
				return
			}
			if err != nil || !changed || slices.Contains(window.Parts(got), window.Summaries) {
				t.Fatalf("Compact: %v, %v\n%s", changed, err, dump(got))
			}
			if rep := c.Last(); !errors.Is(rep.SummaryErr, tt.err) || rep.Summarized != 0 || rep.Masked == 0 || rep.After > c.Budget(2000).Limit {
				t.Errorf("Last = %+v", rep)
			}
		})
	}
	// Without a summary, masking alone will do when it is enough to fit.
	s := &recorder{err: window.ErrEmptySummary}
	c := window.New(window.Config{Summarizer: s})
	got, changed, err := c.Compact(context.Background(), loop.Conversation{Messages: conversation(18, 1000), Window: 2000})
	if err != nil || !changed || len(s.got) != 1 || slices.Contains(window.Parts(got), window.Summaries) {
		t.Errorf("empty summary: %v, %v, asked %d times\n%s", changed, err, len(s.got), dump(got))
	}
}

// TestCompactDropsWithoutSummary: when the model writes no summary and
// the masked steps still fill the window, as in a long turn of reads, the
// oldest steps go, a note saying so in their place, and the turn goes on;
// any other failure of the summary still ends it (TestCompactSummaryErrors).
func TestCompactDropsWithoutSummary(t *testing.T) {
	msgs := conversation(60, 1000)
	s := &recorder{err: window.ErrEmptySummary}
	c := window.New(window.Config{Keep: 2, Summarizer: s, Target: pathOf})
	got, changed, err := c.Compact(context.Background(), loop.Conversation{Messages: msgs, Window: 2000})
	if err != nil || !changed {
		t.Fatalf("Compact: changed %v, %v", changed, err)
	}
	ps := window.Parts(got)
	if got[0] != msgs[0] || got[1] != msgs[1] || ps[2] != window.Summaries || !strings.Contains(got[2].Content, "No summary could be written") {
		t.Fatalf("got\n%s", dump(got))
	}
	equalMsgs(t, got[len(got)-4:], msgs[len(msgs)-4:]) // the latest steps, verbatim
	rep := c.Last()
	if rep.Dropped == 0 || rep.Summarized != 0 || !errors.Is(rep.SummaryErr, window.ErrEmptySummary) || rep.After > c.Budget(2000).Limit {
		t.Errorf("Last = %+v", rep)
	}
	if !strings.Contains(got[2].Content, fmt.Sprintf("The %d messages", rep.Dropped)) || len(got) != len(msgs)-rep.Dropped+1 {
		t.Errorf("%d messages dropped of %d, %d left; the note: %q", rep.Dropped, len(msgs), len(got), got[2].Content)
	}
}

// TestCompactSummarizesOnlyWhenMaskingIsNotEnough: masking is cheaper.
func TestCompactSummarizesOnlyWhenMaskingIsNotEnough(t *testing.T) {
	s := &recorder{text: "summary"}
	c := window.New(window.Config{Summarizer: s})
	if _, changed, err := c.Compact(context.Background(), loop.Conversation{Messages: conversation(6, 1000), Window: 2000}); !changed || err != nil {
		t.Fatalf("Compact: %v, %v", changed, err)
	}
	if len(s.got) != 0 {
		t.Error("summarized when masking was enough")
	}
}

func TestCompactTooLarge(t *testing.T) {
	tests := []struct {
		name    string
		msgs    []protocol.Message
		message int
		part    window.Part
		advice  string
	}{
		{name: "a huge paste", msgs: []protocol.Message{sys("SYSTEM"), user(n(4000))}, message: 1, part: window.Inputs, advice: "smaller parts"},
		{name: "a huge reply", msgs: []protocol.Message{sys("SYSTEM"), user("go"), asst(n(4000))}, message: 2, part: window.Replies, advice: "smaller parts"},
		{name: "too long without a summarizer", msgs: conversation(60, 500), message: -1, part: -1, advice: "/clear"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := window.New(window.Config{})
			_, _, err := c.Compact(context.Background(), loop.Conversation{Messages: tt.msgs, Window: 1000})
			var tl *window.TooLargeError
			if !errors.As(err, &tl) || !errors.Is(err, window.ErrTooLarge) {
				t.Fatalf("err = %v, want a *TooLargeError", err)
			}
			if tl.Message != tt.message || tl.Part != tt.part || tl.Window != 1000 || tl.Limit != 875 || tl.Tokens <= 875-3 {
				t.Errorf("%+v", tl)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.advice) || !strings.Contains(msg, "--num-ctx") {
				t.Errorf("%q says neither %q nor --num-ctx", msg, tt.advice)
			}
		})
	}
}

// TestCompactElidesAResultTooLargeAlone: the model learns it asked for too
// much, and the turn goes on.
func TestCompactElidesAResultTooLargeAlone(t *testing.T) {
	msgs := []protocol.Message{sys("SYSTEM"), user("go"), call("big.log"), result("call_1", true, n(5000))}
	c := window.New(window.Config{Target: pathOf})
	got, changed, err := c.Compact(context.Background(), loop.Conversation{Messages: msgs, Window: 1000})
	if err != nil || !changed {
		t.Fatalf("Compact: %v, %v", changed, err)
	}
	want := slices.Concat(msgs[:3], []protocol.Message{user("TOOL_RESULT call_1 read_file SUCCESS\n[result of call_1 read_file big.log elided: too large for the context window (5.0 KB); ask for a smaller part]")})
	equalMsgs(t, got, want)
	if !window.IsMasked(strings.SplitN(got[3].Content, "\n", 2)[1]) {
		t.Error("the line is not known as masked")
	}
	if rep := c.Last(); rep.TooLarge != 1 || rep.Masked != 1 {
		t.Errorf("Last = %+v", rep)
	}
}

// TestTooLargeThroughTheLoop: a paste too large ends the turn before any
// request, and the conversation is as it was.
func TestTooLargeThroughTheLoop(t *testing.T) {
	script, err := fakemodel.Parse("t.fake", []byte(">>> expect=hello\nHi.\n>>>\nnever\n"))
	if err != nil {
		t.Fatal(err)
	}
	model := fakemodel.New(script)
	set, err := tools.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	a := loop.New(model, set, loop.Config{System: "SYSTEM", Window: 1000, Compactor: window.New(window.Config{})})
	if _, err := a.Turn(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	before := a.Messages()
	_, err = a.Turn(context.Background(), n(8000))
	if !errors.Is(err, window.ErrTooLarge) {
		t.Fatalf("err = %v", err)
	}
	equalMsgs(t, a.Messages(), before)
	if model.Remaining() != 1 {
		t.Error("the request was sent")
	}
}
