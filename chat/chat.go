package chat

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"harness/journal"
	"harness/loop"
	"harness/mcp"
	"harness/protocol"
	"harness/record"
	"harness/tools"
	"harness/view"
	"harness/window"
	"harness/xdg"
)

// Chat is one conversation and the parts it runs with. The wiring builds
// the parts once and sets them here by name (nothing is found later by
// its type), then opens the session (OpenSession), keeps the window
// (KeepInWindow) and builds the tools (BuildTools, with ToolsFor). The
// REPL and -p then drive it: Start builds the agent that renders with a
// view, Turn runs one turn, and the methods of the REPL's commands
// (SwitchModel, Save, Load, Clear, Undo, Diff, ShowContext) say what they
// did on the writer they are given.
type Chat struct {
	Model  Backend // the model in use; /model and a resumed session change it
	Models Models  // where other models are found; nil with --fake
	Pinned bool    // -m named the model: a resumed conversation keeps it
	// BareNames is the backend whose older sessions named a model alone,
	// without its provider, when they switched to it: such a name is
	// looked for on the provider in use when that is of this backend.
	BareNames string
	Workspace *tools.Workspace
	Dirs      xdg.Dirs // where the run's settings and state are
	Config    loop.Config
	Budget    *loop.Budget
	Record    *record.Recorder // nil without --record
	// Output is the run's output as JSON lines (-p --output json): the
	// record's lines on stdout. Nil without.
	Output    *record.Recorder
	Approvals *Approvals
	// Journal keeps what the file tools change, under the gate: the diffs
	// shown after each write, /diff and /undo.
	Journal *journal.Journal
	// Attach reads what the @tags of an input name, through the gate.
	Attach Attacher
	// MCP are the MCP servers of the run, whose tools the main
	// conversation has; nil when there are none.
	MCP *mcp.Servers
	// WindowFor is the context window of a conversation with model b:
	// warnings about it go to warn.
	WindowFor func(ctx context.Context, warn io.Writer, b Backend) (int, error)
	// ToolsFor builds the tools of the main conversation for a model:
	// those behind the gate, and the agent tool, whose helpers use the
	// model too.
	ToolsFor func(loop.Model) (loop.Tools, error)
	// Script keeps the failure of a scripted model (--fake) that a turn
	// ended with, which fails the run at its end.
	Script *Scripted
	// Instructions are the instructions files the system prompt this run
	// built holds (SystemPrompt), and Sandbox what confines its commands:
	// both for About.
	Instructions []protocol.Instructions
	Sandbox      Confiner
	ShowWire     bool   // --show-wire
	Release      func() // releases what the wiring opened; Close calls it

	tools  loop.Tools   // the main conversation's, behind the gate
	window *view.Window // shows the context window, and /context
	conv   conversation // where the conversation comes from and is saved
	agent  *loop.Agent
	turn   *view.Turn // what the agent renders with
}

// Attacher adds to an input what its @tags name, saying so on log.
type Attacher interface {
	Attach(ctx context.Context, input string, log io.Writer, st view.Style) string
}

// Backend is what the model in use says it is.
func (c *Chat) Backend() protocol.Backend { return c.Model.Describe() }

// Root is the workspace's root.
func (c *Chat) Root() string { return c.Workspace.Root() }

// Tools are the tools of the main conversation.
func (c *Chat) Tools() loop.Tools { return c.tools }

// Agent is the agent that Start built last.
func (c *Chat) Agent() *loop.Agent { return c.agent }

// BuildTools builds the main conversation's tools for the model in use.
func (c *Chat) BuildTools() error {
	ts, err := c.ToolsFor(c.Model)
	if err != nil {
		return err
	}
	c.tools = ts
	return nil
}

// Close lets the session go and releases what the run opened.
func (c *Chat) Close() {
	c.conv.close()
	if c.Release != nil {
		c.Release()
	}
}

// Records are the run's records: the --record file's and the output's,
// those there are.
func (c *Chat) Records() []*record.Recorder {
	var rs []*record.Recorder
	for _, r := range []*record.Recorder{c.Record, c.Output} {
		if r != nil {
			rs = append(rs, r)
		}
	}
	return rs
}

