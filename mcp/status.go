package mcp

import (
	"fmt"
	"io"
	"strings"

	"harness/approve"
	"harness/plural"
	"harness/protocol"
)

// Write shows st as harness mcp list does: whether the server started,
// how it is reached, and its tools with their arguments in the lines the
// system prompt gives them, then a blank line. What would act on a
// terminal is escaped (approve.Visible).
func (st Status) Write(w io.Writer) error {
	var b strings.Builder
	s := st.Server
	if st.Err != nil {
		fmt.Fprintf(&b, "%s: did not start (%s): %v\n\n", s.Name, s.Where(), st.Err)
		_, err := io.WriteString(w, approve.Visible(b.String()))
		return err
	}
	where := "streamable HTTP " + s.URL
	if s.URL == "" {
		where = "stdio, " + s.Where() + ", outside the sandbox"
	}
	fmt.Fprintf(&b, "%s: started (%s), %d tools\n", s.Name, where, len(st.Tools))
	for _, t := range st.Tools {
		fmt.Fprintf(&b, "  %s: %s\n", t.Name, t.Description)
		for _, a := range t.Args {
			b.WriteString("    " + a.String())
			if a.Description != "" {
				b.WriteString(": " + a.Description)
			}
			b.WriteByte('\n')
		}
	}
	if len(st.Left) > 0 {
		fmt.Fprintf(&b, "  left out by its tools setting: %s\n", strings.Join(st.Left, ", "))
	}
	if len(st.Unnamed) > 0 {
		fmt.Fprintf(&b, "  left out for their names, which a call cannot carry or an earlier tool has: %s\n", protocol.QuoteAll(st.Unnamed))
	}
	if len(st.Missing) > 0 {
		fmt.Fprintf(&b, "  named by its tools setting but not offered: %s\n", strings.Join(st.Missing, ", "))
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, approve.Visible(b.String()))
	return err
}

// StartNote says what became of the server when a chat started it, in
// one line, with what would act on a terminal escaped.
func (st Status) StartNote() string {
	return approve.Visible(st.note())
}

func (st Status) note() string {
	s := st.Server
	if st.Err != nil {
		return fmt.Sprintf("server %s did not start, and its tools are left out: %v", s.Name, st.Err)
	}
	note := fmt.Sprintf("server %s started with %d tools (%s)", s.Name, len(st.Tools), s.Where())
	if s.URL == "" {
		note += "; its program runs outside the sandbox, with only the environment its settings name"
	}
	note += "; every call of its tools asks first, unless --approve all"
	if len(st.Missing) > 0 {
		note += fmt.Sprintf("; it has no tool %s", strings.Join(st.Missing, ", "))
	}
	if n := len(st.Unnamed); n > 0 {
		note += fmt.Sprintf("; %s left out for their names (harness mcp list names them)", plural.Count(n, "tool"))
	}
	return note
}
