package main

import (
	"harness/chat"
	"harness/tools"
	"harness/xdg"
)

type sessionsCmd struct {
	All       bool   `help:"List the sessions of every workspace."`
	Workspace string `short:"w" default:"." placeholder:"DIR" help:"The workspace whose sessions to list."`
}

// Run lists the saved sessions, oldest first: id, when it started, its
// turns and its first prompt. It reads only the start and the end of each
// file.
func (c *sessionsCmd) Run(std stdio, dirs xdg.Dirs) error {
	ws := ""
	if !c.All {
		w, err := tools.NewWorkspace(c.Workspace)
		if err != nil {
			return &exitCodeError{code: exitUsage, err: err}
		}
		ws = w.Root()
	}
	return chat.Sessions(dirs, std.out, std.err, ws)
}
