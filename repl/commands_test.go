package repl

import (
	"strings"
	"testing"
)

func TestIsCommand(t *testing.T) {
	for line, want := range map[string]bool{
		"/help": true, "/model qwen3:8b": true, "/": true, "/model a/b": true,
		"/usr/bin/env is where?": false, "help": false, "x /help": false,
	} {
		if got := isCommand(line); got != want {
			t.Errorf("isCommand(%q) = %v, want %v", line, got, want)
		}
	}
}

// The commands table has one entry a name, and each says what it does.
func TestCommandsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands() {
		if seen[c.name] || c.name == "" || c.help == "" || c.run == nil || strings.Contains(c.name, "/") {
			t.Errorf("bad or repeated command %+v", c)
		}
		seen[c.name] = true
	}
}
