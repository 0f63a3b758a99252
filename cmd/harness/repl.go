package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"harness/loop"
	"harness/protocol"
	"harness/record"
)

// runner is a chat's parts, built once from the flags by (*chatCmd).wire
// and held here by name: nothing is found later by its type.
type runner struct {
	backend   protocol.Backend // what the model says it is
	model     loop.Model
	tools     loop.Tools // behind the approval gate
	root      string     // the workspace's
	cfg       loop.Config
	budget    *loop.Budget
	rec       *record.Recorder // nil without --record
	approvals *approvals
	// answers is the asker of the gate's questions that the REPL's input
	// lines answer; nil with -p.
	answers *lineAsker
	close   func() // closes what the run opened
	wire    bool   // --show-wire
}

// agent returns the agent of the run, rendering its events with v. The
// UI's hook comes last, so that what it shows has already passed the
// budget and reached the record.
func (r *runner) agent(v *view) *loop.Agent {
	hooks := []loop.Hook{r.budget}
	if r.rec != nil {
		hooks = append(hooks, r.rec)
	}
	hooks = append(hooks, r.approvals, loop.Observe(v.event))
	hooks = append(hooks, newWireView(v.log, v.st, r.wire)) // notes of lies, and --show-wire
	return loop.New(r.model, r.tools, r.cfg, hooks...)
}

// openRecord appends a run's record to path, starting it with start, and
// returns it with what closes it.
func openRecord(path string, start record.Start) (*record.Recorder, func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
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

// oneTurn runs -p: one turn, the answer on stdout, the rest on stderr.
func (r *runner) oneTurn(ctx context.Context, std stdio, prompt string) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	context.AfterFunc(ctx, stop) // after the first Ctrl-C, a second one quits at once
	ctx, cancel := r.budget.Start(ctx)
	defer cancel()
	agent := r.agent(&view{out: std.err, log: std.err, st: style(colours(std.err)), final: true})
	answer, err := agent.Turn(ctx, prompt)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(std.out, answer)
	return err
}

// repl reads one input a line and runs a turn for each. Ctrl-C stops the
// running turn (a second one quits); at the prompt Ctrl-C or end of input
// quits. An error ends the turn, not the conversation.
func (r *runner) repl(ctx context.Context, std stdio) error {
	st := style(colours(std.out))
	echo := !interactive(std.in) // typed input is already on the screen
	fmt.Fprintf(std.out, "harness %s: %s model %s, workspace %s\n", version(), r.backend.Name, r.backend.Model, r.root)
	fmt.Fprintln(std.out, st.dim("Ctrl-C stops a turn; Ctrl-D, or Ctrl-C at the prompt, quits."))
	agent := r.agent(&view{out: std.out, log: std.out, st: st, stream: true})

	lines := make(chan string)
	r.answers.listen(lines) // approval questions read their answers from the same input
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(std.in)
		sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)

	for turn := 1; ; {
		fmt.Fprintln(std.out, st.dim(fmt.Sprintf("<Turn %d>", turn)))
		fmt.Fprint(std.out, st.you("You")+": ")
		var input string
		select {
		case line, ok := <-lines:
			if !ok {
				fmt.Fprintln(std.out)
				return nil
			}
			input = line
		case <-sigs:
			fmt.Fprintln(std.out)
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
		if echo {
			fmt.Fprintln(std.out, input)
		}
		if strings.TrimSpace(input) == "" {
			continue
		}
		turn++
		if err := r.runTurn(ctx, agent, input, sigs); err != nil {
			fmt.Fprintf(std.err, "%s %v\n", st.bad("error:"), err)
		}
	}
}

// runTurn runs one turn that the first Ctrl-C cancels and a second quits.
func (r *runner) runTurn(parent context.Context, agent *loop.Agent, input string, sigs <-chan os.Signal) error {
	ctx, cancel := r.budget.Start(parent)
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
			return
		}
		select {
		case <-sigs:
			os.Exit(exitInterrupt)
		case <-done:
		}
	}()
	_, err := agent.Turn(ctx, input)
	return err
}
