package repl

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"harness/view"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/reeflective/readline"
	"github.com/reeflective/readline/inputrc"
	"golang.org/x/term"
)

// errNotTerminal is returned by TerminalInput when standard input is not
// a terminal.
var errNotTerminal = errors.New("standard input is not a terminal")

// ErrInterrupt is returned by a read at a terminal when Ctrl-C was
// pressed: in raw mode the key is read, not sent as a signal.
var ErrInterrupt = errors.New("interrupted at the prompt")

// ErrLongLine is wrapped by the error of an input line longer than
// maxLine bytes: the line is skipped, and the input goes on after it.
var ErrLongLine = fmt.Errorf("longer than %d MiB; it was skipped", maxLine>>20)

// maxLine bounds an input line read from a pipe or a file.
const maxLine = 1 << 20

// reserveRow is written before the line editor draws a prompt: a newline
// and a move back up, which leave a row below the prompt's. The editor
// redraws the prompt by moving one row down, clearing the screen below,
// and moving back up; it can tell it is on the terminal's last row only by
// asking the terminal where the cursor is, which it is told not to do (a
// terminal that does not answer would hang the prompt). On the last row,
// the move down does nothing, the clearing erases the prompt's own row,
// and the move up puts the cursor on the row above: once the screen had
// scrolled, a question or the prompt showed nothing until a key was
// pressed, and then wrote over the line above. With a row below, there is
// always somewhere to move down to. Away from the bottom it changes
// nothing on the screen; at the bottom it scrolls the screen by one row.
const reserveRow = "\n\x1b[1A"

// historyLimit bounds the inputs kept in the history file.
const historyLimit = 1000

// Input is where the REPL and the approval questions read what the user
// types: one line at a time, from a terminal with line editing, history
// and completion (github.com/reeflective/readline, which reads the user's
// ~/.inputrc as bash does), or plainly, from a pipe. Plain input is echoed
// after its prompt, so that a transcript reads as a terminal would have
// shown it.
type Input struct {
	out io.Writer // prompts and echoes of plain input

	// Plain input: lines from r, read by a goroutine started at the first
	// read.
	r     io.Reader
	echo  bool
	once  sync.Once
	lines chan readResult

	// Terminal input: rl reads the REPL's inputs, with the history, and
	// the answers to questions, without it. pending is a read under way
	// that a cancelled context left behind; the next read takes its line.
	rl      *readline.Shell
	hist    *lineHistory
	prompt  string
	asking  bool // the read under way is a question's
	pending chan readResult

	mu sync.Mutex
	// interrupt, when set, stops the turn under way: Ctrl-C at a
	// question at a terminal, which raw mode keeps from being a signal.
	interrupt func()
}

type readResult struct {
	line string
	err  error
}

// PlainInput reads lines from r, echoing them to out when echo is set.
func PlainInput(r io.Reader, out io.Writer, echo bool) *Input {
	return &Input{r: r, out: out, echo: echo}
}

// TerminalInput reads from the terminal on standard input, with line
// editing, bracketed paste (on while a line is read), and the history
// kept in historyFile ("" keeps none). It fails when standard input is not
// a terminal, or out does not show the escape sequences the line editor
// writes (a Windows console without them). The cursor's shape stays the
// user's, and the terminal is never asked where the cursor is (a terminal
// that does not answer would hang the prompt).
func TerminalInput(out io.Writer, historyFile string) (*Input, error) {
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return nil, errNotTerminal
	}
	if !view.ANSI(out) {
		return nil, errors.New("the terminal shows no escape sequences")
	}
	rl := readline.NewShell(inputrc.WithApp("harness"))
	rl.Config.Set("enable-bracketed-paste", true)
	rl.Config.Set("cursor-position-probe", false)
	rl.Config.Set("cursor-emacs", "default") // the user's cursor, not a blinking block
	in := &Input{out: out, rl: rl, hist: loadHistory(historyFile)}
	rl.Prompt.Primary(func() string { return in.prompt })
	rl.Prompt.Secondary(func() string { return "...  " })
	rl.History.Delete()
	rl.History.Add("inputs", in.hist)
	return in, nil
}

// SetCompleter makes Tab at the terminal complete the word before the
// cursor with complete, which returns where the word starts in line (at
// byte pos) and the words it may become; a word that ends in / is a
// folder, completed on without a space. Answers to questions are not
// completed.
func (in *Input) SetCompleter(complete func(line string, pos int) (start int, candidates []string)) {
	if in.rl == nil {
		return
	}
	in.rl.Completer = func(line []rune, cursor int) readline.Completions {
		if in.asking || cursor < 0 || cursor > len(line) {
			return readline.Completions{}
		}
		text, pos := string(line), len(string(line[:cursor]))
		start, candidates := complete(text, pos)
		comps := readline.CompleteValues(candidates...).NoSpace('/')
		comps.PREFIX = text[start:pos]
		return comps
	}
}

