package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"harness/approve"
	"harness/chat"
	"harness/journal"
	"harness/loop"
	"harness/mcp"
	"harness/protocol"
	"harness/record"
	"harness/repl"
	"harness/tools"
	"harness/view"
	"harness/xdg"
)

// runner is a chat's parts, built once from the flags by (*chatCmd).wire
// and held here by name: nothing is found later by its type.
type runner struct {
	backend   protocol.Backend // what the model says it is
	model     backend
	tools     loop.Tools // behind the approval gate
	root      string     // the workspace's
	ws        *tools.Workspace
	dirs      xdg.Dirs // where the run's settings and state are
	cfg       loop.Config
	budget    *loop.Budget
	rec       *record.Recorder // nil without --record
	approvals *approvals
	// ctxview shows the context window: after the view, in the main
	// conversation's hooks; and for /context.
	ctxview *view.Window
	// journal keeps what the file tools change, under the gate: the
	// diffs shown after each write, /diff and /undo.
	journal *journal.Journal
	// attach reads what the @tags of an input name, through the gate.
	attach *repl.Attacher
	// mcp are the MCP servers of the run, whose tools the main
	// conversation has; nil when there are none.
	mcp *mcp.Servers
	// windowFor is the context window of a conversation with model b,
	// for the flags: warnings about it go to warn.
	windowFor func(ctx context.Context, warn io.Writer, b backend) (int, error)
	// providers are what the model was chosen from, and /model chooses
	// from; nil with --fake.
	providers *providers
	// toolsFor builds the tools of the main conversation for a model:
	// those behind the gate, and the agent tool, whose helpers use the
	// model too.
	toolsFor func(loop.Model) (loop.Tools, error)
	// answers is the asker of the gate's questions that the REPL's input
	// answers; nil with -p.
	answers *repl.Asker
	conv    conversation // where the conversation comes from and is saved
	// pinned is set when -m named the model: a resumed conversation then
	// keeps it rather than going on with the model it used last.
	pinned bool
	// script keeps the failure of a scripted model (--fake) that a
	// REPL turn ended with, which fails the run at its end.
	script *chat.Scripted
	close  func() // closes what the run opened
	wire   bool   // --show-wire
}

// ui are the hooks that show a conversation's events with v: the events,
// after each write the diff it made, and the context window's use.
func (r *runner) ui(v *view.Turn) []loop.Hook {
	return []loop.Hook{v, loop.Observe(func(e loop.Event) { r.showDiff(v, e) }), r.ctxview,
		view.NewWire(v.Log, v.Style, r.wire)} // notes of lies, and --show-wire
}

// agent returns the agent of the run, new or resumed, rendering its events
// with v. The UI's hooks come last, so that what they show has already
// passed the budget and reached the record and the session.
func (r *runner) agent(v *view.Turn) *loop.Agent {
	return r.begin(v.Log, r.hooks(r.ui(v)...))
}

// showDiff shows, after the result line of a call that wrote a file, the
// diff it made, shortened.
func (r *runner) showDiff(v *view.Turn, e loop.Event) {
	if e.Kind != loop.CallEnded || e.Origin != "" {
		return
	}
	if d := r.journal.TakeDiff(e.Call.ID); d != "" {
		fmt.Fprint(v.Log, v.Style.Diff(tools.Shorten(d, tools.MaxDiffLines)))
	}
}

// openRecord appends a run's record to path, starting it with start, and
// returns it with what closes it. A new file is made 0600: a record holds
// everything the model read, secrets the user let it read included. An
// existing file keeps its mode, which is its owner's choice.
func openRecord(path string, start record.Start) (*record.Recorder, func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("--record: %w", err)
	}
	rec := record.New(f)
	if err := rec.Start(start); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("--record: %w", err)
	}
	return rec, func() { f.Close() }, nil
}

// typed tells the record what the user typed for the next turn, before
// the harness adds to it.
func (r *runner) typed(input string) {
	if r.rec != nil {
		r.rec.Typed(input)
	}
}

// oneTurn runs -p: one turn, the answer on stdout, the rest on stderr.
func (r *runner) oneTurn(ctx context.Context, std stdio, prompt string) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	context.AfterFunc(ctx, stop) // after the first Ctrl-C, a second one quits at once
	v := &view.Turn{Out: std.err, Log: std.err, Style: view.StyleFor(std.err), Final: true}
	agent := r.agent(v)
	r.typed(prompt)
	prompt = r.noted(r.attach.Attach(ctx, prompt, std.err, v.Style))
	ctx, cancel := r.budget.Start(ctx)
	defer cancel()
	answer, err := agent.Turn(ctx, prompt)
	if err != nil {
		return err
	}
	if view.Interactive(std.out) { // a pipe or a file gets the answer exactly
		answer = approve.Visible(answer)
	}
	_, err = fmt.Fprintln(std.out, answer)
	return err
}

// console is the REPL between its inputs: the conversation, and what the
// commands change.
type console struct {
	r     *runner
	out   io.Writer
	st    view.Style
	in    *repl.Input
	view  *view.Turn
	agent *loop.Agent
	turn  int // the number of the next turn
	cmds  []command
}

