package chat

import (
	"testing"

	"harness/approve"
)

// Every outcome has its record word and hint, and no rewording of a
// decision's Why changes them.
func TestDecisionWord(t *testing.T) {
	tests := []struct {
		outcome approve.Outcome
		word    string
		hint    string
	}{
		{approve.ModeAllowed, "", ""},
		{approve.CheckRefused, "", ""},
		{approve.ModeDenied, "no", "deny refuses every call"},
		{approve.UserYes, "yes", ""},
		{approve.UserAlways, "always", ""},
		{approve.AlwaysBefore, "always", ""},
		{approve.UserNo, "no", ""},
		{approve.Unanswered, "nobody", "all runs calls without asking, secrets aside"},
		{approve.SecretKept, "nobody", "all keeps protected files and secrets; with ask, you are asked"},
		{approve.Interrupted, "nobody", ""},
	}
	whys := []string{"", "mode deny", "the user said yes", "the user said always", "the user said always before", "the user said no", "nobody could approve it", "reworded entirely"}
	for _, tt := range tests {
		for _, why := range whys {
			d := approve.Decision{Outcome: tt.outcome, Why: why}
			if got := decisionWord(d); got != tt.word {
				t.Errorf("%v (why %q): word %q, want %q", tt.outcome, why, got, tt.word)
			}
			if got := hint(d); got != tt.hint {
				t.Errorf("%v (why %q): hint %q, want %q", tt.outcome, why, got, tt.hint)
			}
		}
	}
}