// lineHistory is the history of inputs (a readline.History), one a line
// in its file, the oldest first, at most historyLimit. Each input is
// appended to the file as it is made, in one write at its end, so that
// REPLs running at once keep each other's inputs; the file is trimmed to
// the last historyLimit lines once it holds twice as many. Without a file
// it is kept for the run only. An input of several lines comes back from
// the file as several.
type lineHistory struct {
	path  string
	lines []string
	limit int // the inputs kept
	// inFile counts the lines of the file, as far as this process knows:
	// those it read, and those it added.
	inFile int
}

// loadHistory reads the history kept in path, making its folder.
func loadHistory(path string) *lineHistory {
	h := &lineHistory{limit: historyLimit}
	if path == "" || os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return h
	}
	h.path = path
	if data, err := os.ReadFile(path); err == nil {
		h.lines = historyLines(data)
		h.inFile = len(h.lines)
	}
	h.lines = h.lines[max(0, len(h.lines)-h.limit):]
	return h
}

// historyLines returns the inputs a history file holds, the oldest first.
func historyLines(data []byte) []string {
	var lines []string
	for line := range bytes.Lines(data) {
		if s := strings.TrimSpace(string(line)); s != "" {
			lines = append(lines, s)
		}
	}
	return lines
}

// Write adds an input, and appends it to the file.
func (h *lineHistory) Write(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return len(h.lines), nil
	}
	h.lines = append(h.lines, s)
	h.lines = h.lines[max(0, len(h.lines)-h.limit):]
	if h.path == "" {
		return len(h.lines), nil
	}
	if err := appendLine(h.path, s); err != nil {
		return len(h.lines), err
	}
	h.inFile += strings.Count(s, "\n") + 1
	if h.inFile > 2*h.limit {
		return len(h.lines), h.trim()
	}
	return len(h.lines), nil
}

// appendLine adds s and a newline at the end of the file at path, with one
// write, creating the file (0600) if need be.
func appendLine(path, s string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// trim makes the file hold its last h.limit lines, read again first so
// that other REPLs' inputs are kept too. The new file is written aside and
// renamed over the old, so that no one ever reads it half written.
func (h *lineHistory) trim() error {
	data, err := os.ReadFile(h.path)
	if err != nil {
		return err
	}
	lines := historyLines(data)
	lines = lines[max(0, len(lines)-h.limit):]
	tmp, err := os.CreateTemp(filepath.Dir(h.path), "."+filepath.Base(h.path)+"-*")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(strings.Join(lines, "\n") + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), h.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	h.inFile = len(lines)
	return nil
}

// GetLine returns the input pos, from 0 for the oldest.
func (h *lineHistory) GetLine(pos int) (string, error) {
	if pos < 0 || pos >= len(h.lines) {
		return "", fmt.Errorf("no history line %d", pos)
	}
	return h.lines[pos], nil
}

// Len is the number of inputs kept.
func (h *lineHistory) Len() int { return len(h.lines) }

// Dump returns the inputs, the oldest first.
func (h *lineHistory) Dump() any { return h.lines }

var _ readline.History = (*lineHistory)(nil)

// Terminal reports whether the input is a terminal with line editing.
func (in *Input) Terminal() bool { return in.rl != nil }

// SetInterrupt sets what Ctrl-C at a question does (nil: nothing more).
func (in *Input) SetInterrupt(f func()) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.interrupt = f
}

