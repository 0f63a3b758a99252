package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/alecthomas/kong"

	"harness/approve"
	"harness/chat"
	"harness/record"
	"harness/repl"
	"harness/view"
	"harness/xdg"
)

// The values of --output. stream-json is json by the name other agents'
// command lines give the same thing, so that scripts written for them
// need one change less.
const (
	outputText       = "text"
	outputJSON       = "json"
	outputStreamJSON = "stream-json"
)

// errOutputNeedsPrompt is the error of --output json without -p.
var errOutputNeedsPrompt = errors.New(`--output json is for a run of one turn: use it with -p, as in: harness -p "what does this project do?" --output json`)

func (c *chatCmd) Run(ctx context.Context, std stdio, k *kong.Context, dirs xdg.Dirs) error {
	if c.Prompt == "" {
		if c.Output != outputText {
			return &exitCodeError{code: exitUsage, err: errOutputNeedsPrompt}
		}
		return c.repl(ctx, std, flagsGiven(k), dirs)
	}
	if c.Output != outputJSON && c.Output != outputStreamJSON {
		answer, err := c.oneTurn(ctx, std, flagsGiven(k), dirs, nil)
		if err != nil {
			return err
		}
		if view.Interactive(std.out) { // a pipe or a file gets the answer exactly
			answer = approve.Visible(answer)
		}
		_, err = fmt.Fprintln(std.out, answer)
		return err
	}
	// Whatever ends the run, the output's last line says how.
	out := record.NewOutput(std.out)
	answer, err := c.oneTurn(ctx, std, flagsGiven(k), dirs, out)
	if end := out.End(answer, exitCodeOf(err), err); end != nil && err == nil {
		return fmt.Errorf("--output: %w", end)
	}
	return err
}

// repl runs the REPL.
func (c *chatCmd) repl(ctx context.Context, std stdio, given []string, dirs xdg.Dirs) error {
	w, err := c.wire(ctx, std, given, dirs, nil)
	if err != nil {
		return err
	}
	defer w.chat.Close()
	err = repl.Run(ctx, repl.Config{Chat: w.chat, Asker: w.answers, In: std.in, Out: std.out, Screen: w.screen, Err: std.err, Banner: "harness " + version()})
	switch {
	case errors.Is(err, repl.ErrQuitNow):
		return &exitCodeError{code: exitInterrupt, err: err}
	case err != nil:
		return err
	}
	return w.chat.Script.Failure()
}

// oneTurn runs -p: one turn, whose answer it returns; the rest goes to
// stderr, and to out when there is one.
func (c *chatCmd) oneTurn(ctx context.Context, std stdio, given []string, dirs xdg.Dirs, out *record.Recorder) (string, error) {
	w, err := c.wire(ctx, std, given, dirs, out)
	if err != nil {
		return "", err
	}
	defer w.chat.Close()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	context.AfterFunc(ctx, stop) // after the first Ctrl-C, a second one quits at once
	if w.chat.ShowWire {         // where the wire goes; otherwise -p's stderr holds the turn alone
		w.chat.About(ctx, w.screen)
	}
	w.chat.Start(&view.Turn{Out: w.screen, Log: w.screen, Style: w.st, Final: true, Wire: w.chat.ShowWire})
	answer, err := w.chat.Turn(ctx, string(c.Prompt), w.screen, w.st)
	return answer, chat.Advised(err)
}
