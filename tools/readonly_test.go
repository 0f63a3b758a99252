package tools

import (
	"context"
	"testing"

	"harness/protocol"
	"harness/sandbox"
)

// A bash command that only reads changes nothing, whatever its exit
// status; any other may have, once it ran.
func TestBashReadOnlyWrote(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "a\n"})
	tests := []struct {
		command string
		exit    int
		wrote   bool
	}{
		{"cat a.txt", 0, false},
		{"grep -n nothing a.txt", 1, false},
		{"git status", 0, false},
		{"ls && wc -l a.txt", 0, false},
		{"mkdir out", 0, true},
		{"cat a.txt > b.txt", 0, true},
		{"go test ./...", 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			set, err := NewSet(Bash(ws, policy(t), &fakeShell{res: sandbox.Result{Exit: tt.exit}}))
			if err != nil {
				t.Fatal(err)
			}
			res := set.Run(context.Background(), protocol.Call{ID: "call_1", Name: "bash", Args: map[string]any{"command": tt.command}})
			if res.Wrote != tt.wrote {
				t.Errorf("Wrote = %v, want %v (%+v)", res.Wrote, tt.wrote, res)
			}
		})
	}
}
