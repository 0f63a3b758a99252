package repl

import (
	"testing"

	"harness/approve"
)

func TestParseAnswer(t *testing.T) {
	for in, want := range map[string]approve.Answer{
		"y": approve.Yes, "Y": approve.Yes, " yes ": approve.Yes,
		"a": approve.Always, "always": approve.Always,
		"": approve.No, "n": approve.No, "no": approve.No, "sure": approve.No, "yy": approve.No,
	} {
		if got := parseAnswer(in); got != want {
			t.Errorf("parseAnswer(%q) = %v, want %v", in, got, want)
		}
	}
}
