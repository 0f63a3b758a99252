package sandbox

import (
	"context"
	"os/exec"
	"runtime"
	"strings"
)

// tier is one way of running commands: in one of the sandboxes a system
// has, or in none. Each tier is one file (bwrap.go, landlock_linux.go,
// seatbelt.go, none.go) and one entry in tiers; a tier whose code builds
// only on its own system has a file more that says it cannot run
// elsewhere (landlock_other.go, seatbelt_other.go). Sandbox knows tiers
// only through this interface and the table.
type tier interface {
	// name is what messages call the tier: "bubblewrap".
	name() string
	// auto reports whether mode Auto tries the tier on this system.
	auto() bool
	// installed reports whether what the tier needs is there, at the
	// cost of a look rather than of starting it.
	installed(s *Sandbox) bool
	// probe returns why commands cannot run in the tier here, or "",
	// having run an empty command in it. What it finds out (a kernel's
	// version, a feature that is missing) it keeps for command.
	probe(ctx context.Context, s *Sandbox) string
	// command returns the command that runs c in the tier, its folder
	// and environment set, and what to do once it has ended.
	command(ctx context.Context, s *Sandbox, c Command) (*exec.Cmd, func(), error)
}

// tiers lists a tier for every mode but Auto, in the order mode Auto
// tries those it may on this system. A new tier is a file that implements tier and an
// entry here.
var tiers = []struct {
	mode Mode
	new  func() tier
}{
	{Bwrap, func() tier { return new(bwrap) }},
	{Landlock, func() tier { return new(landlock) }},
	{Seatbelt, func() tier { return seatbelt{} }},
	{None, func() tier { return none{} }},
}

// tierOf returns a new tier of mode m, and false for a mode not in tiers
// (Auto, or one unknown).
func tierOf(m Mode) (tier, bool) {
	for _, e := range tiers {
		if e.mode == m {
			return e.new(), true
		}
	}
	return nil, false
}

// autoTiers are the sandboxes mode Auto tries here, in order.
func autoTiers() []Mode {
	var out []Mode
	for _, e := range tiers {
		if e.new().auto() {
			out = append(out, e.mode)
		}
	}
	return out
}

// noTier says why mode Auto has no sandbox to try here.
func noTier() string {
	if runtime.GOOS == "windows" {
		return "Windows has no sandbox the harness can use"
	}
	return runtime.GOOS + " has no sandbox the harness can use"
}

// modes lists the modes a Config may name, for an error: "auto, bwrap,
// landlock, seatbelt or none".
func modes() string {
	names := []string{string(Auto)}
	for _, e := range tiers {
		names = append(names, string(e.mode))
	}
	last := len(names) - 1
	return strings.Join(names[:last], ", ") + " or " + names[last]
}

// name returns how a tier is called in messages.
func (m Mode) name() string {
	if t, ok := tierOf(m); ok {
		return t.name()
	}
	return string(m)
}
