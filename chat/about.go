package chat

import (
	"context"
	"fmt"
	"io"
	"strings"

	"harness/fence"
	"harness/protocol"
)

// Confiner is what confines the run's commands: the sandbox, started when
// it is first needed (starting bubblewrap to see that it works costs tens
// of milliseconds), and then known by its tier.
type Confiner interface {
	// TierName is how a person calls the tier commands run in, once
	// started: "bubblewrap", "Landlock", "Seatbelt" or "none"; "" before.
	TierName() string
	// Planned is the tier they will run in as far as is known before.
	Planned() string
}

// About writes what the run stands on, for the start of the REPL: the
// provider in use and its address (without the user information a URL
// may carry; never a key), the sandbox commands run in (or the one the
// first command will try, when none has run yet), and the instructions files the system prompt holds, with
// their sizes. A part the run lacks is left out: no provider with
// --fake, no line of instructions when there are none.
func (c *Chat) About(ctx context.Context, out io.Writer) {
	var parts []string
	if c.Models != nil {
		p := "provider " + c.Models.Provider()
		if addr := c.Models.Address(); addr != "" {
			p += " at " + fence.StripUserinfo(addr)
		}
		parts = append(parts, p)
	}
	if c.Sandbox != nil {
		if name := c.Sandbox.TierName(); name != "" {
			parts = append(parts, "sandbox: "+name)
		} else if name := c.Sandbox.Planned(); name != "" {
			parts = append(parts, "sandbox: "+name+", tried at the first command")
		}
	}
	if len(parts) > 0 {
		fmt.Fprintln(out, strings.Join(parts, "; "))
	}
	if len(c.Instructions) > 0 {
		fmt.Fprintln(out, "instructions: "+describeInstructions(c.Instructions))
	}
}

// describeInstructions names each instructions file with its size:
// "AGENTS.md (1.2 KiB), SYSTEM.md (80 B)".
func describeInstructions(ins []protocol.Instructions) string {
	names := make([]string, len(ins))
	for i, in := range ins {
		names[i] = fmt.Sprintf("%s (%s)", in.Source, size(len(in.Text)))
	}
	return strings.Join(names, ", ")
}

// size writes n bytes for a person: "80 B", "1.2 KiB", "3.0 MiB".
func size(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
