package main

import (
	"fmt"
	"os"
	"regexp"
	"time"

	"harness/fakemodel"
	"harness/loop"
	"harness/ollama"
	"harness/protocol"
	"harness/record"
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
	Prompt         string `short:"p" placeholder:"PROMPT" help:"Run one turn and exit: the answer goes to stdout, everything else to stderr. Exit codes: 0 answer, 1 error, 2 bad usage, 3 a limit ended the turn, 130 interrupted."`
	Record         string `placeholder:"FILE" help:"Append a record of the run to FILE, one JSON object a line, written as it happens (read it with: harness replay FILE)."`
	TestPattern    string `default:"${test_pattern}" placeholder:"REGEXP" help:"Command lines matching this count as test runs in the turn report (by default, a test command at the start of the line or after && or ;)."`
	workspaceFlags `embed:""`
	modelFlags     `embed:""`
	budgetFlags    `embed:"" group:"Limits"`
	safetyFlags    `embed:""`
}

// budgetFlags are the limits that stop a run the model would not stop, each
// in its own unit. For the run budgets, 0 turns one off; the per-turn
// limits fall back to their defaults.
type budgetFlags struct {
	MaxSteps        int           `default:"25" help:"Most model calls in one turn."`
	MaxFormatErrors int           `default:"3" help:"Most replies in a row with a malformed tool call."`
	MaxModelCalls   int           `default:"200" help:"Most model calls in the run (all turns)."`
	MaxTime         time.Duration `default:"30m" help:"Most wall-clock time the run may spend in turns (waiting at the prompt does not count); a model call or tool still running then is interrupted."`
	MaxOutputTokens int           `default:"200000" help:"Most output tokens the backend may report for the run."`
	MaxRepeats      int           `default:"3" help:"Stop when the same call with the same arguments gets the same result this many times within the last 8 calls (or the last N, when N is over 8)."`
}

func (c *chatCmd) Run(e *env) error {
	ts, ws, err := c.tools(&c.safetyFlags)
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	if ts, err = c.gate(e, ts, c.Prompt == ""); err != nil {
		return err
	}
	model, err := c.model()
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	tests, err := regexp.Compile(c.TestPattern)
	if err != nil {
		return &exitCodeError{code: exitUsage, err: fmt.Errorf("--test-pattern: %w", err)}
	}
	r := &runner{
		model: model,
		tools: ts,
		cfg: loop.Config{
			System:          protocol.SystemPrompt(ws.Root(), ts.Specs()),
			MaxSteps:        c.MaxSteps,
			MaxFormatErrors: c.MaxFormatErrors,
			IsTest:          isTest(tests),
			Target:          target,
		},
		budget: &loop.Budget{
			ModelCalls:   c.MaxModelCalls,
			Time:         c.MaxTime,
			OutputTokens: c.MaxOutputTokens,
			Repeats:      c.MaxRepeats,
			Window:       8,
		},
	}
	if c.Record != "" {
		closeRecord, err := r.record(c.Record, c.start(ws.Root(), ts, r.cfg.System))
		if err != nil {
			return err
		}
		defer closeRecord()
	}
	c.attach(r)
	if c.Prompt != "" {
		return r.oneTurn(e, c.Prompt)
	}
	return r.repl(e, c.Model, ws.Root())
}

// start is what the record says about the run before it begins.
func (c *chatCmd) start(root string, ts loop.Tools, system string) record.Start {
	s := record.Start{Version: version(), Model: c.Model, Backend: "ollama", Workspace: root, SystemPromptBytes: len(system)}
	if c.Fake != "" {
		s.Backend, s.Model = "fake", c.Fake
	} else {
		s.Options = map[string]any{"num_ctx": c.NumCtx, "stop": protocol.StopSequences()}
		if c.MaxTokens > 0 {
			s.Options["num_predict"] = c.MaxTokens
		}
		if c.Temperature != nil {
			s.Options["temperature"] = *c.Temperature
		}
		if c.Seed != nil {
			s.Options["seed"] = *c.Seed
		}
	}
	for _, spec := range ts.Specs() {
		s.Tools = append(s.Tools, spec.Name)
	}
	return s
}

// testPattern is the default --test-pattern: a test command at the start of
// the line or after && or ;, so that "echo go test" is no test run.
const testPattern = `(^|&&|;)\s*(go test|cargo test|pytest|python3? -m (pytest|unittest))\b`

// isTest reports calls of the command tool whose command matches re.
func isTest(re *regexp.Regexp) func(protocol.Call) bool {
	return func(c protocol.Call) bool {
		cmd, ok := c.Args["command"].(string)
		return ok && re.MatchString(cmd)
	}
}

// target names what a call that wrote acted on, for the turn report: the
// path of a file tool, or the command line, since a command may have
// changed anything in the workspace.
func target(c protocol.Call) string {
	if cmd, ok := c.Args["command"].(string); ok {
		return "$ " + cmd
	}
	if p, ok := c.Args["path"].(string); ok {
		return p
	}
	return c.Name
}

// tools builds the tool set explicitly: nothing registers itself. Long
// results are cut, and kept for read_output.
func (w *workspaceFlags) tools(safety ...*safetyFlags) (loop.Tools, *tools.Workspace, error) {
	ws, err := tools.NewWorkspace(w.Workspace)
	if err != nil {
		return nil, nil, err
	}
	bash, err := bashTool(ws, safety...)
	if err != nil {
		return nil, nil, err
	}
	ts := []tools.Tool{
		tools.ReadFile(ws),
		tools.ListFiles(ws),
		tools.EditFile(ws),
		tools.WriteFile(ws),
		bash,
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
	if err != nil {
		return nil, nil, err
	}
	return tools.WithOutputs(set), ws, nil
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
	ts, ws, err := c.tools()
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	_, err = fmt.Fprint(e.stdout, protocol.SystemPrompt(ws.Root(), ts.Specs()))
	return err
}

// colours reports whether output to w may be coloured: w is a terminal and
// NO_COLOR is not set.
func colours(w any) bool {
	return os.Getenv("NO_COLOR") == "" && interactive(w)
}
