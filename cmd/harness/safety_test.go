package main

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
		{approve.Unanswered, "nobody", "all runs everything without asking"},
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

func TestByteSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64 // 0: refused
	}{
		{"1GiB", 1 << 30},
		{"1G", 1 << 30},
		{"2gb", 2 << 30},
		{"100MiB", 100 << 20},
		{"512K", 512 << 10},
		{"512k", 512 << 10},
		{"4096", 4096},
		{"100B", 100},
		{" 7M ", 7 << 20},
		{"0", 0},
		{"-1G", 0},
		{"1T", 0},
		{"1.5G", 0},
		{"G", 0},
		{"", 0},
		{"9223372036854775807G", 0},
	}
	for _, tt := range tests {
		var b byteSize
		err := b.UnmarshalText([]byte(tt.in))
		if tt.want == 0 && err == nil || tt.want != 0 && (err != nil || int64(b) != tt.want) {
			t.Errorf("UnmarshalText(%q) = %d, %v; want %d", tt.in, b, err, tt.want)
		}
	}
}
