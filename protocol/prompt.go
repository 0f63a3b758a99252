package protocol

import (
	"fmt"
	"slices"
	"strings"
)

// SystemPrompt builds the system prompt from the workspace root and the
// tools, sorted by name. It holds no clock or other changing state: the same
// root and tools always give the same bytes, so a local server can reuse
// what it cached of the conversation's beginning.
//
// With no tools the prompt says so, and neither the workspace nor the call
// syntax is mentioned: the model can only talk.
func SystemPrompt(root string, specs []ToolSpec) string {
	if len(specs) == 0 {
		return noTools
	}
	var b strings.Builder
	b.WriteString("You are a coding assistant working in a folder on the user's machine. Use the tools to look at and change files there; answer in plain text when no tool is needed.\n\n")
	fmt.Fprintf(&b, "Workspace root: %s\nPaths are relative to it; paths outside it are refused.\n\n", root)
	b.WriteString("# Tools\n")
	sorted := slices.Clone(specs)
	slices.SortFunc(sorted, func(a, b ToolSpec) int { return strings.Compare(a.Name, b.Name) })
	for _, s := range sorted {
		fmt.Fprintf(&b, "\n%s: %s\n", s.Name, s.Description)
		for _, a := range s.Args {
			req := "optional"
			if a.Required {
				req = "required"
			}
			fmt.Fprintf(&b, "  %s (%s, %s)", a.Name, a.Type, req)
			if a.Description != "" {
				b.WriteString(": " + a.Description)
			}
			b.WriteByte('\n')
		}
	}
	b.WriteString(rules)
	return b.String()
}

// noTools is the whole prompt of a harness without tools.
const noTools = "You are a coding assistant talking with a user. You have no tools: you cannot read, list or change files, or run commands. Answer from what is in this conversation, and say so when you would need to see something you cannot.\n"

const rules = `
# Calling a tool
Write a line that starts with TOOL_CALL, then one JSON object:
TOOL_CALL {"name":"read_file","arguments":{"path":"README.md"}}

For a long or multi-line string, write "<<EOF" as its value and put the text on the lines after the call, ending with a line that is only EOF. The text is taken as is, no escaping:
TOOL_CALL {"name":"write_file","arguments":{"path":"hi.txt","content":"<<EOF"}}
hello
EOF
Several blocks follow in the order of their arguments; give each its own word (EOF, OLD, NEW).

You may make several calls in one reply; they run in order. Stop after your last call.
Each result comes back as a message starting "TOOL_RESULT <id> <tool> SUCCESS" or "... ERROR", then the output. Never write TOOL_RESULT yourself. Do not claim a change or a check you have not seen succeed.
`
