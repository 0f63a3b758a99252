package mcp

import "testing"

// A server's tool name reaches the result header (TOOL_RESULT <id>
// <tool> ...) and the prompt: only names that cannot break them are
// offered.
func TestNameOK(t *testing.T) {
	for name, want := range map[string]bool{
		"read":                    true,
		"get_weather-v2.x":        true,
		"":                        false,
		"two words":               false,
		"tab\there":               false,
		"line\nbreak":             false,
		`quote"d`:                 false,
		`back\slash`:              false,
		"café":                    false,
		"del\x7f":                 false,
		string(make([]byte, 129)): false,
	} {
		if got := nameOK(name); got != want {
			t.Errorf("nameOK(%q) = %v, want %v", name, got, want)
		}
	}
	long := ""
	for range 128 {
		long += "a"
	}
	if !nameOK(long) || nameOK(long+"a") {
		t.Errorf("a name of 128 letters is offered, and one of 129 is not")
	}
}
