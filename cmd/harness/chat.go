package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"harness/approve"
	"harness/chat"
	"harness/config"
	"harness/fakemodel"
	"harness/guard"
	"harness/loop"
	"harness/mcp"
	"harness/protocol"
	"harness/record"
	"harness/repl"
	"harness/sandbox"
	"harness/subagent"
	"harness/tools"
	"harness/view"
	"harness/xdg"
)

// workspaceFlags choose the folder the tools work in and what they say.
type workspaceFlags struct {
	Workspace string   `short:"w" default:"." placeholder:"DIR" help:"Folder the tools may read and change; nothing outside it is reachable."`
	Lie       []string `placeholder:"MODE" help:"Make the tools lie, to see that the model believes them: joke (read_file returns a joke), invent (list_files adds files that do not exist), ext:FROM=TO (e.g. ext:.go=.js renames extensions). Repeatable; files are never renamed, and the terminal says what each lie changed."`
	Tools     *string  `placeholder:"LIST" help:"Give the model only these tools, comma-separated (read_file, list_files, edit_file, write_file, bash, read_output, agent, and those of MCP servers as SERVER.TOOL); none, or \"\", for a plain chat. Default: all."`
}

// modelFlags choose the model and how it is asked.
type modelFlags struct {
	providerFlags `embed:""`
	MaxTokens     int      `placeholder:"N" help:"Most tokens one reply may have (Ollama's num_predict, OpenAI's max_tokens); a reply cut there has its calls refused, not run."`
	Temperature   *float64 `placeholder:"T" help:"Sampling temperature (default: the model's own)."`
	Seed          *int     `placeholder:"N" help:"Sampling seed, for repeatable replies."`
	Fake          string   `placeholder:"FILE" help:"Use the scripted fake model in FILE instead of a server (see the fakemodel package for the format)."`
}

type chatCmd struct {
	Prompt         promptText `short:"p" placeholder:"PROMPT" help:"Run one turn and exit: the answer goes to stdout, everything else to stderr. Exit codes: 0 answer, 1 error, 2 bad usage, 3 a limit ended the turn, 130 interrupted."`
	Record         string     `placeholder:"FILE" help:"Append a record of the run to FILE, one JSON object a line, written as it happens (read it with: harness replay FILE). A new FILE is made readable by you alone (0600), as it holds everything the model read; an existing one keeps its mode."`
	TestPattern    string     `placeholder:"REGEXP" help:"Command lines matching this count as test runs in the turn report (by default, or when empty, a test command at the start of the line or after && or ;)."`
	Compact        bool       `default:"true" negatable:"" help:"Keep the conversation inside --num-ctx: mask old tool results, then have the model summarize older turns (--no-compact: the server refuses a request that does not fit, and the turn ends)."`
	ShowWire       bool       `help:"Show every message exactly as sent to and received from the model, with its direction, role and size (stderr with -p)."`
	Parser         string     `default:"tolerant" enum:"tolerant,strict" help:"How replies are read: tolerant forgives prose around calls, fences and the like; strict runs a call only when it is the whole reply, as the simplest harness does."`
	sessionFlags   `embed:""`
	workspaceFlags `embed:""`
	modelFlags     `embed:""`
	budgetFlags    `embed:"" group:"Limits"`
	safetyFlags    `embed:""`
	mcpFlags       `embed:""`
}

// budgetFlags are the limits that stop a run the model would not stop, each
// in its own unit. For the run budgets, 0 turns one off; the per-turn
// limits fall back to their defaults.
type budgetFlags struct {
	MaxSteps        int           `default:"25" help:"Most model calls in one turn (0 means the default, 25: a turn always has a limit)."`
	MaxFormatErrors int           `default:"3" help:"Most replies in a row with a malformed tool call (0 means the default, 3)."`
	MaxModelCalls   int           `default:"200" help:"Most model calls in the run (all turns; 0: no limit)."`
	MaxTime         time.Duration `default:"30m" help:"Most wall-clock time the run may spend in turns (waiting at the prompt does not count); a model call or tool still running then is interrupted (0: no limit)."`
	MaxOutputTokens int           `default:"200000" help:"Most output tokens the backend may report for the run (0: no limit)."`
	MaxRepeats      int           `default:"3" help:"Stop when the same call with the same arguments gets the same result this many times within the last 8 calls (or the last N, when N is over 8; 0: no limit)."`
	AgentMaxSteps   int           `default:"15" help:"Most model calls in the turn of a helper that the agent tool starts; its calls, time and tokens count in the run's limits too."`
}