// Hooks returns the hooks of a conversation of the run, ui last: the
// budget, the records, the session (which keeps only the
// main conversation), the approvals, the journal of file changes, what
// keeps a scripted model's failure.
func (c *Chat) Hooks(ui ...loop.Hook) []loop.Hook {
	hooks := []loop.Hook{c.Budget}
	for _, r := range c.Records() {
		hooks = append(hooks, r)
	}
	if c.conv.writer != nil {
		hooks = append(hooks, c.conv.writer) // it saves the main conversation only
	}
	hooks = append(hooks, c.Approvals, c.Journal, c.Script)
	return append(hooks, ui...)
}

// ui are the hooks that show the main conversation's events with v: the
// events, after each write the diff it made, the context window's use,
// and the notes of lies and --show-wire.
func (c *Chat) ui(v *view.Turn) []loop.Hook {
	return []loop.Hook{v, loop.Observe(func(e loop.Event) { c.showDiff(v, e) }), c.window,
		view.NewWire(v.Log, v.Style, c.ShowWire)}
}

// Start builds the agent of the conversation, new or resumed, rendering
// its events with v, and says on v's log what the user should know of it.
// The UI's hooks come last, so that what they show has already passed the
// budget and reached the record and the session.
func (c *Chat) Start(v *view.Turn) *loop.Agent {
	c.turn = v
	c.agent = c.begin(v.Log, c.Hooks(c.ui(v)...))
	return c.agent
}

// showDiff shows, after the result line of a call that wrote a file, the
// diff it made, shortened.
func (c *Chat) showDiff(v *view.Turn, e loop.Event) {
	if e.Kind != loop.CallEnded || e.Origin != "" {
		return
	}
	if d := c.Journal.TakeDiff(e.Call.ID); d != "" {
		fmt.Fprint(v.Log, v.Style.Diff(tools.Shorten(d, tools.MaxDiffLines)))
	}
}

// Turn runs one turn of the agent Start built on input: the records are
// told what was typed, the input's @tags are attached (said on log), and
// the note of what commands changed goes before it. Once the model has
// been sent the note, it is not sent again.
func (c *Chat) Turn(ctx context.Context, input string, log io.Writer, st view.Style) (string, error) {
	for _, r := range c.Records() {
		r.Typed(input)
	}
	ctx, cancel := c.Budget.Start(ctx)
	defer cancel()
	before := c.agent.State().Turn
	answer, err := c.agent.Turn(ctx, c.noted(c.Attach.Attach(ctx, input, log, st)))
	if c.agent.State().Turn != before {
		c.conv.note = ""
	}
	return answer, err
}

// RecordStart is what the record says about the run before it begins:
// the tools the model is told of are specs, and ignored names the
// backend settings the flags set that it ignores.
func (c *Chat) RecordStart(version string, specs []protocol.ToolSpec, ignored []protocol.Setting) record.Start {
	b := c.Backend()
	s := record.Start{
		Version:           version,
		Model:             b.Model,
		Backend:           b.Name,
		Workspace:         c.Root(),
		Options:           b.Options,
		SystemPromptBytes: len(c.Config.System),
	}
	for _, set := range ignored {
		s.Ignored = append(s.Ignored, string(set))
	}
	for _, spec := range specs {
		s.Tools = append(s.Tools, spec.Name)
	}
	return s
}

