package mcp_test

import (
	"errors"
	"strings"
	"testing"

	"harness/mcp"
	"harness/protocol"
)

// TestStartNote: the one line a chat's start says of each server: why it
// did not start, or its tools and where it runs, and what it lacks.
func TestStartNote(t *testing.T) {
	stdio := mcp.Server{Name: "files", Command: "files-mcp", Args: []string{"--root", "."}}
	web := mcp.Server{Name: "docs", URL: "https://docs.example/mcp"}
	tools := []protocol.ToolSpec{{Name: "docs.search"}, {Name: "docs.fetch"}}
	tests := []struct {
		name string
		st   mcp.Status
		want []string
		not  []string
	}{
		{"failed", mcp.Status{Server: stdio, Err: errors.New("exec: not found")}, []string{"server files did not start, and its tools are left out: exec: not found"}, []string{"started"}},
		{"stdio", mcp.Status{Server: stdio, Tools: tools}, []string{"server files started with 2 tools (files-mcp --root .)", "outside the sandbox", "asks first"}, []string{"no tool"}},
		{"http, a tool missing", mcp.Status{Server: web, Tools: tools, Missing: []string{"docs.list"}}, []string{"server docs started with 2 tools (https://docs.example/mcp)", "it has no tool docs.list"}, []string{"outside the sandbox"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.st.StartNote()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("%q says %q", got, n)
				}
			}
			if strings.Contains(got, "\n") {
				t.Errorf("%q is not one line", got)
			}
		})
	}
}