func (c *chatCmd) Run(ctx context.Context, std stdio, k *kong.Context, dirs xdg.Dirs) error {
	r, err := c.wire(ctx, std, flagsGiven(k), dirs)
	if err != nil {
		return err
	}
	defer r.close()
	if c.Prompt != "" {
		return advised(r.oneTurn(ctx, std, string(c.Prompt)))
	}
	if err := r.repl(ctx, std); err != nil {
		return err
	}
	return r.script.Failure()
}

// wire builds the parts of a chat from the flags, once; they are passed
// down from here and never looked for again. given names the flags given
// on the command line; dirs finds the settings and state folders.
func (c *chatCmd) wire(ctx context.Context, std stdio, given []string, dirs xdg.Dirs) (*runner, error) {
	inREPL := c.Prompt == ""
	log := std.err // where notes go: the REPL's output, or stderr with -p
	if inREPL {
		log = std.out
	}
	// The model's flags first: a wrong one must not start the MCP
	// servers, and the settings file is read once.
	model, provs, err := c.model(given, dirs)
	if err != nil {
		return nil, &exitCodeError{code: exitUsage, err: err}
	}
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
	wired := false
	defer func() {
		if !wired {
			servers.Close()
		}
	}()
	tb, err := c.tools(&c.safetyFlags, servers)
	if err != nil {
		return nil, &exitCodeError{code: exitUsage, err: err}
	}
	var keep string // where /undo's copies go: only the REPL has /undo
	if inREPL {
		keep, _ = dirs.State()
	}
	// Questions go to the REPL's output in the REPL, answered by its input
	// lines; with -p, to stderr, answered only when stdin is a terminal.
	var answers *repl.Asker
	var asker approve.Asker // nil: nobody can answer
	switch {
	case inREPL:
		answers = &repl.Asker{Out: std.out, Style: view.StyleFor(std.out)}
		asker = answers
	case view.Interactive(std.in):
		asker = &repl.Asker{Out: std.err, Style: view.StyleFor(std.err), Open: func() *repl.Input { return repl.PlainInput(std.in, std.err, false) }}
	}
	decisions := &approvals{log: log} // its record is known once the record is open
	fb := &fallback{log: log}
	ch, err := c.chain(tb, outputsDir(dirs, c.NoSession), keep, asker, decisions, fb)
	if err != nil {
		return nil, &exitCodeError{code: exitUsage, err: err}
	}
	if err := c.startSandbox(ctx, tb.box, fb); err != nil {
		return nil, err
	}
	described := model.Describe()
	size, err := windowSize(ctx, std.err, model, &c.modelFlags)
	if err != nil {
		return nil, &exitCodeError{code: exitUsage, err: err}
	}
	unused := ignored(described, given)
	for _, fs := range unused {
		if fs.still != "" {
			fmt.Fprintf(std.err, "harness: --%s is not sent to the %s backend: %s\n", fs.flag, described.Name, fs.still)
			continue
		}
		fmt.Fprintf(std.err, "harness: --%s is ignored by the %s backend\n", fs.flag, described.Name)
	}
	pattern := c.TestPattern
	if pattern == "" {
		pattern = testPattern
	}
	tests, err := regexp.Compile(pattern)
	if err != nil {
		return nil, &exitCodeError{code: exitUsage, err: fmt.Errorf("--test-pattern: %w", err)}
	}
	specs := c.mainSpecs(ch.set.Specs())
	// The files the run made go when it ends: the copies for /undo and
	// the long outputs; and the MCP servers stop.
	closeFiles := func() {
		servers.Close()
		ch.journal.Close()
		if ch.out != nil {
			ch.out.Close()
		}
	}
	r := &runner{
		backend:   described,
		model:     model,
		root:      tb.ws.Root(),
		ws:        tb.ws,
		dirs:      dirs,
		journal:   ch.journal,
		approvals: decisions,
		answers:   answers,
		cfg: loop.Config{
			System:          chat.SystemPrompt(tb.ws, specs, dirs, log),
			MaxSteps:        c.MaxSteps,
			MaxFormatErrors: c.MaxFormatErrors,
			IsTest:          tools.RunsTests(tests),
			Target:          target,
			Parse:           replyParser(c.Parser, specs),
		},
		wire: c.ShowWire,
		budget: &loop.Budget{
			ModelCalls:   c.MaxModelCalls,
			Time:         c.MaxTime,
			OutputTokens: c.MaxOutputTokens,
			Repeats:      c.MaxRepeats,
			Window:       8,
		},
		close:     closeFiles,
		script:    &chat.Scripted{},
		pinned:    slices.Contains(given, "model"),
		providers: provs,
	}
	start := func() record.Start { return r.start(specs, unused) }
	// The window is the model's: a resumed session may bring back another
	// model than the flags chose (one whose window the flags leave no room
	// in is not taken), as /model may switch to one.
	r.windowFor = func(ctx context.Context, warn io.Writer, b backend) (int, error) {
		return windowSize(ctx, warn, b, &c.modelFlags)
	}
	if err := c.openSession(ctx, r, start); err != nil {
		closeFiles()
		return nil, err
	}
	r.close = func() { r.conv.close(); closeFiles() }
	if r.model != model {
		if size, err = r.windowFor(ctx, std.err, r.model); err != nil {
			r.close()
			return nil, &exitCodeError{code: exitUsage, err: err}
		}
	}
	if c.Record != "" {
		rec, closeRec, err := openRecord(c.Record, start())
		if err != nil {
			r.close()
			return nil, err
		}
		r.rec, r.close = rec, func() { closeRec(); r.conv.close(); closeFiles() }
	}
	r.keepInWindow(log, size, c.MaxTokens, c.Compact, inREPL)
	decisions.rec = r.rec
	gated := ch.gate
	// Helpers run their calls through the gate, and their events reach
	// the hooks the main conversation has, the display indenting them.
	// They use the model the main conversation uses: /model builds them
	// again.
	r.toolsFor = func(m loop.Model) (loop.Tools, error) {
		if !c.agentChosen() {
			return gated, nil
		}
		return subagent.New(gated, subagent.Config{
			Model:           m,
			Root:            tb.ws.Root(),
			MaxSteps:        c.AgentMaxSteps,
			MaxFormatErrors: c.MaxFormatErrors,
			IsTest:          r.cfg.IsTest,
			Target:          target,
			Parse:           r.cfg.Parse,
			Hooks:           r.hooks(view.NewNest(log, view.StyleFor(log)), view.NewWire(log, view.StyleFor(log), c.ShowWire)),
			Done:            r.saveChild,
			Limited:         []subagent.Limited{readOnlyBash()},
		})
	}
	if r.tools, err = r.toolsFor(r.model); err != nil {
		r.close()
		return nil, err
	}
	r.attach = &repl.Attacher{WS: tb.ws, Tools: gated}
	r.mcp = servers
	// Commands still running when the chat ends end with it: on macOS
	// nothing else would end them.
	closeRest := r.close
	r.close = func() { tb.box.Close(); closeRest() }
	wired = true
	return r, nil
}

