package view

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"harness/session"
)

// Sessions writes infos to out as a table, oldest first: id, when each
// started, its turns, its workspace (with all), its name when any has
// one, and its first prompt.
func Sessions(out io.Writer, infos []session.Info, all bool) error {
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
