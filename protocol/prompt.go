package protocol

import (
	"fmt"
	"slices"
	"strconv"
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
			b.WriteString("  " + a.String())
			if a.Description != "" {
				b.WriteString(": " + a.Description)
			}
			b.WriteByte('\n')
		}
	}
	b.WriteString(rules(sorted))
	return b.String()
}

// noTools is the whole prompt of a harness without tools.
const noTools = "You are a coding assistant talking with a user. You have no tools: you cannot read, list or change files, or run commands. Answer from what is in this conversation, and say so when you would need to see something you cannot.\n"

// rules teaches the call syntax, its examples naming tools the model has:
// read_file and write_file when it has them, as it has by default, or else
// the first tools that fit.
func rules(specs []ToolSpec) string {
	var b strings.Builder
	b.WriteString("\n# Calling a tool\nWrite a line that starts with TOOL_CALL, then one JSON object:\n")
	b.WriteString(exampleCall(specs) + "\n")
	if block := exampleBlock(specs); block != "" {
		b.WriteString("\nFor a long or multi-line string, write \"<<EOF\" as its value and put the text on the lines after the call, ending with a line that is only EOF. The text is taken as is, no escaping:\n")
		b.WriteString(block + "\nhello\nEOF\n")
		b.WriteString("Several blocks follow in the order of their arguments; give each its own word (EOF, OLD, NEW).\n")
	}
	b.WriteString("\nYou may make several calls in one reply; they run in order. Stop after your last call.\n")
	b.WriteString("Each result comes back as a message starting \"TOOL_RESULT <id> <tool> SUCCESS\" or \"... ERROR\", then the output. Never write TOOL_RESULT yourself. Do not claim a change or a check you have not seen succeed.\n")
	return b.String()
}

// exampleCall is a call of read_file, or of the first tool, with its
// required arguments.
func exampleCall(specs []ToolSpec) string {
	for _, s := range specs {
		if s.Name == "read_file" {
			return `TOOL_CALL {"name":"read_file","arguments":{"path":"README.md"}}`
		}
	}
	s := specs[0]
	var args []string
	for _, a := range s.Args {
		if !a.Required {
			continue
		}
		v := `"..."`
		switch {
		case a.Name == "path":
			v = `"README.md"`
		case a.Type == Integer, a.Type == Number:
			v = "1"
		case a.Type == Boolean:
			v = "true"
		case a.Type == Array:
			v = "[]"
		case a.Type == Object:
			v = "{}"
		}
		args = append(args, strconv.Quote(a.Name)+":"+v)
	}
	return fmt.Sprintf(`TOOL_CALL {"name":%s,"arguments":{%s}}`, strconv.Quote(s.Name), strings.Join(args, ","))
}

// exampleBlock is the line of a call of write_file whose content is a
// block, or of the first tool with a string argument that is not a path;
// "" when no tool has one.
func exampleBlock(specs []ToolSpec) string {
	for _, s := range specs {
		if s.Name == "write_file" {
			return `TOOL_CALL {"name":"write_file","arguments":{"path":"hi.txt","content":"<<EOF"}}`
		}
	}
	for _, s := range specs {
		for _, a := range s.Args {
			if a.Type != String || a.Name == "path" {
				continue
			}
			args := strconv.Quote(a.Name) + `:"<<EOF"`
			if _, ok := s.Arg("path"); ok {
				args = `"path":"hi.txt",` + args
			}
			return fmt.Sprintf(`TOOL_CALL {"name":%s,"arguments":{%s}}`, strconv.Quote(s.Name), args)
		}
	}
	return ""
}

// Instructions is text the user wrote for every conversation, such as a
// workspace's AGENTS.md, that the system prompt carries after its fixed
// part.
type Instructions struct {
	// Source names where the text comes from, as the model is told:
	// "AGENTS.md".
	Source string
	Text   string
}

// WithInstructions returns prompt, as SystemPrompt built it, followed by
// each of ins in order under a heading naming its source. prompt's bytes
// are kept as they are, so the instructions change nothing before them;
// without instructions (or with only empty ones) prompt is returned as it
// is.
func WithInstructions(prompt string, ins ...Instructions) string {
	var b strings.Builder
	b.WriteString(prompt)
	for _, in := range ins {
		text := strings.TrimRight(in.Text, "\n")
		if strings.TrimSpace(text) == "" {
			continue
		}
		fmt.Fprintf(&b, "\n# Instructions from %s\n%s\n", in.Source, text)
	}
	return b.String()
}
