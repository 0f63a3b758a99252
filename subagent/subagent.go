// Package subagent gives an agent the agent tool: a call of it hands a part
// of the job to a child conversation that starts fresh, and returns the
// child's answer and a report of what it did.
//
// A child gets its own system prompt: the protocol and the definitions of
// its tools, as any conversation's, and one line saying that it works for
// another agent and must end with a concise report. The same tool set
// always gives the same bytes. Its first message is the task; it sees none
// of the parent's conversation. It runs one turn, under its own step limit
// (Config.MaxSteps) and inside the run's budgets, which its hooks count.
//
// # Tools of a child
//
// The call's tools argument chooses them:
//
//	read   (the default) the tools whose spec says they do not write, and
//	       the limited ones (Config.Limited), such as bash, for their
//	       calls that only read
//	all    every tool of the parent but agent
//
// A read child's call of a limited tool that may write (bash with mkdir)
// is refused with an ERROR result before it reaches the parent's tools;
// its system prompt says so, in one line for each limited tool.
//
// A child never has the agent tool: children are one level deep. Its calls
// go through the parent's tools, so the approval gate, the secrets and the
// sandbox apply to them exactly as to the parent's. They reach those tools
// with their id prefixed by the parent's call, as in call_3/call_1, so that
// what records a call (an approval) can tell them from the parent's own;
// the result keeps the child's id.
//
// # Scheduling
//
// A child that only reads may run beside other reads, and children that
// only read asked for in one reply run in parallel; a child that may write
// runs alone. Tools tells the loop so per call (loop.CallWrites). The
// children's events reach the hooks one at a time, even when children run
// in parallel, each with Origin set to the id of the call that started it.
//
// # Results
//
// A child that answers gives a SUCCESS result: its answer, then its report
// (steps, calls, what changed, whether tests ran). A child that hits a
// limit, is interrupted or fails gives an ERROR result that says why, in
// the limit's own words (agent-max-steps for its step limit), and what it
// had found so far: the text of its replies and the calls it made. The
// result says the call wrote when the child's calls did.
package subagent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"harness/loop"
	"harness/protocol"
)

// Name is the agent tool's name.
const Name = "agent"

// DefaultMaxSteps is a child's step limit when Config.MaxSteps is not set.
const DefaultMaxSteps = 15

// Which tools a child gets (the tools argument).
const (
	Read = "read"
	All  = "all"
)

// Config says how children are made.
type Config struct {
	// Model answers the children.
	Model loop.Model
	// Root is the workspace root, as the children's system prompts show it.
	Root string
	// MaxSteps bounds the steps of a child's turn (default
	// DefaultMaxSteps); reaching it is the limit agent-max-steps.
	MaxSteps int
	// MaxFormatErrors, IsTest, Target and Parse are as in loop.Config,
	// for the children: give them the parent's, so that a child reads its
	// replies as the parent does.
	MaxFormatErrors int
	IsTest          func(protocol.Call) bool
	Target          func(protocol.Call) string
	Parse           func(reply string) protocol.Parsed
	// Hooks see every event of the children, one at a time: give them the
	// parent's (the budget, the record, the display), so that a child's
	// steps count and show as the parent's do.
	Hooks []loop.Hook
	// Done, when set, is given each child's conversation when its turn is
	// over, with the id of the call that started it: for a session to keep
	// it beside the parent's. Like the hooks, it is called for one child at
	// a time, never while a hook is busy with a child's event.
	Done func(origin string, st loop.State)
	// Limited are tools that may write which a read child has all the
	// same, limited to their calls that only read. One the parent's tools
	// do not have is left out.
	Limited []Limited
}

// Limited is a tool that may write, given to a child that only reads for
// the calls of it that only read: a command tool and the command lines a
// check finds read-only.
type Limited struct {
	Name string // the tool's
	// Reads reports whether a call of the tool only reads; any other is
	// refused, and Refusal says why in its result.
	Reads   func(protocol.Call) bool
	Refusal string
	// Rule is the line the child's system prompt adds about the tool:
	// what it may do with it.
	Rule string
}

