package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"harness/approve"
	"harness/view"
)

// Asker asks the approval questions on out and reads each answer as a
// line of input: the REPL's own input, or stdin's when -p runs at a
// terminal. A question's detail (the diff of an edit) is shown before it.
// When Out is a Screen that the rest of the program writes through too,
// what they write while a question is open is shown after its answer.
type Asker struct {
	Out   io.Writer
	Style view.Style
	// Open, when set, opens the input at the first question.
	Open func() *Input

	mu sync.Mutex
	in *Input

	asking sync.Mutex // held while a question is open
}

var _ approve.Asker = (*Asker)(nil)

// Use makes the asker read its answers from in.
func (a *Asker) Use(in *Input) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.in = in
}

func (a *Asker) input() *Input {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.in == nil && a.Open != nil {
		a.in, a.Open = a.Open(), nil
	}
	return a.in
}

// maxUnclear is how many answers the asker does not understand it takes
// before it counts the question as refused.
const maxUnclear = 3

// Ask shows the question's detail, then asks "Run bash: go test ./...?
// [y/N/a(lways)] " and reads the answer: y or yes, a or always, n or no,
// or Enter alone, which is no. An answer it does not understand (a
// command typed at the question) is no answer: it says what it takes and
// asks again, and after maxUnclear of them counts the question as
// refused. With no input to read from, or at its end, nobody can answer.
//
// When Out is a Screen, the asker holds it from the detail to the answer:
// what others write meanwhile is shown after the answer.
func (a *Asker) Ask(ctx context.Context, q approve.Question) (approve.Answer, error) {
	in := a.input()
	if in == nil {
		return approve.No, approve.ErrNobody
	}
	a.asking.Lock() // one question at a time
	defer a.asking.Unlock()
	out := a.Out
	if s, ok := out.(*Screen); ok {
		w, release := s.hold()
		defer release()
		out = w
	}
	if q.Detail != "" {
		fmt.Fprint(out, a.Style.Diff(q.Detail))
	}
	prompt := q.String() + " [y/N/a(lways)] "
	for unclear := 0; ; {
		line, err := in.read(ctx, prompt, true, out)
		switch {
		case errors.Is(err, io.EOF):
			return approve.No, fmt.Errorf("%w: the input ended", approve.ErrNobody)
		case errors.Is(err, ErrInterrupt) && ctx.Err() != nil:
			return approve.No, ctx.Err()
		case err != nil:
			return approve.No, err
		}
		answer, ok := parseAnswer(line)
		if ok {
			return answer, nil
		}
		if unclear++; unclear == maxUnclear {
			fmt.Fprintln(out, a.Style.Dim(fmt.Sprintf("%s: no answer understood after %d tries; taken as no", visibleAnswer(line), maxUnclear)))
			return approve.No, nil
		}
		fmt.Fprintln(out, a.Style.Dim(fmt.Sprintf("%s is not an answer: type y (yes), n (no) or a (always); Enter alone is no", visibleAnswer(line))))
	}
}

// parseAnswer returns the answer line gives, and whether it gives one: y
// or yes, a or always, n or no, or nothing at all (no), in any case.
func parseAnswer(line string) (approve.Answer, bool) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return approve.Yes, true
	case "a", "always":
		return approve.Always, true
	case "", "n", "no":
		return approve.No, true
	}
	return approve.No, false
}

// visibleAnswer quotes an answer for a line on the terminal, its control
// characters escaped and its length cut.
func visibleAnswer(line string) string {
	line = strings.TrimSpace(line)
	if r := []rune(line); len(r) > 40 {
		line = string(r[:40]) + "…"
	}
	return strconv.Quote(line)
}
