package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"harness/session"
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
	return listSessions(dirs, std.out, std.err, ws)
}

// listSessions writes to out the sessions of the workspace ws, or of every
// workspace when ws is "", as a table; when there are none, it says so to
// note. `harness sessions` and the REPL's /sessions both list with it.
func listSessions(dirs xdg.Dirs, out, note io.Writer, ws string) error {
	all := ws == ""
	dir, err := sessionDir(dirs)
	if err != nil {
		return err
	}
	var infos []session.Info
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		store, err := session.Open(dir)
		if err != nil {
			return err
		}
		if infos, err = store.List(ws); err != nil {
			return err
		}
	}
	if len(infos) == 0 {
		if all {
			fmt.Fprintf(note, "no saved sessions in %s\n", dir)
		} else {
			fmt.Fprintf(note, "no saved sessions of %s (--all lists every workspace's)\n", ws)
		}
		return nil
	}
	named := false
	for _, i := range infos {
		named = named || i.Name != ""
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	head := []string{"ID", "STARTED", "TURNS"}
	if all {
		head = append(head, "WORKSPACE")
	}
	if named {
		head = append(head, "NAME")
	}
	fmt.Fprintln(tw, strings.Join(append(head, "FIRST PROMPT"), "\t"))
	for _, i := range infos {
		row := []string{i.ID, "-", fmt.Sprint(i.Turns)}
		if !i.Started.IsZero() {
			row[1] = i.Started.Local().Format("2006-01-02 15:04")
		}
		if all {
			row = append(row, i.Workspace)
		}
		if named {
			row = append(row, i.Name)
		}
		prompt := excerpt(i.Prompt, 60)
		if i.Err != nil {
			row[2], prompt = "-", "(cannot be continued: "+i.Err.Error()+")"
		}
		fmt.Fprintln(tw, strings.Join(append(row, prompt), "\t"))
	}
	return tw.Flush()
}

// excerpt is the first line of s, cut to n characters.
func excerpt(s string, n int) string {
	s, _, more := strings.Cut(strings.TrimSpace(s), "\n")
	if utf8.RuneCountInString(s) > n {
		s, more = string([]rune(s)[:n]), true
	}
	if more {
		s += "..."
	}
	return s
}
