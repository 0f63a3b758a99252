package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"harness/loop"
	"harness/record"
)

// runner holds the parts of a run; the UI joins its hooks last, so that
// what it shows has already passed the budget and reached the record.
type runner struct {
	model  loop.Model
	tools  loop.Tools
	cfg    loop.Config
	budget *loop.Budget
	hooks  []loop.Hook // after the budget, before the UI
}

func (r *runner) agent(v *view) *loop.Agent {
	hooks := append([]loop.Hook{r.budget}, r.hooks...)
	return loop.New(r.model, r.tools, r.cfg, append(hooks, loop.Observe(v.event))...)
}

// record appends the run's record to path and returns what closes it.
func (r *runner) record(path string, start record.Start) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	rec := record.New(f)
	if err := rec.Start(start); err != nil {
		f.Close()
		return nil, fmt.Errorf("--record: %w", err)
	}
	r.hooks = append(r.hooks, rec)
	return func() { f.Close() }, nil
}

// oneTurn runs -p: one turn, the answer on stdout, the rest on stderr.
func (r *runner) oneTurn(e *env, prompt string) error {
	ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt)
	defer stop()
	context.AfterFunc(ctx, stop) // after the first Ctrl-C, a second one quits at once
	ctx, cancel := r.budget.Start(ctx)
	defer cancel()
	agent := r.agent(&view{out: e.stderr, log: e.stderr, st: style(colours(e.stderr)), final: true})
	answer, err := agent.Turn(ctx, prompt)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, answer)
	return err
}

// repl reads one input a line and runs a turn for each. Ctrl-C stops the
// running turn (a second one quits); at the prompt Ctrl-C or end of input
// quits. An error ends the turn, not the conversation.
func (r *runner) repl(e *env, modelName, root string) error {
	st := style(colours(e.stdout))
	echo := !interactive(e.stdin) // typed input is already on the screen
	fmt.Fprintf(e.stdout, "harness %s: model %s, workspace %s\n", version(), modelName, root)
	fmt.Fprintln(e.stdout, st.dim("Ctrl-C stops a turn; Ctrl-D, or Ctrl-C at the prompt, quits."))
	agent := r.agent(&view{out: e.stdout, log: e.stdout, st: st, stream: true})

	lines := make(chan string)
	listen(r.tools, lines) // approval questions read their answers from the same input
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(e.stdin)
		sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)

	for turn := 1; ; {
		fmt.Fprintln(e.stdout, st.dim(fmt.Sprintf("<Turn %d>", turn)))
		fmt.Fprint(e.stdout, st.you("You")+": ")
		var input string
		select {
		case line, ok := <-lines:
			if !ok {
				fmt.Fprintln(e.stdout)
				return nil
			}
			input = line
		case <-sigs:
			fmt.Fprintln(e.stdout)
			return nil
		case <-e.ctx.Done():
			return e.ctx.Err()
		}
		if echo {
			fmt.Fprintln(e.stdout, input)
		}
		if strings.TrimSpace(input) == "" {
			continue
		}
		turn++
		if err := r.runTurn(e.ctx, agent, input, sigs); err != nil {
			fmt.Fprintf(e.stderr, "%s %v\n", st.bad("error:"), err)
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
