package chat

import (
	"testing"

	"harness/protocol"
)

// TestMCPShare: the MCP servers' tools get the share of the system
// prompt's tokens that their bytes are of it; none without such tools.
func TestMCPShare(t *testing.T) {
	ours := protocol.ToolSpec{Name: "read_file", Description: "Read a file."}
	theirs := protocol.ToolSpec{Name: "docs.search", Description: "Search the documentation of any project by its name, and say where each hit is."}
	specs := []protocol.ToolSpec{ours, theirs}
	whole := len(protocol.SystemPrompt("/ws", specs))
	added := whole - len(protocol.SystemPrompt("/ws", []protocol.ToolSpec{ours}))
	tests := []struct {
		name     string
		mcp      []string
		tokens   int
		n, share int
	}{
		{"none of theirs", nil, 1000, 0, 0},
		{"one of theirs", []string{"docs.search"}, 1000, 1, 1000 * added / whole},
		{"all of the prompt's tokens", []string{"docs.search"}, whole, 1, added},
		{"a name that is no tool", []string{"docs.fetch"}, 1000, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, share := mcpShare("/ws", specs, tt.mcp, tt.tokens)
			if n != tt.n || share != tt.share {
				t.Errorf("mcpShare = %d, %d; want %d, %d", n, share, tt.n, tt.share)
			}
		})
	}
	if added <= 0 || 1000*added/whole <= 0 {
		t.Fatalf("the MCP tool adds %d of %d bytes: the test says nothing", added, whole)
	}
}
