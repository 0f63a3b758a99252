package main

import (
	"slices"
	"strings"

	"harness/protocol"
	"harness/window"
)

// mcpShare is how many of the main conversation's tools are those of MCP
// servers, and their share of the system prompt's tokens in d: in
// proportion to the bytes they add to the prompt the protocol builds.
func (r *runner) mcpShare(d window.Breakdown) (n, tokens int) {
	var names []string
	for _, st := range r.mcp.Status() {
		for _, t := range st.Tools {
			names = append(names, t.Name)
		}
	}
	specs := r.tools.Specs()
	fixed := protocol.SystemPrompt(r.root, specs)
	ours := slices.DeleteFunc(slices.Clone(specs), func(s protocol.ToolSpec) bool { return slices.Contains(names, s.Name) })
	n = len(specs) - len(ours)
	if n == 0 {
		return 0, 0
	}
	added := len(fixed) - len(protocol.SystemPrompt(r.root, ours))
	return n, d.Tokens[window.SystemPrompt] * added / len(fixed)
}

// instructions is the text the project instructions (AGENTS.md, SYSTEM.md)
// added to the system prompt, for show: "" when there are none, or when the
// system prompt is a saved one that begins otherwise.
func (r *runner) instructions() string {
	return instructionsIn(r.cfg.System, protocol.SystemPrompt(r.root, r.tools.Specs()))
}

// instructionsIn is the text that system, a conversation's system prompt,
// adds to fixed, the prompt the protocol builds for its workspace and
// tools: "" when system does not begin with fixed.
func instructionsIn(system, fixed string) string {
	text, ok := strings.CutPrefix(system, fixed)
	if !ok {
		return ""
	}
	return text
}
