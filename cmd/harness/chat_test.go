package main

import (
	"regexp"
	"testing"

	"harness/protocol"
)

func TestDefaultTestPattern(t *testing.T) {
	is := isTest(regexp.MustCompile(testPattern))
	for cmd, want := range map[string]bool{
		"go test ./...":                   true,
		"go vet ./... && go test ./loop":  true,
		"cargo test; echo done":           true,
		"python3 -m pytest -q":            true,
		"python -m unittest":              true,
		"echo go test ok":                 false,
		"grep -r 'go test' .":             false,
		"go testdata":                     false,
		"ls && echo cargo test would run": false,
	} {
		if got := is(protocol.Call{Name: "bash", Args: map[string]any{"command": cmd}}); got != want {
			t.Errorf("%q: test run %v, want %v", cmd, got, want)
		}
	}
	if is(protocol.Call{Name: "read_file", Args: map[string]any{"path": "go test"}}) {
		t.Error("a call without a command counted as a test run")
	}
}
