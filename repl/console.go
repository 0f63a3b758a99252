package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"harness/chat"
	"harness/view"
)

// Config is what a REPL runs with.
type Config struct {
	Chat *chat.Chat
	// Asker answers the approval gate's questions from the REPL's input.
	Asker *Asker
	In    io.Reader
	// Out is the terminal's output, as the process has it (os.Stdout):
	// its colours and line editing are decided by what it is. What the
	// REPL prints goes through Screen, which writes to it.
	Out    io.Writer
	Screen io.Writer
	Err    io.Writer // errors
	// Banner is the first line printed, saying which harness this is.
	Banner string
}

// ErrQuitNow is returned by Run when a second Ctrl-C ended a turn: the
// REPL quits without waiting for the turn to finish, so that what the run
// opened is closed (the copies /undo kept, the session, the commands
// running) before the harness exits.
var ErrQuitNow = errors.New("stopped by a second Ctrl-C during a turn")

// errQuit is returned by a command that ends the REPL.
var errQuit = errors.New("quit")

// console is the REPL between its inputs: the chat, and what the commands
// change.
type console struct {
	chat *chat.Chat
	out  io.Writer
	st   view.Style
	in   *Input
	turn int // the number of the next turn
	cmds []command
}

// Run reads one input at a time and runs a turn of cfg.Chat for each, or
// a command for a line that starts with a slash. Ctrl-C stops the running
// turn (a second one quits); at the prompt, Ctrl-D, exit, quit and /exit
// leave. An error ends the turn, not the conversation.
func Run(ctx context.Context, cfg Config) error {
	ch, out := cfg.Chat, cfg.Screen
	st := view.StyleFor(cfg.Out)
	in := open(cfg.In, cfg.Out, ch)
	cfg.Asker.Use(in)
	b := ch.Backend()
	fmt.Fprintf(out, "%s: %s model %s, workspace %s\n", cfg.Banner, b.Name, b.Model, ch.Root())
	ch.About(ctx, out)
	fmt.Fprintln(out, st.Dim("Type /help for the commands. Ctrl-C stops a turn; Ctrl-D or /exit leaves."))
	if err := chat.Check(ctx, ch.Model); err != nil {
		label := "error:"
		if chat.DoubtfullyMissing(err) {
			label = "warning:" // the server may answer whatever the name
		}
		fmt.Fprintf(cfg.Err, "%s %s\n", st.Bad(label), chat.Advice(err, true))
	}
	ch.Start(&view.Turn{Out: out, Log: out, Style: st, Stream: true, Activity: view.ActivityFor(cfg.Out), Wire: ch.ShowWire})
	c := &console{chat: ch, out: out, st: st, in: in, cmds: commands()}
	c.turn = ch.Agent().State().Turn + 1 // a resumed conversation goes on counting
	comp := &completer{ws: ch.Workspace}
	for _, cmd := range c.cmds {
		comp.commands = append(comp.commands, cmd.name)
	}
	in.SetCompleter(func(line string, pos int) (int, []string) { return comp.Complete(ctx, line, pos) })

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	for {
		fmt.Fprintln(out, st.Dim(fmt.Sprintf("<Turn %d>", c.turn)))
		text, err := c.read(ctx, sigs)
		switch {
		case errors.Is(err, ErrInterrupt):
			fmt.Fprintln(out, st.Dim("(Ctrl-D, exit or /exit leaves)"))
			continue
		case errors.Is(err, ErrLongLine):
			fmt.Fprintf(cfg.Err, "%s %v\n", st.Bad("error:"), err)
			continue
		case errors.Is(err, io.EOF), errors.Is(err, errQuit):
			if in.Terminal() {
				fmt.Fprintln(out)
			}
			return nil
		case err != nil:
			return err
		}
		switch line := strings.TrimSpace(text); {
		case line == "":
			continue
		case line == "exit" || line == "quit":
			return nil
		case isCommand(line):
			if err := c.command(ctx, line); errors.Is(err, errQuit) {
				return nil
			} else if err != nil {
				fmt.Fprintf(cfg.Err, "%s %v\n", st.Bad("error:"), err)
			}
			c.turn = ch.Agent().State().Turn + 1 // /clear and /load start another conversation
			continue
		}
		switch err := c.runTurn(ctx, text, sigs); {
		case errors.Is(err, ErrQuitNow):
			return err
		case err != nil && !errors.Is(err, context.Canceled):
			fmt.Fprintf(cfg.Err, "%s %s\n", st.Bad("error:"), chat.Advice(err, true))
		}
		// A turn whose first step failed left nothing: the conversation,
		// its turn count and the session are as they were.
		if next := ch.Agent().State().Turn + 1; next == c.turn {
			recall := ""
			if in.Terminal() {
				recall = "; Up recalls it"
			}
			fmt.Fprintln(out, st.Dim("The message was not sent: the conversation is as it was"+recall+"."))
		} else {
			c.turn = next
		}
	}
}

// open is the REPL's input: the terminal, with line editing and a history
// in the state folder, when in is the process's standard input and a
// terminal; plain lines otherwise.
func open(in io.Reader, out io.Writer, ch *chat.Chat) *Input {
	if f, ok := in.(*os.File); ok && f == os.Stdin && view.Interactive(f) {
		history := ""
		if dir, err := ch.Dirs.State(); err == nil {
			history = filepath.Join(dir, "history")
		}
		if in, err := TerminalInput(out, history); err == nil {
			return in
		}
	}
	return PlainInput(in, out, !view.Interactive(in))
}

// read reads the next input at the prompt. Ctrl-C there, which is a signal
// only when the input is not a terminal in raw mode, quits.
func (c *console) read(ctx context.Context, sigs <-chan os.Signal) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	quit := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			close(quit)
			cancel()
		case <-ctx.Done():
		}
	}()
	prompt := c.st.You("You") + ": "
	if c.in.Terminal() {
		prompt = "You: " // the line editor counts the prompt's bytes as columns
	}
	text, err := c.in.Message(ctx, prompt)
	select {
	case <-quit:
		return "", errQuit
	default:
	}
	return text, err
}

// runTurn runs one turn that the first Ctrl-C cancels. A second one, while
// the turn is still ending, quits: runTurn returns ErrQuitNow at once,
// leaving the turn behind.
func (c *console) runTurn(parent context.Context, input string, sigs <-chan os.Signal) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	c.in.SetInterrupt(cancel)
	defer c.in.SetInterrupt(nil)
	done := make(chan error, 1)
	go func() {
		_, err := c.chat.Turn(ctx, input, c.out, c.st)
		done <- err
	}()
	for interrupted := false; ; {
		select {
		case err := <-done:
			return err
		case <-sigs:
			if interrupted {
				return ErrQuitNow
			}
			interrupted = true
			cancel()
		}
	}
}
