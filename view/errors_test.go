package view

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"harness/loop"
	"harness/protocol"
)

func TestErrorLines(t *testing.T) {
	var many []string
	for i := range 10 {
		many = append(many, fmt.Sprintf("line %d", i+1))
	}
	for _, c := range []struct{ name, body, want string }{
		{"one line", "not found\n", "not found"},
		{"the lines that say where", "old_text differs in 1 character:\n  line 3: \"fob\"\n  the file has \"foo\"\n",
			"old_text differs in 1 character:\n      line 3: \"fob\"\n      the file has \"foo\""},
		{"six lines", strings.Join(many[:6], "\n"), "line 1\n    line 2\n    line 3\n    line 4\n    line 5\n    line 6"},
		{"more", strings.Join(many, "\n"), "line 1\n    line 2\n    line 3\n    line 4\n    line 5\n    … 5 more lines"},
		{"a status", "(no output)\n[killed after 300ms]", "(no output) ... [killed after 300ms]"},
		{"a status after more", strings.Join(many, "\n") + "\n[exit status 1]",
			"line 1 ... [exit status 1]\n    line 2\n    line 3\n    line 4\n    line 5\n    … 5 more lines"},
		{"clipped", strings.Repeat("é", 150), strings.Repeat("é", 100) + "..."},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ErrorLines(c.body); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestToolErrorLines checks that the tool-error line shows the lines of an
// error after its first, escaped.
func TestToolErrorLines(t *testing.T) {
	var out bytes.Buffer
	v := &Turn{Out: &out, Log: &out}
	v.Event(loop.Event{Kind: loop.CallEnded, Call: protocol.Call{Name: "edit_file"},
		Result: protocol.Result{Body: "old_text differs in 1 character:\nline 2 has \x1b[31mred\x1b[0m\nnothing was written\n"}})
	want := "tool-error: edit_file -> old_text differs in 1 character:\n    line 2 has \\u001b[31mred\\u001b[0m\n    nothing was written\n"
	if got := out.String(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