// withAgent returns specs with the agent tool's, sorted by name: what the
// main conversation's model is told, as subagent.New's tools say.
func withAgent(specs []protocol.ToolSpec) []protocol.ToolSpec {
	specs = append(specs, subagent.Spec())
	slices.SortFunc(specs, func(a, b protocol.ToolSpec) int { return strings.Compare(a.Name, b.Name) })
	return specs
}

// hooks returns the hooks of a conversation of the run, ui last: the
// budget, the record when there is one, the session (which keeps only the
// main conversation), the approvals, the journal of file changes, what
// keeps a scripted model's failure.
func (r *runner) hooks(ui ...loop.Hook) []loop.Hook {
	hooks := []loop.Hook{r.budget}
	if r.rec != nil {
		hooks = append(hooks, r.rec)
	}
	if r.conv.writer != nil {
		hooks = append(hooks, r.conv.writer) // it saves the main conversation only
	}
	hooks = append(hooks, r.approvals, r.journal, r.script)
	return append(hooks, ui...)
}

// start is what the record says about the run before it begins.
func (r *runner) start(specs []protocol.ToolSpec, unused []flagSetting) record.Start {
	s := record.Start{
		Version:           version(),
		Model:             r.backend.Model,
		Backend:           r.backend.Name,
		Workspace:         r.root,
		Options:           r.backend.Options,
		SystemPromptBytes: len(r.cfg.System),
	}
	for _, fs := range unused {
		s.Ignored = append(s.Ignored, string(fs.setting))
	}
	for _, spec := range specs {
		s.Tools = append(s.Tools, spec.Name)
	}
	return s
}

// flagsGiven names the flags given on the command line, as they were
// given; flags set by their environment variable or default are not.
func flagsGiven(k *kong.Context) []string {
	var names []string
	for _, p := range k.Path {
		if p.Flag != nil && !p.Resolved {
			names = append(names, p.Flag.Name)
		}
	}
	return names
}

// flagSetting pairs a model flag with the backend setting it sets.
type flagSetting struct {
	flag    string
	setting protocol.Setting
	// still says what the flag does when the backend ignores the
	// setting, or "" when it then does nothing.
	still string
}

// modelSettings lists the model flags that set a backend setting.
func modelSettings() []flagSetting {
	return []flagSetting{
		{"num-ctx", protocol.NumCtx, "the harness still keeps the conversation inside that many tokens; set the server's own context size to match"},
		{"max-tokens", protocol.NumPredict, ""},
		{"temperature", protocol.Temperature, ""},
		{"seed", protocol.Seed, ""},
	}
}

