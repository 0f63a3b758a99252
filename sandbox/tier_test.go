package sandbox

import (
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Each mode names one tier, and messages call it by its name.
func TestModeName(t *testing.T) {
	tests := []struct {
		mode Mode
		want string
	}{
		{Bwrap, "bubblewrap"},
		{Landlock, "Landlock"},
		{Seatbelt, "Seatbelt"},
		{None, "none"},
		{Auto, "auto"},
		{"sandbox-exec", "sandbox-exec"},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			if got := tt.mode.name(); got != tt.want {
				t.Errorf("name %q, want %q", got, tt.want)
			}
		})
	}
}

// The table holds each mode once; New takes every one of them, and Auto,
// and names them all when it refuses another.
func TestTiersTable(t *testing.T) {
	ws, _ := dirs(t)
	var seen []Mode
	for _, e := range tiers {
		if slices.Contains(seen, e.mode) || e.mode == Auto {
			t.Errorf("mode %q in the table twice, or Auto in it", e.mode)
		}
		seen = append(seen, e.mode)
		if _, err := New(Config{Mode: e.mode, Dir: ws}); err != nil {
			t.Errorf("New refuses mode %q: %v", e.mode, err)
		}
	}
	if _, err := New(Config{Mode: Auto, Dir: ws}); err != nil {
		t.Errorf("New refuses mode auto: %v", err)
	}
	const all = "auto, bwrap, landlock, seatbelt or none"
	if got := modes(); got != all {
		t.Errorf("modes() = %q, want %q", got, all)
	}
	if _, err := New(Config{Mode: "jail", Dir: ws}); err == nil || !strings.HasSuffix(err.Error(), "use "+all) {
		t.Errorf("an unknown mode: %v", err)
	}
}

// Auto tries, on each system, the tiers it has, in the table's order.
func TestAutoTiers(t *testing.T) {
	want := map[string][]Mode{
		"linux":  {Bwrap, Landlock},
		"darwin": {Seatbelt},
	}[runtime.GOOS]
	if got := autoTiers(); !slices.Equal(got, want) {
		t.Errorf("on %s Auto tries %q, want %q", runtime.GOOS, got, want)
	}
	if got, wantFirst := Preferred(), append(want, None)[0]; got != wantFirst {
		t.Errorf("Preferred() = %q, want %q", got, wantFirst)
	}
}

// Planned names the tier before Start, as the mode will try it first,
// and the tier Start found after it.
func TestPlanned(t *testing.T) {
	for _, tt := range []struct {
		mode Mode
		want string
	}{
		{Auto, Preferred().name()},
		{Bwrap, "bubblewrap"},
		{None, "none"},
	} {
		t.Run(string(tt.mode), func(t *testing.T) {
			s, err := New(Config{Mode: tt.mode, Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.TierName() != "" {
				t.Fatalf("started before Start: %q", s.TierName())
			}
			if got := s.Planned(); got != tt.want {
				t.Errorf("Planned before Start = %q, want %q", got, tt.want)
			}
		})
	}
	s, err := New(Config{Mode: None, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := s.Planned(); got != "none" || s.TierName() != "none" {
		t.Errorf("after Start: Planned %q, TierName %q", got, s.TierName())
	}
}
