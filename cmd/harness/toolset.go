package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"harness/approve"
	"harness/guard"
	"harness/loop"
	"harness/mcp"
	"harness/protocol"
	"harness/sandbox"
	"harness/subagent"
	"harness/tools"
)

// outputsTool is the tool that pages through results too long to send
// whole; it comes with the cutting of such results.
const outputsTool = "read_output"

// inspectedTools is a tool set that says what each call would do: a
// tools.Set, or the tools.Outputs around one.
type inspectedTools interface {
	loop.Tools
	approve.Inspector
}

// toolChoice reads --tools: nil for every tool, or the names listed
// (comma-separated; "none", or nothing, for no tools at all).
func toolChoice(list *string) []string {
	if list == nil {
		return nil
	}
	names := []string{} // not nil: no tools
	for _, n := range strings.Split(*list, ",") {
		if n = strings.TrimSpace(n); n != "" && n != "none" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// specs returns what the model is told of the tools of tb, as the chain
// built from them tells it (toolSet).
func (w *workspaceFlags) specs(tb *toolbox) ([]protocol.ToolSpec, error) {
	set, _, err := w.toolSet(tb.tools, "")
	if err != nil {
		return nil, err
	}
	return set.Specs(), nil
}

// toolSet makes the tool set of ts that --tools asks for, and returns it
// with what keeps its long results (nil when nothing does), in files in
// the folder outputs ("": a temporary one). Long results are cut, and
// kept for read_output, only when read_output is one of the tools:
// without it the model could not read what was cut.
func (w *workspaceFlags) toolSet(ts []tools.Tool, outputs string) (inspectedTools, *tools.Outputs, error) {
	names := toolChoice(w.Tools)
	if names == nil {
		set, err := tools.NewSet(ts...)
		if err != nil {
			return nil, nil, err
		}
		out := tools.WithOutputs(set, outputs)
		return out, out, nil
	}
	valid := []string{outputsTool, subagent.Name}
	var picked []tools.Tool
	for _, t := range ts {
		valid = append(valid, t.Spec().Name)
		if slices.Contains(names, t.Spec().Name) {
			picked = append(picked, t)
		}
	}
	for _, n := range names {
		if !slices.Contains(valid, n) {
			slices.Sort(valid)
			return nil, nil, fmt.Errorf("--tools: unknown tool %q; the tools are %s (or none)", n, strings.Join(valid, ", "))
		}
	}
	set, err := tools.NewSet(picked...)
	if err != nil {
		return nil, nil, err
	}
	if slices.Contains(names, outputsTool) {
		out := tools.WithOutputs(set, outputs)
		return out, out, nil
	}
	return set, nil, nil
}

// agentChosen reports whether the main conversation has the agent tool,
// which starts helpers: unless --tools leaves it out.
func (w *workspaceFlags) agentChosen() bool {
	names := toolChoice(w.Tools)
	return names == nil || slices.Contains(names, subagent.Name)
}

// mainSpecs returns what the main conversation's model is told of the
// tools: specs, and the agent tool's when it is chosen.
func (w *workspaceFlags) mainSpecs(specs []protocol.ToolSpec) []protocol.ToolSpec {
	if w.agentChosen() {
		return withAgent(specs)
	}
	return specs
}

// commands builds the command guard and the sandbox as safety says, but
// with no sandbox to start when --tools leaves out bash, its only user:
// a chat without commands says nothing of bubblewrap.
func (w *workspaceFlags) commands(safety *safetyFlags, ws *tools.Workspace, caches func(root string) string) (*guard.Policy, *sandbox.Sandbox, error) {
	if names := toolChoice(w.Tools); names != nil && !slices.Contains(names, tools.BashName) {
		s := *safety
		s.Sandbox = string(sandbox.None)
		return s.commands(ws, "")
	}
	dir := ""
	if caches != nil {
		dir = caches(ws.Root())
	}
	return safety.commands(ws, dir)
}

// readOnlyBash is bash as a helper that only reads has it: for the command
// lines the guard finds only read. The guard's check is advice, not a
// boundary; the sandbox and the approval gate still apply to what it lets
// through.
func readOnlyBash() subagent.Limited {
	return subagent.Limited{
		Name:    tools.BashName,
		Reads:   tools.OnlyReads,
		Refusal: "only read-only commands are allowed to a read-only helper, and this one may write or run another program",
		Rule:    "Your bash runs only commands that only read (ls, cat, head, grep, find, wc, git status, git log, git diff, ...); any other command line is refused.",
	}
}

// replyParser returns the reply parser --parser names: tolerant (the
// default), which reads the shapes of calls other formats give for the
// tools specs describes, or strict.
func replyParser(name string, specs []protocol.ToolSpec) func(string) protocol.Parsed {
	if name == "strict" {
		return protocol.ParseStrict
	}
	return protocol.NewReader(specs).Parse
}

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
func (w *workspaceFlags) tools(safety *safetyFlags, servers *mcp.Servers, caches func(root string) string) (*toolbox, error) {
	ws, err := tools.NewWorkspace(w.Workspace)
	if err != nil {
		return nil, err
	}
	policy, box, err := w.commands(safety, ws, caches)
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

// withAgent returns specs with the agent tool's, sorted by name: what the
// main conversation's model is told, as subagent.New's tools say.
func withAgent(specs []protocol.ToolSpec) []protocol.ToolSpec {
	specs = append(specs, subagent.Spec())
	slices.SortFunc(specs, func(a, b protocol.ToolSpec) int { return strings.Compare(a.Name, b.Name) })
	return specs
}
