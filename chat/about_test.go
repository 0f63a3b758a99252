package chat

import (
	"context"
	"strings"
	"testing"

	"harness/protocol"
)

// confiner is a sandbox started in a tier, or one not started yet that
// will try a tier.
type confiner struct{ tier, planned string }

func (c *confiner) TierName() string { return c.tier }
func (c *confiner) Planned() string  { return c.planned }

// addressed is a provider at an address.
type addressed struct {
	providers
	addr string
}

func (a addressed) Address() string { return a.addr }

// TestAbout: the start says the provider and its address without the
// user information, the sandbox's tier once started (else the one to be
// tried), and the
// instructions with their sizes; what the run lacks is left out.
func TestAbout(t *testing.T) {
	ins := []protocol.Instructions{{Source: "AGENTS.md", Text: strings.Repeat("x", 1229)}, {Source: "SYSTEM.md", Text: "be brief\n"}}
	tests := []struct {
		name string
		c    *Chat
		want string
	}{
		{"all", &Chat{Models: addressed{"lms/qwen3", "https://user:sk-hunter2@example.com/v1"}, Sandbox: &confiner{tier: "bubblewrap"}, Instructions: ins},
			"provider lms at https://example.com/v1; sandbox: bubblewrap\ninstructions: AGENTS.md (1.2 KiB), SYSTEM.md (9 B)\n"},
		{"a token alone", &Chat{Models: addressed{"lms/qwen3", "https://sk-hunter2@example.com/v1"}},
			"provider lms at https://example.com/v1\n"},
		{"no address", &Chat{Models: addressed{"x/y", ""}}, "provider x\n"},
		{"fake", &Chat{Sandbox: &confiner{tier: "none"}}, "sandbox: none\n"},
		{"a sandbox not started yet", &Chat{Sandbox: &confiner{planned: "bubblewrap"}},
			"sandbox: bubblewrap, tried at the first command\n"},
		{"nothing", &Chat{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			tt.c.About(context.Background(), &out)
			if out.String() != tt.want {
				t.Errorf("wrote\n%q\nwant\n%q", out.String(), tt.want)
			}
			if strings.Contains(out.String(), "hunter2") {
				t.Error("the address's user information is shown")
			}
		})
	}
}
