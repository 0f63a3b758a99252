package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"harness/approve"
)

// lineAsker asks the approval questions on out and reads each answer as a
// line of input: the REPL's own lines, or stdin's when -p runs at a
// terminal.
type lineAsker struct {
	out  io.Writer
	echo bool // print the answer, which a terminal would already show
	// start, when set, opens the input at the first question.
	start func() <-chan string

	mu    sync.Mutex
	lines <-chan string
}

var _ approve.Asker = (*lineAsker)(nil)

// listen makes the asker read its answers from lines.
func (a *lineAsker) listen(lines <-chan string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.lines = lines
}

func (a *lineAsker) input() <-chan string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.lines == nil && a.start != nil {
		a.lines, a.start = a.start(), nil
	}
	return a.lines
}

// Ask prints "Run bash: go test ./...? [y/N/a(lways)] " and reads the
// answer: y or yes, a or always; anything else is no. With no input to
// read from, or at its end, nobody can answer.
func (a *lineAsker) Ask(ctx context.Context, q approve.Question) (approve.Answer, error) {
	lines := a.input()
	if lines == nil {
		return approve.No, approve.ErrNobody
	}
	fmt.Fprintf(a.out, "%s [y/N/a(lways)] ", q)
	select {
	case line, ok := <-lines:
		if !ok {
			fmt.Fprintln(a.out)
			return approve.No, fmt.Errorf("%w: the input ended", approve.ErrNobody)
		}
		if a.echo {
			fmt.Fprintln(a.out, line)
		}
		return parseAnswer(line), nil
	case <-ctx.Done():
		fmt.Fprintln(a.out)
		return approve.No, ctx.Err()
	}
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

// readLines reads r a line at a time into the channel it returns, closed at
// the end of r.
func readLines(r io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// interactive reports whether r (a reader or a writer) is a terminal,
// whatever NO_COLOR says: someone may answer at it, or read colours.
func interactive(r any) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
