package chat

import (
	"fmt"
	"io"
	"strings"

	"harness/view"
)

// Diff writes what this conversation changed in the workspace's files.
func (c *Chat) Diff(out io.Writer, st view.Style) {
	d := c.Journal.Diff()
	if d == "" {
		fmt.Fprintln(out, "No file was changed by edit_file or write_file in this conversation.")
		return
	}
	fmt.Fprint(out, st.Diff(d))
}

// Undo puts back what the last turn that wrote files changed, says so on
// out, and tells the model so with the next input. The note is saved in
// the session at once, so that it reaches the model even if the next
// input comes in another run (-c, /load).
func (c *Chat) Undo(out io.Writer, st view.Style) error {
	u := c.Journal.Undo()
	if len(u.Done) == 0 && len(u.Kept) == 0 {
		fmt.Fprintln(out, "Nothing to undo: no turn changed a file with edit_file or write_file.")
		return nil
	}
	fmt.Fprintf(out, "Undid the file changes of turn %d:\n", u.Turn)
	for _, d := range u.Done {
		fmt.Fprintf(out, "  %s\n", d)
	}
	for _, k := range u.Kept {
		fmt.Fprintf(out, "  %s\n", st.Bad(k.Why))
	}
	var told []string
	told = append(told, u.Done...)
	for _, k := range u.Kept {
		if k.Changed {
			told = append(told, k.Name+" was left as it is, as it changed after that turn")
		} else {
			told = append(told, k.Name+" could not be put back")
		}
	}
	as := "Those files are as they were before that turn."
	if len(u.Kept) > 0 {
		as = "The files put back are as they were before that turn; the others are as they are now."
	}
	note := fmt.Sprintf("[The user undid the file changes of turn %d: %s. %s]", u.Turn, strings.Join(told, "; "), as)
	return c.AddNote(c.agent.State().Turn, note)
}