// KeepInWindow gives the run's conversations a context window of size
// tokens, and what shows it (writing to log in style st, after each
// step when steps is set). With compact, a Compactor keeps them inside it, keeping
// reserve tokens free for the reply (0: an eighth of the window); the
// summaries it asks of the model count in the budget and reach the record
// as the steps do. Without, it only counts, for the display. target
// names what a call acted on, for the line that replaces its result.
func (c *Chat) KeepInWindow(log io.Writer, st view.Style, size, reserve int, compact, steps bool, target func(protocol.Call) string) {
	v := &view.Window{W: log, Style: st, Size: size, Steps: steps}
	hooks := []loop.Hook{c.Budget}
	for _, r := range c.Records() {
		hooks = append(hooks, r)
	}
	v.Compact = window.New(window.Config{
		Reserve:    reserve,
		Target:     target,
		Parse:      c.Config.Parse,
		Summarizer: window.ModelSummarizer(currentModel{c}, c.Config.Parse, v.SummaryHooks(append(hooks, v)...)...),
	})
	c.window = v
	c.Config.Window = size
	if compact {
		c.Config.Compactor = v.Compact
	}
}

// PageBytes is the most bytes a page of a file or an output should hold to
// fit the conversation's context window (window.Compactor.PageBytes), or
// 0 when the window is not known: for tools.WithPages.
func (c *Chat) PageBytes() int {
	if c.window == nil || c.window.Compact == nil {
		return 0
	}
	return c.window.Compact.PageBytes(c.Config.Window, protocol.Message{Role: protocol.System, Content: c.Config.System})
}

// currentModel is the run's model at each call: the summaries are asked
// of the model the conversation uses, which /model may change.
type currentModel struct{ c *Chat }

func (m currentModel) Chat(ctx context.Context, req protocol.Request, stream func(protocol.Delta)) (protocol.Reply, error) {
	return m.c.Model.Chat(ctx, req, stream)
}

// ShowContext writes what the context window holds for the conversation
// so far: each part's tokens, the free space, the reply's reserve, the
// compaction threshold, and the share of the MCP servers' tools. It
// changes nothing.
func (c *Chat) ShowContext(out io.Writer) error {
	d := c.window.Measure(c.agent.State(), c.instructions())
	if err := d.Render(out); err != nil {
		return err
	}
	var names []string
	for _, st := range c.MCP.Status() {
		for _, t := range st.Tools {
			names = append(names, t.Name)
		}
	}
	if n, tokens := mcpShare(c.Root(), c.tools.Specs(), names, d.Tokens[window.SystemPrompt]); n > 0 {
		fmt.Fprintf(out, "the tools of MCP servers take %d of the system prompt's tokens (%d tools)\n", tokens, n)
	}
	return nil
}

// mcpShare is how many of specs, the main conversation's tools, are those
// of MCP servers (named mcp), and their share of the system prompt's
// tokens: in proportion to the bytes they add to the prompt the protocol
// builds for root.
func mcpShare(root string, specs []protocol.ToolSpec, mcp []string, tokens int) (n, share int) {
	fixed := protocol.SystemPrompt(root, specs)
	ours := slices.DeleteFunc(slices.Clone(specs), func(s protocol.ToolSpec) bool { return slices.Contains(mcp, s.Name) })
	n = len(specs) - len(ours)
	if n == 0 {
		return 0, 0
	}
	added := len(fixed) - len(protocol.SystemPrompt(root, ours))
	return n, tokens * added / len(fixed)
}

// instructions is the text the project instructions (AGENTS.md, SYSTEM.md)
// added to the system prompt, for /context: "" when there are none, or
// when the system prompt is a saved one that begins otherwise.
func (c *Chat) instructions() string {
	return InstructionsIn(c.Config.System, protocol.SystemPrompt(c.Root(), c.tools.Specs()))
}

// InstructionsIn is the text that system, a conversation's system prompt,
// adds to fixed, the prompt the protocol builds for its workspace and
// tools: "" when system does not begin with fixed.
func InstructionsIn(system, fixed string) string {
	text, ok := strings.CutPrefix(system, fixed)
	if !ok {
		return ""
	}
	return text
}

// ListTools writes each tool with the first sentence of its description.
func (c *Chat) ListTools(out io.Writer) {
	specs := c.tools.Specs()
	width := 0
	for _, s := range specs {
		width = max(width, len(s.Name))
	}
	for _, s := range specs {
		fmt.Fprintf(out, "  %-*s  %s\n", width, s.Name, firstSentence(s.Description))
	}
}

// firstSentence is the text up to its first full stop and space.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
