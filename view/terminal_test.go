//go:build !windows

package view

import (
	"bytes"
	"testing"

	"github.com/creack/pty"
)

func TestActivityFor(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	for _, c := range []struct {
		name, noColor, term string
		w                   any
		want                bool
	}{
		{"a terminal", "", "xterm-256color", tty, true},
		{"no terminal", "", "xterm-256color", &bytes.Buffer{}, false},
		{"NO_COLOR", "1", "xterm-256color", tty, false},
		{"a dumb terminal", "", "dumb", tty, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("NO_COLOR", c.noColor)
			t.Setenv("TERM", c.term)
			if got := ActivityFor(c.w); got != c.want {
				t.Errorf("ActivityFor = %v, want %v", got, c.want)
			}
		})
	}
}
