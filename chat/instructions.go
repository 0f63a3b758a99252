package chat

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"harness/protocol"
	"harness/tools"
	"harness/xdg"
)

// maxInstructions bounds what each instructions file adds to the system
// prompt, which every request carries.
const maxInstructions = 16 << 10

// SystemPrompt is the system prompt of a run: the fixed part, built from
// the workspace and the specs of its tools, then the instructions of the workspace's
// AGENTS.md and of the user's SYSTEM.md, when they exist. It is built once
// a run, so it stays byte for byte the same. Warnings about the
// instructions go to warn; SYSTEM.md is in the settings folder of dirs.
// The instructions it holds are returned too (Chat.Instructions).
func SystemPrompt(ws *tools.Workspace, specs []protocol.ToolSpec, dirs xdg.Dirs, warn io.Writer) (string, []protocol.Instructions) {
	fixed := protocol.SystemPrompt(ws.Root(), specs)
	var ins []protocol.Instructions
	if text, ok := agentsFile(ws, warn); ok {
		ins = append(ins, protocol.Instructions{Source: agentsName, Text: text})
	}
	if dir, err := dirs.Config(); err != nil {
		fmt.Fprintf(warn, "warning: SYSTEM.md is not used: %v\n", err)
	} else if text, ok := instructionsFile(filepath.Join(dir, "SYSTEM.md"), "SYSTEM.md", warn); ok {
		ins = append(ins, protocol.Instructions{Source: "SYSTEM.md", Text: text})
	}
	// Those without text add nothing to the prompt.
	ins = slices.DeleteFunc(ins, func(in protocol.Instructions) bool { return strings.TrimSpace(in.Text) == "" })
	return protocol.WithInstructions(fixed, ins...), ins
}

// agentsName is the workspace's instructions file.
const agentsName = "AGENTS.md"

// agentsFile reads AGENTS.md at the workspace's root, through the same
// boundary and secret rules as the tools: a link out of the workspace, or
// a file the workspace keeps from the model, is not used.
func agentsFile(ws *tools.Workspace, warn io.Writer) (string, bool) {
	abs, err := ws.Resolve("AGENTS.md")
	if err != nil {
		fmt.Fprintf(warn, "warning: AGENTS.md is not used: %v\n", err)
		return "", false
	}
	if why := ws.Secret(abs); why != "" {
		if _, err := os.Stat(abs); err == nil {
			fmt.Fprintf(warn, "warning: AGENTS.md is not used: %s\n", why)
		}
		return "", false
	}
	return instructionsFile(abs, "AGENTS.md", warn)
}

// instructionsFile reads the file at path, named name in warnings, cut to
// maxInstructions. A missing file is no instructions, quietly; one that
// cannot be read is none, with a warning.
func instructionsFile(path, name string, warn io.Writer) (string, bool) {
	data, size, err := tools.ReadHead(path, maxInstructions)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false
	case err != nil:
		fmt.Fprintf(warn, "warning: %s is not used: %v\n", name, err)
		return "", false
	case !utf8.Valid(data[:lastRuneStart(data)]):
		fmt.Fprintf(warn, "warning: %s is not used: it is not UTF-8 text\n", name)
		return "", false
	}
	text := string(data)
	if size > maxInstructions {
		text = cutText(text, maxInstructions)
		fmt.Fprintf(warn, "warning: %s is %d bytes, over the limit of %d KiB: the system prompt holds its first %d bytes\n",
			name, size, maxInstructions>>10, len(text))
	}
	return text, true
}

// cutText cuts text to at most n bytes: at the end of its last whole line
// when there is one, else at the last whole character.
func cutText(text string, n int) string {
	if len(text) <= n {
		return text
	}
	text = text[:n]
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		return text[:i+1]
	}
	return text[:lastRuneStart([]byte(text))]
}

// lastRuneStart is the length of data without a character cut at its end.
func lastRuneStart(data []byte) int {
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax; i-- {
		if utf8.RuneStart(data[i]) {
			if utf8.FullRune(data[i:]) {
				return len(data)
			}
			return i
		}
	}
	return len(data)
}