// read prints prompt on out (nil: the input's own writer) and returns
// the next line: io.EOF at the end of the input (Ctrl-D at a terminal),
// ErrInterrupt for Ctrl-C at a terminal, or ctx's error. A question is
// read without the REPL's history.
func (in *Input) read(ctx context.Context, prompt string, question bool, out io.Writer) (string, error) {
	if out == nil {
		out = in.out
	}
	if in.rl == nil {
		return in.readPlain(ctx, prompt, out)
	}
	if in.pending == nil {
		// A question's answers are not inputs: they are kept out of the
		// history, and not completed.
		in.prompt, in.asking = prompt, question
		in.rl.History.Delete()
		if !question {
			in.rl.History.Add("inputs", in.hist)
		}
		io.WriteString(out, reserveRow)
		ch := make(chan readResult, 1)
		in.pending = ch
		go func() {
			line, err := in.rl.Readline()
			ch <- readResult{line, err}
		}()
	}
	select {
	case r := <-in.pending:
		in.pending = nil
		switch {
		case errors.Is(r.err, readline.ErrInterrupt):
			if question {
				in.mu.Lock()
				stop := in.interrupt
				in.mu.Unlock()
				if stop != nil {
					stop()
				}
			}
			return "", ErrInterrupt
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

func (in *Input) readPlain(ctx context.Context, prompt string, out io.Writer) (string, error) {
	in.once.Do(func() {
		in.lines = make(chan readResult)
		go readLines(in.r, in.lines)
	})
	fmt.Fprint(out, prompt)
	select {
	case r, ok := <-in.lines:
		switch {
		case !ok:
			fmt.Fprintln(out)
			return "", io.EOF
		case r.err != nil:
			fmt.Fprintln(out)
			return "", r.err
		}
		if in.echo {
			fmt.Fprintln(out, r.line)
		}
		return r.line, nil
	case <-ctx.Done():
		fmt.Fprintln(out)
		return "", ctx.Err()
	}
}

// readLines sends the lines of r, each without its end (\n or \r\n), and
// closes lines at the end of r. A line longer than maxLine bytes is sent
// as an error wrapping ErrLongLine that names it, and the reading goes on
// after it; an error reading r is sent, and ends it.
func readLines(r io.Reader, lines chan<- readResult) {
	defer close(lines)
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, long, err := readLine(br, maxLine)
		switch {
		case errors.Is(err, io.EOF):
			return
		case err != nil:
			lines <- readResult{err: fmt.Errorf("reading the input: %w", err)}
			return
		case long:
			lines <- readResult{err: fmt.Errorf("input line %d is %w", n, ErrLongLine)}
		default:
			lines <- readResult{line: string(line)}
		}
	}
}

// readLine reads one line of br, without its end (\n or \r\n). A line
// longer than limit bytes is read to its end but not kept: long is set
// instead. At the end of br it returns io.EOF, and no line; the last line
// needs no end.
func readLine(br *bufio.Reader, limit int) (line []byte, long bool, err error) {
	read := 0
	for {
		chunk, err := br.ReadSlice('\n')
		read += len(chunk)
		if !long {
			line = append(line, chunk...)
			if len(line) > limit+len("\r\n") {
				line, long = nil, true
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && read == 0:
			return nil, false, io.EOF
		case err != nil && !errors.Is(err, io.EOF):
			return nil, false, err
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) > limit {
			return nil, true, nil
		}
		return line, long, nil
	}
}

// Message reads one input of the REPL: a line; the lines of a bracketed
// paste, up to the Enter after it; or the lines of a block between """
// marks, as `ollama run` reads them:
//
//	"""
//	first line
//	second line
//	"""
//
// The marks may also share a line with the text ("""first ... last""").
// A block the input ends inside (or Ctrl-D ends, at a terminal) is sent as
// it stands, after a note saying so. A line too long to read is an error
// wrapping ErrLongLine; a block that holds one is read to its end and
// skipped whole.
func (in *Input) Message(ctx context.Context, prompt string) (string, error) {
	line, err := in.read(ctx, prompt, false, nil)
	if err != nil {
		return "", err
	}
	rest, ok := strings.CutPrefix(strings.TrimLeft(line, " \t"), `"""`)
	if !ok {
		return line, nil
	}
	if text, closed := strings.CutSuffix(rest, `"""`); closed {
		return text, nil
	}
	var (
		lines   []string
		skipped error // the first line of the block too long to read
	)
	if strings.TrimSpace(rest) != "" {
		lines = append(lines, rest)
	}
	for {
		line, err := in.read(ctx, "...  ", false, nil)
		switch {
		case errors.Is(err, ErrLongLine):
			if skipped == nil {
				skipped = err
			}
			continue
		case errors.Is(err, io.EOF) && skipped != nil:
			return "", fmt.Errorf(`%w, with the """ block it is in`, skipped)
		case errors.Is(err, io.EOF):
			fmt.Fprintln(in.out, `note: the input ended inside a """ block; it is sent as it stands`)
			return strings.Join(lines, "\n"), nil
		case err != nil:
			return "", err
		}
		if text, closed := strings.CutSuffix(line, `"""`); closed {
			if skipped != nil {
				return "", fmt.Errorf(`%w, with the """ block it is in`, skipped)
			}
			if text != "" {
				lines = append(lines, text)
			}
			return strings.Join(lines, "\n"), nil
		}
		lines = append(lines, line)
	}
}
