package main

import (
	"fmt"
	"os"

	"harness/fakemodel"
	"harness/loop"
	"harness/ollama"
	"harness/protocol"
	"harness/tools"
)

// workspaceFlags choose the folder the tools work in and what they say.
type workspaceFlags struct {
	Workspace string   `short:"w" default:"." placeholder:"DIR" help:"Folder the tools may read and change; nothing outside it is reachable."`
	Lie       []string `placeholder:"MODE" help:"Make the tools lie, to see that the model believes them: joke (read_file returns a joke), invent (list_files adds files that do not exist), ext:FROM=TO (e.g. ext:.go=.js renames extensions). Repeatable; files are never changed."`
}

// modelFlags choose the model and how it is asked.
type modelFlags struct {
	Model       string   `short:"m" env:"HARNESS_MODEL" default:"${default_model}" help:"Ollama model to use."`
	Host        string   `env:"OLLAMA_HOST" placeholder:"ADDR" help:"Ollama server address (default 127.0.0.1:11434)."`
	NumCtx      int      `default:"16384" help:"Context window in tokens, fixed for the run (Ollama's small default silently drops old messages)."`
	MaxTokens   int      `placeholder:"N" help:"Most tokens one reply may have (Ollama's num_predict); a reply cut there has its calls refused, not run."`
	Temperature *float64 `placeholder:"T" help:"Sampling temperature (default: the model's own)."`
	Seed        *int     `placeholder:"N" help:"Sampling seed, for repeatable replies."`
	Fake        string   `placeholder:"FILE" help:"Use the scripted fake model in FILE instead of Ollama (see the fakemodel package for the format)."`
}

type chatCmd struct {
	Prompt          string `short:"p" placeholder:"PROMPT" help:"Run one turn and exit: the answer goes to stdout, everything else to stderr. Exit codes: 0 answer, 1 error, 2 bad usage, 3 a limit ended the turn, 130 interrupted."`
	MaxSteps        int    `default:"25" help:"Most model calls in one turn."`
	MaxFormatErrors int    `default:"3" help:"Most replies in a row with a malformed tool call."`
	workspaceFlags  `embed:""`
	modelFlags      `embed:""`
}

func (c *chatCmd) Run(e *env) error {
	set, ws, err := c.tools()
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	model, err := c.model()
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	cfg := loop.Config{
		System:          protocol.SystemPrompt(ws.Root(), set.Specs()),
		MaxSteps:        c.MaxSteps,
		MaxFormatErrors: c.MaxFormatErrors,
	}
	if c.Prompt != "" {
		return oneTurn(e, model, set, cfg, c.Prompt)
	}
	return repl(e, model, set, cfg, c.Model, ws.Root())
}

// tools builds the tool set explicitly: nothing registers itself.
func (w *workspaceFlags) tools() (*tools.Set, *tools.Workspace, error) {
	ws, err := tools.NewWorkspace(w.Workspace)
	if err != nil {
		return nil, nil, err
	}
	ts := []tools.Tool{
		tools.ReadFile(ws),
		tools.ListFiles(ws),
		tools.EditFile(ws),
		tools.WriteFile(ws),
	}
	for _, mode := range w.Lie {
		lie, err := tools.ParseLie(mode)
		if err != nil {
			return nil, nil, err
		}
		for i := range ts {
			ts[i] = lie.Apply(ts[i])
		}
	}
	set, err := tools.NewSet(ts...)
	return set, ws, err
}

func (m *modelFlags) model() (loop.Model, error) {
	if m.Fake != "" {
		s, err := fakemodel.Load(m.Fake)
		if err != nil {
			return nil, err
		}
		return fakemodel.New(s), nil
	}
	if m.NumCtx <= 0 {
		return nil, fmt.Errorf("--num-ctx must be positive, not %d", m.NumCtx)
	}
	host, err := ollama.ParseHost(m.Host)
	if err != nil {
		return nil, err
	}
	return ollama.New(host, m.Model, ollama.Options{
		NumCtx:      m.NumCtx,
		NumPredict:  m.MaxTokens,
		Temperature: m.Temperature,
		Seed:        m.Seed,
	}), nil
}

type promptCmd struct {
	workspaceFlags `embed:""`
}

func (c *promptCmd) Run(e *env) error {
	set, ws, err := c.tools()
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	_, err = fmt.Fprint(e.stdout, protocol.SystemPrompt(ws.Root(), set.Specs()))
	return err
}

// isTerminal reports whether f is a terminal that may get colours.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
