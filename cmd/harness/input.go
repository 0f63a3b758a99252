package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/emirpasic/gods/v2/lists/arraylist"
	"github.com/ollama/ollama/readline"
)

// errInterrupt is returned by a read at a terminal when Ctrl-C was
// pressed: in raw mode the key is read, not sent as a signal.
var errInterrupt = errors.New("interrupted at the prompt")

// historyLimit bounds the inputs kept in the history file.
const historyLimit = 1000

// input is where the REPL and the approval questions read what the user
// types: one line at a time, from a terminal with line editing and
// history (github.com/ollama/ollama/readline, as `ollama run` uses), or
// plainly, from a pipe. Plain input is echoed after its prompt, so that a
// transcript reads as a terminal would have shown it.
type input struct {
	out io.Writer // prompts and echoes of plain input

	// Plain input: lines from r, read by a goroutine started at the first
	// read.
	r     io.Reader
	echo  bool
	once  sync.Once
	lines chan string

	// Terminal input: main reads the REPL's inputs, with the history;
	// questions reads answers, with a history of its own, from the same
	// terminal. pending is a read under way that a cancelled context
	// left behind; the next read takes its line.
	main, questions *readline.Instance
	pending         chan readResult

	mu sync.Mutex
	// interrupt, when set, stops the turn under way: Ctrl-C at a
	// question at a terminal, which raw mode keeps from being a signal.
	interrupt func()
}

type readResult struct {
	line string
	err  error
}

// plainInput reads lines from r, echoing them to out when echo is set.
func plainInput(r io.Reader, out io.Writer, echo bool) *input {
	return &input{r: r, out: out, echo: echo}
}

// terminalInput reads from the terminal on standard input, with line
// editing, bracketed paste, and the history kept in historyFile ("" keeps
// none). It fails when standard input is not a terminal, or out does not
// show the escape sequences the line editor writes (a Windows console
// without them).
func terminalInput(out io.Writer, historyFile string) (*input, error) {
	if !ansi(out) {
		return nil, errors.New("the terminal shows no escape sequences")
	}
	term, err := readline.NewTerminal()
	if err != nil {
		return nil, err
	}
	main := &readline.Instance{
		Prompt: &readline.Prompt{Prompt: "You: ", AltPrompt: "...  ",
			Placeholder: "Send a message (/help for the commands)", AltPlaceholder: `""" on a line ends the text`},
		Terminal: term,
		History:  loadHistory(historyFile),
	}
	questions := &readline.Instance{
		Prompt:   &readline.Prompt{Placeholder: "y, n or a", AltPlaceholder: "y, n or a"},
		Terminal: term,
		History:  &readline.History{Buf: arraylist.New[string](), Limit: 10},
	}
	fmt.Fprint(out, readline.StartBracketedPaste)
	return &input{out: out, main: main, questions: questions}, nil
}

// loadHistory returns the history kept in path, saved again after every
// input. Without a file it is kept for the run only.
func loadHistory(path string) *readline.History {
	h := &readline.History{Buf: arraylist.New[string](), Limit: historyLimit, Filename: path}
	if path == "" || os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return h // Enabled is false: nothing is saved
	}
	if data, err := os.ReadFile(path); err == nil {
		for line := range bytes.Lines(data) {
			if s := strings.TrimSpace(string(line)); s != "" {
				h.Add(s)
			}
		}
	}
	h.Autosave, h.Enabled = true, true
	return h
}

// close gives the terminal back as it was found.
func (in *input) close() {
	if in.main != nil {
		fmt.Fprint(in.out, readline.EndBracketedPaste)
	}
}

// terminal reports whether the input is a terminal with line editing.
func (in *input) terminal() bool { return in.main != nil }

// setInterrupt sets what Ctrl-C at a question does (nil: nothing more).
func (in *input) setInterrupt(f func()) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.interrupt = f
}

// read prints prompt and returns the next line: io.EOF at the end of the
// input (Ctrl-D at a terminal), errInterrupt for Ctrl-C at a terminal, or
// ctx's error. A question is read without the REPL's history.
func (in *input) read(ctx context.Context, prompt string, question bool) (string, error) {
	if in.main == nil {
		return in.readPlain(ctx, prompt)
	}
	inst := in.main
	if question {
		inst = in.questions
	}
	if in.pending == nil {
		inst.Prompt.Prompt = prompt
		if question {
			inst.Prompt.AltPrompt = prompt
		}
		ch := make(chan readResult, 1)
		in.pending = ch
		go func() {
			line, err := inst.Readline()
			ch <- readResult{line, err}
		}()
	}
	select {
	case r := <-in.pending:
		in.pending = nil
		switch {
		case errors.Is(r.err, readline.ErrInterrupt):
			fmt.Fprintln(in.out) // the line editor leaves the cursor on the line
			if question {
				in.mu.Lock()
				stop := in.interrupt
				in.mu.Unlock()
				if stop != nil {
					stop()
				}
			}
			return "", errInterrupt
		case r.err != nil && !errors.Is(r.err, io.EOF):
			return "", r.err
		case r.err != nil:
			return "", io.EOF
		}
		return r.line, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (in *input) readPlain(ctx context.Context, prompt string) (string, error) {
	in.once.Do(func() {
		in.lines = make(chan string)
		go func() {
			defer close(in.lines)
			sc := bufio.NewScanner(in.r)
			sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
			for sc.Scan() {
				in.lines <- sc.Text()
			}
		}()
	})
	fmt.Fprint(in.out, prompt)
	select {
	case line, ok := <-in.lines:
		if !ok {
			fmt.Fprintln(in.out)
			return "", io.EOF
		}
		if in.echo {
			fmt.Fprintln(in.out, line)
		}
		return line, nil
	case <-ctx.Done():
		fmt.Fprintln(in.out)
		return "", ctx.Err()
	}
}

// message reads one input of the REPL: a line; the lines of a bracketed
// paste, up to the Enter after it; or the lines of a block between """
// marks, as `ollama run` reads them:
//
//	"""
//	first line
//	second line
//	"""
//
// The marks may also share a line with the text ("""first ... last""").
func (in *input) message(ctx context.Context, prompt string) (string, error) {
	line, err := in.read(ctx, prompt, false)
	if err != nil {
		return "", err
	}
	if in.main != nil && in.main.Pasting {
		lines := []string{line}
		for in.main.Pasting {
			if line, err = in.read(ctx, prompt, false); err != nil {
				return "", err
			}
			lines = append(lines, line)
		}
		return strings.TrimRight(strings.Join(lines, "\n"), "\n"), nil
	}
	rest, ok := strings.CutPrefix(strings.TrimLeft(line, " \t"), `"""`)
	if !ok {
		return line, nil
	}
	if text, closed := strings.CutSuffix(rest, `"""`); closed {
		return text, nil
	}
	var lines []string
	if strings.TrimSpace(rest) != "" {
		lines = append(lines, rest)
	}
	if in.main != nil {
		in.main.Prompt.UseAlt = true
		defer func() { in.main.Prompt.UseAlt = false }()
	}
	for {
		line, err := in.read(ctx, "...  ", false)
		if err != nil {
			return "", err
		}
		if text, closed := strings.CutSuffix(line, `"""`); closed {
			if text != "" {
				lines = append(lines, text)
			}
			return strings.Join(lines, "\n"), nil
		}
		lines = append(lines, line)
	}
}
