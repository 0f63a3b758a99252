package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"

	"harness/approve"
	"harness/chat"
	"harness/config"
	"harness/loop"
	"harness/record"
	"harness/repl"
	"harness/subagent"
	"harness/tools"
	"harness/view"
	"harness/xdg"
)

// wired is a chat built from the flags, and what its REPL or its one turn
// needs besides.
type wired struct {
	chat *chat.Chat
	// screen is where the chat's notes go: the REPL's output, or stderr
	// with -p; a question waiting there keeps what else is written.
	screen  *repl.Screen
	st      view.Style  // of what screen writes to
	answers *repl.Asker // asks in the REPL, answered by its input; nil with -p
}

// wire builds the parts of a chat from the flags, once; they are passed
// down from here and never looked for again. given names the flags given
// on the command line; dirs finds the settings and state folders; out is
// the run's output as JSON lines, nil for none.
func (c *chatCmd) wire(ctx context.Context, std stdio, given []string, dirs xdg.Dirs, out *record.Recorder) (*wired, error) {
	inREPL := c.Prompt == ""
	w := &wired{screen: repl.NewScreen(std.err), st: view.StyleFor(std.err)}
	if inREPL {
		w.screen, w.st = repl.NewScreen(std.out), view.StyleFor(std.out)
	}
	log := w.screen
	// The model's flags first: a wrong one must not start the MCP
	// servers, and the settings file is read once.
	model, provs, err := c.model(given, dirs)
	if err != nil {
		return nil, &exitCodeError{code: exitUsage, err: err}
	}
	// The server is asked for the model's context length now, and the
	// answer waited for where the window is sized: the question's round
	// trip overlaps the set-up of the servers and tools.
	askCtx, stopAsking := context.WithCancel(ctx) // stopped when the answer is in, or the set-up fails first
	defer stopAsking()
	window := askWindow(askCtx, model, &c.modelFlags)
	var file *config.File // nil: the MCP servers' own reading of it
	if provs != nil {
		file = provs.file
	}
	servers, err := c.startMCP(ctx, dirs, file, c.Workspace, log)
	if err != nil {
		return nil, &exitCodeError{code: exitUsage, err: err}
	}
	// The servers stop with the run (closeFiles), or here when there is
	// no run.
	done := false
	defer func() {
		if !done {
			servers.Close()
		}
	}()
	// Toolchains' caches are the workspace's own in the state folder; with
	// --no-session, which leaves nothing there, a folder of the run's.
	var runCaches string
	caches := func(root string) string { return cachesDir(dirs, root) }
	if c.NoSession {
		caches = func(string) string {
			runCaches, _ = os.MkdirTemp("", "harness-caches-")
			return runCaches
		}
	}
	defer func() {
		if !done && runCaches != "" {
			os.RemoveAll(runCaches)
		}
	}()
	tb, err := c.tools(&c.safetyFlags, servers, caches)
	if err != nil {
		return nil, &exitCodeError{code: exitUsage, err: err}
	}
	// What the walks read of the workspace's folders is kept for the next
	// run, but not by a run that leaves nothing in the state folder.
	if census, err := dirs.ForWorkspace("census", tb.ws.Root()); err == nil && !c.NoSession {
		tb.ws.KeepCensus(census)
	}
	var keep string // where /undo's copies go: only the REPL has /undo
	if inREPL {
		keep, _ = dirs.State()
	}
	// Questions go to the REPL's output in the REPL, answered by its input
	// lines; with -p, to stderr, answered only when stdin is a terminal.
	var asker approve.Asker // nil: nobody can answer
	switch {
	case inREPL:
		w.answers = &repl.Asker{Out: w.screen, Style: w.st}
		asker = w.answers
	case view.Interactive(std.in):
		asker = &repl.Asker{Out: w.screen, Style: w.st, Open: func() *repl.Input { return repl.PlainInput(std.in, std.err, false) }}
	}
	decisions := &chat.Approvals{Log: log} // its record is known once the record is open
	fb := &fallback{log: log}
	// A page of a file fits the window of the model in use: the chat's,
	// once it is made.
	pages := func() int {
		if w.chat == nil {
			return 0
		}
		return w.chat.PageBytes()
	}
	ch, err := c.chain(tb, outputsDir(dirs, c.NoSession), keep, asker, decisions, fb, pages)
	if err != nil {
		return nil, &exitCodeError{code: exitUsage, err: err}
	}
	if err := c.startSandbox(ctx, tb.box, fb); err != nil {
		return nil, err
	}
	// What needs no window is made while the server answers: the test
	// pattern, whose error is told after the window's, and the system
	// prompt, whose warnings come after the window's too.
	pattern := c.TestPattern
	if pattern == "" {
		pattern = testPattern
	}
	tests, errTests := regexp.Compile(pattern)
	specs := c.mainSpecs(ch.set.Specs())
	var warnings bytes.Buffer
	system, loaded := chat.SystemPrompt(tb.ws, specs, dirs, &warnings)
	size, err := window(std.err)
	stopAsking()
	if err != nil {
		return nil, &exitCodeError{code: exitUsage, err: err}
	}
	described := model.Describe()
	unused := ignored(described, given)
	for _, fs := range unused {
		if fs.still != "" {
			fmt.Fprintf(std.err, "harness: --%s is not sent to the %s backend: %s\n", fs.flag, described.Name, fs.still)
			continue
		}
		fmt.Fprintf(std.err, "harness: --%s is ignored by the %s backend\n", fs.flag, described.Name)
	}
	if errTests != nil {
		return nil, &exitCodeError{code: exitUsage, err: fmt.Errorf("--test-pattern: %w", errTests)}
	}
	// The files the run made go when it ends: the copies for /undo and
	// the long outputs; and the MCP servers stop.
	closeFiles := func() {
		if runCaches != "" {
			os.RemoveAll(runCaches)
		}
		servers.Close()
		ch.journal.Close()
		if ch.out != nil {
			ch.out.Close()
		}
	}
	log.Write(warnings.Bytes())
	notices, err := chat.Notices(tb.ws.Root(), loaded, dirs, !c.NoSession)
	for _, n := range notices {
		fmt.Fprintln(log, n)
	}
	if err != nil {
		fmt.Fprintf(log, "warning: %v\n", err)
	}
	r := &chat.Chat{
		Model:     model,
		Models:    provs.models(),
		Pinned:    slices.Contains(given, "model"),
		BareNames: bareType,
		Workspace: tb.ws,
		Dirs:      dirs,
		Config: loop.Config{
			System:          system,
			MaxSteps:        c.MaxSteps,
			MaxFormatErrors: c.MaxFormatErrors,
			IsTest:          tools.RunsTests(tests),
			Target:          target,
			Parse:           replyParser(c.Parser, specs),
		},
		Budget: &loop.Budget{
			ModelCalls:   c.MaxModelCalls,
			Time:         c.MaxTime,
			OutputTokens: c.MaxOutputTokens,
			Repeats:      c.MaxRepeats,
			Window:       8,
		},
		Instructions: loaded,
		Sandbox:      tb.box,
		Approvals:    decisions,
		Journal:      ch.journal,
		Attach:       &repl.Attacher{WS: tb.ws, Tools: ch.gate},
		MCP:          servers,
		Script:       &chat.Scripted{},
		ShowWire:     c.ShowWire,
		Release:      closeFiles,
		// The window is the model's: a resumed session may bring back
		// another model than the flags chose (one whose window the flags
		// leave no room in is not taken), as /model may switch to one.
		WindowFor: func(ctx context.Context, warn io.Writer, b chat.Backend) (int, error) {
			return windowSize(ctx, warn, b, &c.modelFlags)
		},
	}
	w.chat = r
	start := func() record.Start { return r.RecordStart(version(), specs, settingsOf(unused)) }
	res := chat.Resume{Latest: c.Continue, ID: c.Resume, NoSession: c.NoSession}
	if err := r.OpenSession(ctx, res, start); err != nil {
		var usage *chat.UsageError
		if errors.As(err, &usage) {
			err = &exitCodeError{code: exitUsage, err: err}
		}
		r.Close()
		return nil, err
	}
	if r.Model != model {
		if size, err = r.WindowFor(ctx, std.err, r.Model); err != nil {
			r.Close()
			return nil, &exitCodeError{code: exitUsage, err: err}
		}
	}
	if c.Record != "" {
		rec, closeRec, err := openRecord(c.Record, start())
		if err != nil {
			r.Close()
			return nil, err
		}
		r.Record, r.Release = rec, func() { closeRec(); closeFiles() }
	}
	if out != nil {
		s := start()
		s.Session = r.SessionID()
		if err := out.Start(s); err != nil {
			r.Close()
			return nil, fmt.Errorf("--output: %w", err)
		}
		r.Output = out
	}
	r.KeepInWindow(log, w.st, size, c.MaxTokens, c.Compact, inREPL, maskTarget)
	decisions.Records = r.Records()
	// Helpers run their calls through the gate, and their events reach
	// the hooks the main conversation has, the display indenting them.
	// They use the model the main conversation uses: /model builds them
	// again.
	nest := view.NewNest(log, w.st)
	nest.Wire = c.ShowWire
	r.ToolsFor = func(m loop.Model) (loop.Tools, error) {
		if !c.agentChosen() {
			return ch.gate, nil
		}
		return subagent.New(ch.gate, subagent.Config{
			Model:           m,
			Root:            tb.ws.Root(),
			MaxSteps:        c.AgentMaxSteps,
			MaxFormatErrors: c.MaxFormatErrors,
			IsTest:          r.Config.IsTest,
			Target:          target,
			Parse:           r.Config.Parse,
			Hooks:           r.Hooks(nest, view.NewWire(log, w.st, c.ShowWire)),
			Done:            r.SaveChild,
			Limited:         []subagent.Limited{readOnlyBash()},
		})
	}
	if err := r.BuildTools(); err != nil {
		r.Close()
		return nil, err
	}
	// Commands still running when the chat ends end with it: on macOS
	// nothing else would end them.
	release := r.Release
	r.Release = func() { tb.box.Close(); release() }
	done = true
	return w, nil
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

// askWindow starts windowSize for m in the background and returns what
// waits for its answer, writing then to warn what windowSize would have
// written: the question goes to the server at once, and what it makes the
// harness say comes where it always did.
func askWindow(ctx context.Context, m chat.Backend, flags *modelFlags) func(warn io.Writer) (int, error) {
	type answer struct {
		size    int
		err     error
		warning bytes.Buffer
	}
	done := make(chan *answer, 1) // never waited for when the set-up fails first
	go func() {
		a := &answer{}
		a.size, a.err = windowSize(ctx, &a.warning, m, flags)
		done <- a
	}()
	return func(warn io.Writer) (int, error) {
		a := <-done
		warn.Write(a.warning.Bytes())
		return a.size, a.err
	}
}
