package repl

import (
	"testing"

	"harness/approve"
)

func TestParseAnswer(t *testing.T) {
	tests := []struct {
		in   string
		want approve.Answer
		ok   bool
	}{
		{"y", approve.Yes, true},
		{"Y", approve.Yes, true},
		{" yes ", approve.Yes, true},
		{"a", approve.Always, true},
		{"ALWAYS", approve.Always, true},
		{"", approve.No, true},
		{"  ", approve.No, true},
		{"n", approve.No, true},
		{"No", approve.No, true},
		{"/tools", approve.No, false},
		{"sure", approve.No, false},
		{"yy", approve.No, false},
	}
	for _, tt := range tests {
		if got, ok := parseAnswer(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("parseAnswer(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