// errQuit is returned by a command that ends the REPL.
var errQuit = errors.New("quit")

// repl reads one input at a time and runs a turn for each, or a command
// for a line that starts with a slash. Ctrl-C stops the running turn (a
// second one quits); at the prompt, Ctrl-D, exit, quit and /exit leave.
// An error ends the turn, not the conversation.
func (r *runner) repl(ctx context.Context, std stdio) error {
	st := view.StyleFor(std.out)
	in := openInput(std, r.dirs)
	r.answers.Use(in)
	fmt.Fprintf(std.out, "harness %s: %s model %s, workspace %s\n", version(), r.backend.Name, r.backend.Model, r.root)
	fmt.Fprintln(std.out, st.Dim("Type /help for the commands. Ctrl-C stops a turn; Ctrl-D or /exit leaves."))
	if err := checkBackend(ctx, r.model); err != nil {
		label := "error:"
		if doubtfullyMissing(err) {
			label = "warning:" // the server may answer whatever the name
		}
		fmt.Fprintf(std.err, "%s %s\n", st.Bad(label), modelAdvice(err, true))
	}
	v := &view.Turn{Out: std.out, Log: std.out, Style: st, Stream: true}
	c := &console{r: r, out: std.out, st: st, in: in, view: v, agent: r.agent(v), cmds: commands()}
	c.turn = c.agent.State().Turn + 1 // a resumed conversation goes on counting
	comp := &repl.Completer{WS: r.ws}
	for _, cmd := range c.cmds {
		comp.Commands = append(comp.Commands, cmd.name)
	}
	in.SetCompleter(func(line string, pos int) (int, []string) { return comp.Complete(ctx, line, pos) })

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	for {
		fmt.Fprintln(std.out, st.Dim(fmt.Sprintf("<Turn %d>", c.turn)))
		text, err := c.read(ctx, sigs)
		switch {
		case errors.Is(err, repl.ErrInterrupt):
			fmt.Fprintln(std.out, st.Dim("(Ctrl-D, exit or /exit leaves)"))
			continue
		case errors.Is(err, repl.ErrLongLine):
			fmt.Fprintf(std.err, "%s %v\n", st.Bad("error:"), err)
			continue
		case errors.Is(err, io.EOF), errors.Is(err, errQuit):
			if in.Terminal() {
				fmt.Fprintln(std.out)
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
				fmt.Fprintf(std.err, "%s %v\n", st.Bad("error:"), err)
			}
			continue
		}
		switch err := c.runTurn(ctx, text, sigs); {
		case errors.Is(err, errQuitNow):
			return &exitCodeError{code: exitInterrupt, err: err}
		case err != nil && !errors.Is(err, context.Canceled):
			fmt.Fprintf(std.err, "%s %s\n", st.Bad("error:"), modelAdvice(err, true))
		}
		// A turn whose first step failed left nothing: the conversation,
		// its turn count and the session are as they were.
		if next := c.agent.State().Turn + 1; next == c.turn {
			recall := ""
			if in.Terminal() {
				recall = "; Up recalls it"
			}
			fmt.Fprintln(std.out, st.Dim("The message was not sent: the conversation is as it was"+recall+"."))
		} else {
			c.turn, r.conv.note = next, "" // the model was told the note
		}
	}
}

// openInput is the REPL's input: the terminal, with line editing and a
// history in the state folder, when standard input is one; plain lines
// otherwise.
func openInput(std stdio, dirs xdg.Dirs) *repl.Input {
	if f, ok := std.in.(*os.File); ok && f == os.Stdin && view.Interactive(f) {
		history := ""
		if dir, err := dirs.State(); err == nil {
			history = filepath.Join(dir, "history")
		}
		if in, err := repl.TerminalInput(std.out, history); err == nil {
			return in
		}
	}
	return repl.PlainInput(std.in, std.out, !view.Interactive(std.in))
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

// errQuitNow is returned by a turn that a second Ctrl-C ended: the REPL
// quits without waiting for the turn to finish.
var errQuitNow = errors.New("stopped by a second Ctrl-C during a turn")

// runTurn runs one turn that the first Ctrl-C cancels. A second one, while
// the turn is still ending, quits: runTurn returns errQuitNow at once,
// leaving the turn behind, so that what the run opened is closed (the
// copies /undo kept, the session, the commands running) before the
// harness exits. The input's @tags are attached first, and a note of what
// commands changed goes before it.
func (c *console) runTurn(parent context.Context, input string, sigs <-chan os.Signal) error {
	r := c.r
	ctx, cancel := r.budget.Start(parent)
	defer cancel()
	c.in.SetInterrupt(cancel)
	defer c.in.SetInterrupt(nil)
	done := make(chan error, 1)
	r.typed(input)
	go func() {
		_, err := c.agent.Turn(ctx, r.noted(r.attach.Attach(ctx, input, c.out, c.st)))
		done <- err
	}()
	for interrupted := false; ; {
		select {
		case err := <-done:
			return err
		case <-sigs:
			if interrupted {
				return errQuitNow
			}
			interrupted = true
			cancel()
		}
	}
}
