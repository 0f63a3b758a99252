package protocol_test

import (
	"strings"
	"testing"

	"harness/protocol"
)

func TestWithInstructions(t *testing.T) {
	fixed := protocol.SystemPrompt("/w", []protocol.ToolSpec{{Name: "read_file", Description: "Read."}})
	tests := []struct {
		name string
		ins  []protocol.Instructions
		want string // what follows the fixed part
	}{
		{"none", nil, ""},
		{"empty", []protocol.Instructions{{Source: "AGENTS.md", Text: " \n\n"}}, ""},
		{"one", []protocol.Instructions{{Source: "AGENTS.md", Text: "Run go test.\n\n"}},
			"\n# Instructions from AGENTS.md\nRun go test.\n"},
		{"two in order", []protocol.Instructions{{Source: "AGENTS.md", Text: "a"}, {Source: "SYSTEM.md", Text: "b\n"}},
			"\n# Instructions from AGENTS.md\na\n\n# Instructions from SYSTEM.md\nb\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := protocol.WithInstructions(fixed, tt.ins...)
			rest, ok := strings.CutPrefix(got, fixed)
			if !ok {
				t.Fatalf("the fixed part changed:\n%s", got)
			}
			if rest != tt.want {
				t.Errorf("appended %q, want %q", rest, tt.want)
			}
		})
	}
}
