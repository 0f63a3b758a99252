package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"

	"harness/approve"
	"harness/view"
)

// lineAsker asks the approval questions on out and reads each answer as a
// line of input: the REPL's own input, or stdin's when -p runs at a
// terminal. A question's detail (the diff of an edit) is shown before it.
type lineAsker struct {
	out io.Writer
	st  view.Style
	// open, when set, opens the input at the first question.
	open func() *input

	mu sync.Mutex
	in *input
}

var _ approve.Asker = (*lineAsker)(nil)

// use makes the asker read its answers from in.
func (a *lineAsker) use(in *input) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.in = in
}

func (a *lineAsker) input() *input {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.in == nil && a.open != nil {
		a.in, a.open = a.open(), nil
	}
	return a.in
}

// Ask shows the question's detail, then asks "Run bash: go test ./...?
// [y/N/a(lways)] " and reads the answer: y or yes, a or always; anything
// else is no. With no input to read from, or at its end, nobody can
// answer.
func (a *lineAsker) Ask(ctx context.Context, q approve.Question) (approve.Answer, error) {
	in := a.input()
	if in == nil {
		return approve.No, approve.ErrNobody
	}
	if q.Detail != "" {
		fmt.Fprint(a.out, a.st.Diff(q.Detail))
	}
	line, err := in.read(ctx, q.String()+" [y/N/a(lways)] ", true)
	switch {
	case errors.Is(err, io.EOF):
		return approve.No, fmt.Errorf("%w: the input ended", approve.ErrNobody)
	case errors.Is(err, errInterrupt) && ctx.Err() != nil:
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

// interactive reports whether r (a reader or a writer) is a terminal,
// whatever NO_COLOR says: someone may answer at it, or read colours. A
// character device that is no terminal, such as /dev/null, is not.
func interactive(r any) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