// Tools is a parent's tool set with the agent tool added: it runs agent
// calls itself and hands every other call to the tools it wraps.
type Tools struct {
	inner loop.Tools
	cfg   Config
	specs []protocol.ToolSpec // inner's and agent's, sorted by name
	kinds map[string]*kind    // by the tools argument

	mu sync.Mutex // the children's events go to the hooks, and their ends to Done, one at a time
}

// kind is the tool set of one kind of child.
type kind struct {
	specs []protocol.ToolSpec
	// system is the system prompt of a child with these tools, made when
	// the first such child starts: a run that starts none never needs it.
	system  func() string
	writes  bool               // some of the tools may write
	limited map[string]Limited // by name: tools only some of whose calls run
}

var (
	_ loop.Tools      = (*Tools)(nil)
	_ loop.CallWrites = (*Tools)(nil)
)

// ErrName is wrapped by New's error when the tools it is given already
// hold a tool named agent.
var ErrName = errors.New("subagent: the tools already have a tool named " + Name)

// New returns inner with the agent tool added, whose children cfg makes.
func New(inner loop.Tools, cfg Config) (*Tools, error) {
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	all := inner.Specs()
	if slices.ContainsFunc(all, func(s protocol.ToolSpec) bool { return s.Name == Name }) {
		return nil, ErrName
	}
	limited := map[string]Limited{}
	for _, l := range cfg.Limited {
		if slices.ContainsFunc(all, func(s protocol.ToolSpec) bool { return s.Name == l.Name && s.Writes }) {
			limited[l.Name] = l
		}
	}
	reads := slices.DeleteFunc(slices.Clone(all), func(s protocol.ToolSpec) bool {
		_, ok := limited[s.Name]
		return s.Writes && !ok
	})
	t := &Tools{
		inner: inner,
		cfg:   cfg,
		specs: append(slices.Clone(all), Spec()),
		kinds: map[string]*kind{
			Read: newKind(cfg.Root, reads, limited),
			All:  newKind(cfg.Root, all, nil),
		},
	}
	slices.SortFunc(t.specs, func(a, b protocol.ToolSpec) int { return strings.Compare(a.Name, b.Name) })
	return t, nil
}

// newKind returns the kind of child whose tools are specs, those named in
// limited limited to their calls that only read.
func newKind(root string, specs []protocol.ToolSpec, limited map[string]Limited) *kind {
	var rules []string
	for _, name := range slices.Sorted(maps.Keys(limited)) {
		rules = append(rules, limited[name].Rule)
	}
	return &kind{
		specs:  specs,
		system: sync.OnceValue(func() string { return System(root, specs, rules...) }),
		writes: slices.ContainsFunc(specs, func(s protocol.ToolSpec) bool {
			_, ok := limited[s.Name]
			return s.Writes && !ok
		}),
		limited: limited,
	}
}

// Target names what a call of the agent tool acted on, for a report of
// what changed: the helper, whose own report says what it changed; "" for
// a call of another tool.
func Target(call protocol.Call) string {
	if call.Name != Name {
		return ""
	}
	return "helper " + call.ID
}

// Spec returns what the model is told about the agent tool.
func Spec() protocol.ToolSpec {
	return protocol.ToolSpec{
		Name:        Name,
		Description: "Give a task to a helper that sees only the task and returns its answer and a report; keeps this conversation short. Helpers that only read run together.",
		Args: []protocol.Arg{
			{Name: "task", Type: protocol.String, Required: true, Description: "What to do and report"},
			{Name: "tools", Type: protocol.String, Description: "read (default) or all (may write)"},
		},
		Writes: true, // with tools=all; Tools.Writes tells per call
	}
}