// ignored returns the model flags among given whose setting b ignores.
func ignored(b protocol.Backend, given []string) []flagSetting {
	var out []flagSetting
	for _, fs := range modelSettings() {
		if slices.Contains(given, fs.flag) && !b.Honours(fs.setting) {
			out = append(out, fs)
		}
	}
	return out
}

// testPattern is the default --test-pattern: a test command at the start of
// the line or after && or ;, so that "echo go test" is no test run. It is
// not given to the parser as a variable for the flag's tag: the parser
// expands every variable once for every flag, at every start.
const testPattern = `(^|&&|;)\s*(go test|cargo test|pytest|python3? -m (pytest|unittest))\b`

// target names what a call that wrote acted on, for the turn report: the
// helper, whose own report says what it changed, or what the tools say
// (tools.Target), else the tool.
func target(c protocol.Call) string {
	return cmp.Or(subagent.Target(c), tools.Target(c), c.Name)
}

// toolbox is the tools of a workspace, the lies they are to tell, and the
// parts of them that the approval gate and the sandbox's start need.
type toolbox struct {
	ws     *tools.Workspace
	policy *guard.Policy
	box    *sandbox.Sandbox
	tools  []tools.Tool
	lies   []tools.Lie
	mcp    *mcp.Servers // whose tools are among them; nil when there are none
}

// lie returns the tools of tb changed to tell its lies.
func (tb *toolbox) lie() []tools.Tool {
	ts := slices.Clone(tb.tools)
	for _, lie := range tb.lies {
		for i := range ts {
			ts[i] = lie.Apply(ts[i])
		}
	}
	return ts
}

// tools builds the tools explicitly, its bash tool as safety says:
// nothing registers itself. The tools of servers (nil: none) come after
// the built-in ones; an unknown --tools or --lie is an error.
func (w *workspaceFlags) tools(safety *safetyFlags, servers *mcp.Servers) (*toolbox, error) {
	ws, err := tools.NewWorkspace(w.Workspace)
	if err != nil {
		return nil, err
	}
	policy, box, err := w.commands(safety, ws)
	if err != nil {
		return nil, err
	}
	ts := []tools.Tool{
		tools.ReadFile(ws),
		tools.ListFiles(ws),
		tools.EditFile(ws),
		tools.WriteFile(ws),
		tools.Bash(ws, policy, box),
	}
	tb := &toolbox{ws: ws, policy: policy, box: box, tools: append(ts, servers.Tools()...), mcp: servers}
	for _, mode := range w.Lie {
		lie, err := tools.ParseLie(mode)
		if err != nil {
			return nil, err
		}
		tb.lies = append(tb.lies, lie)
	}
	if _, err := w.specs(tb); err != nil {
		return nil, err
	}
	// Without a sandbox, commands see the protected files a folder holds.
	// Its tier is known once it has started, which the first command does
	// in any case (and Start does once).
	ws.CommandsSeeHidden(func() bool {
		box.Start(context.Background())
		return box.Tier() == sandbox.None
	})
	return tb, nil
}

// backend is a model that says what it is and which settings it honours.
// What else a backend can do is in capabilities.go; which backends there
// are, in backends.go.
type backend interface {
	loop.Model
	Describe() protocol.Backend
}

// model returns the model of the run, and, unless it is the fake, the
// providers it was chosen from. given names the flags given on the
// command line; dirs finds the settings file, and reads the environment.
func (m *modelFlags) model(given []string, dirs xdg.Dirs) (backend, *providers, error) {
	if m.Fake != "" {
		s, err := fakemodel.Load(m.Fake)
		if err != nil {
			return nil, nil, err
		}
		fake := fakemodel.New(s)
		fake.SetWindow(m.numCtx())
		return fake, nil, nil
	}
	p, err := m.choose(given, dirs, sampling{maxTokens: m.MaxTokens, temperature: m.Temperature, seed: m.Seed})
	if err != nil {
		return nil, nil, err
	}
	b, err := p.backend(p.cur)
	if err != nil {
		return nil, nil, err
	}
	return b, p, nil
}

type promptCmd struct {
	workspaceFlags `embed:""`
	mcpFlags       `embed:""`
}

func (c *promptCmd) Run(ctx context.Context, std stdio, dirs xdg.Dirs) error {
	servers, err := c.startMCP(ctx, dirs, nil, c.Workspace, std.err)
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	defer servers.Close()
	tb, err := c.tools(&safetyFlags{}, servers)
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	specs, err := c.specs(tb)
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	_, err = fmt.Fprint(std.out, chat.SystemPrompt(tb.ws, c.mainSpecs(specs), dirs, std.err))
	return err
}
