package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"harness/approve"
	"harness/view"
)

// Asker asks the approval questions on out and reads each answer as a
// line of input: the REPL's own input, or stdin's when -p runs at a
// terminal. A question's detail (the diff of an edit) is shown before it.
type Asker struct {
	Out   io.Writer
	Style view.Style
	// Open, when set, opens the input at the first question.
	Open func() *Input

	mu sync.Mutex
	in *Input
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

// Ask shows the question's detail, then asks "Run bash: go test ./...?
// [y/N/a(lways)] " and reads the answer: y or yes, a or always; anything
// else is no. With no input to read from, or at its end, nobody can
// answer.
func (a *Asker) Ask(ctx context.Context, q approve.Question) (approve.Answer, error) {
	in := a.input()
	if in == nil {
		return approve.No, approve.ErrNobody
	}
	if q.Detail != "" {
		fmt.Fprint(a.Out, a.Style.Diff(q.Detail))
	}
	line, err := in.read(ctx, q.String()+" [y/N/a(lways)] ", true)
	switch {
	case errors.Is(err, io.EOF):
		return approve.No, fmt.Errorf("%w: the input ended", approve.ErrNobody)
	case errors.Is(err, ErrInterrupt) && ctx.Err() != nil:
		return approve.No, ctx.Err()
	case err != nil:
		return approve.No, err
	}
	return parseAnswer(line), nil
}

func parseAnswer(line string) approve.Answer {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return approve.Yes
	case "a", "always":
		return approve.Always
	}
	return approve.No
}