// note is the line a child's system prompt adds to the protocol's.
const note = "\nYou work for another agent, not a person: the first message is the task it gave you, and your final answer is all it will see. Do that task, then answer with a concise report: what you found or did, which files you changed, and whether tests ran.\n"

// System returns the system prompt of a child whose tools are specs, in
// the workspace root: the protocol's, a line saying whom it works for,
// and rules, one line each, such as what it may do with a limited tool.
// The same root, tools and rules always give the same bytes.
func System(root string, specs []protocol.ToolSpec, rules ...string) string {
	var b strings.Builder
	b.WriteString(protocol.SystemPrompt(root, specs) + note)
	for _, r := range rules {
		b.WriteString(strings.TrimSpace(r) + "\n")
	}
	return b.String()
}

// Specs returns what the parent's model is told about the tools: those
// wrapped and agent, sorted by name.
func (t *Tools) Specs() []protocol.ToolSpec {
	specs := slices.Clone(t.specs)
	for i := range specs {
		specs[i].Args = slices.Clone(specs[i].Args)
	}
	return specs
}

// Writes reports whether call may change the workspace: an agent call when
// its child may write, any other as its tool's spec says.
func (t *Tools) Writes(call protocol.Call) bool {
	if call.Name == Name {
		k, err := t.kind(call)
		return err == nil && k.writes
	}
	i := slices.IndexFunc(t.specs, func(s protocol.ToolSpec) bool { return s.Name == call.Name })
	return i >= 0 && t.specs[i].Writes
}

// kind returns the kind of child call asks for.
func (t *Tools) kind(call protocol.Call) (*kind, error) {
	which := Read
	if v, ok := call.Args["tools"]; ok {
		s, _ := v.(string)
		which = s
	}
	k, ok := t.kinds[which]
	if !ok {
		return nil, fmt.Errorf("tools must be %q or %q, not %q", Read, All, which)
	}
	return k, nil
}

// Run runs an agent call as a child conversation, and hands any other call
// to the tools wrapped.
func (t *Tools) Run(ctx context.Context, call protocol.Call) protocol.Result {
	if call.Name != Name {
		return t.inner.Run(ctx, call)
	}
	k, err := t.kind(call)
	if err != nil {
		return protocol.Rejected(call, err)
	}
	task, _ := call.Args["task"].(string)
	if strings.TrimSpace(task) == "" {
		return protocol.Rejected(call, errors.New("the task is empty; write what the helper should do"))
	}
	if ctx.Err() != nil {
		return protocol.Result{CallID: call.ID, Tool: call.Name, Body: "interrupted before the call started; nothing was run"}
	}
	return t.child(ctx, call, k, task)
}

// event passes a child's event to the hooks, one event at a time.
func (t *Tools) event(e loop.Event) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return loop.Hooks(t.cfg.Hooks).Event(e)
}

// childTools are the tools of one child: those of its kind, run through
// the parent's, with the child's call ids prefixed by its origin.
type childTools struct {
	inner  loop.Tools
	kind   *kind
	origin string
}

func (c *childTools) Specs() []protocol.ToolSpec {
	specs := slices.Clone(c.kind.specs)
	for i := range specs {
		specs[i].Args = slices.Clone(specs[i].Args)
	}
	return specs
}

func (c *childTools) Run(ctx context.Context, call protocol.Call) protocol.Result {
	if !slices.ContainsFunc(c.kind.specs, func(s protocol.ToolSpec) bool { return s.Name == call.Name }) {
		return protocol.Rejected(call, fmt.Errorf("this helper has no tool named %q", call.Name))
	}
	if l, ok := c.kind.limited[call.Name]; ok && !l.Reads(call) {
		return protocol.Rejected(call, errors.New(l.Refusal))
	}
	id := call.ID
	call.ID = c.origin + "/" + id
	res := c.inner.Run(ctx, call)
	res.CallID = id
	return res
}
