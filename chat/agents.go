package chat

import (
	"bytes"
	"fmt"
	"slices"

	"harness/protocol"
	"harness/xdg"
)

// AgentsChange says how the workspace's AGENTS.md, whose text becomes the
// instructions of the system prompt, stands against the one the last run
// in the workspace used. A model can write AGENTS.md (write_file, a
// command), and what it wrote would steer every later run; saying so at
// the start lets the user read it before trusting it.
type AgentsChange int

const (
	// AgentsSame: the same text as the last run used, or no AGENTS.md.
	AgentsSame AgentsChange = iota
	// AgentsNew: an AGENTS.md no run in this workspace has used before.
	AgentsNew
	// AgentsChanged: AGENTS.md changed since the last run in this
	// workspace, by the user, or by a tool or command of that run.
	AgentsChanged
)

// Notice is the line that says so at the start of a run, or "" for
// AgentsSame.
func (c AgentsChange) Notice() string {
	switch c {
	case AgentsNew:
		return "notice: AGENTS.md is new to this workspace's runs, and its text goes into the system prompt as instructions; read it if you did not write it (harness prompt shows the prompt)"
	case AgentsChanged:
		return "notice: AGENTS.md changed since the last run in this workspace, perhaps by that run's tools, and its text goes into the system prompt as instructions; read it if you did not change it (harness prompt shows the prompt)"
	}
	return ""
}

// CheckAgents compares the text of the workspace's AGENTS.md that the
// system prompt holds (among ins, the instructions SystemPrompt loaded)
// with the hash the last run in the workspace at root kept in the state
// folder of dirs (never in the workspace, where a command could change it
// too), and, when record is set, keeps this run's hash there. Without a
// state folder every AGENTS.md is new.
func CheckAgents(root string, ins []protocol.Instructions, dirs xdg.Dirs, record bool) (AgentsChange, error) {
	i := slices.IndexFunc(ins, func(in protocol.Instructions) bool { return in.Source == agentsName })
	used := i >= 0
	var sum string
	if used {
		sum = hashOf([]byte(ins[i].Text))
	}
	path, data, err := readKept(dirs, "instructions", root)
	if err != nil {
		return AgentsSame, fmt.Errorf("AGENTS.md's last hash: %w", err)
	}
	kept := string(bytes.TrimSpace(data))
	change := AgentsSame
	switch {
	case !used:
	case kept == "":
		change = AgentsNew
	case kept != sum:
		change = AgentsChanged
	}
	if !record || path == "" {
		return change, nil
	}
	now := ""
	if used {
		now = sum + "\n"
	}
	if err := writeKept(path, data, []byte(now)); err != nil {
		return change, fmt.Errorf("AGENTS.md's hash: %w", err)
	}
	return change, nil
}
