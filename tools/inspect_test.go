package tools

import (
	"testing"

	"harness/protocol"
)

// What the tools say of a call by its arguments alone.
func TestCallFacts(t *testing.T) {
	bash := func(cmd string) protocol.Call {
		return protocol.Call{Name: bashName, Args: map[string]any{"command": cmd}}
	}
	write := protocol.Call{Name: writeName, Args: map[string]any{"path": "a.go", "content": "x"}}
	read := protocol.Call{Name: readName, Args: map[string]any{"path": "a.go"}}
	if !OnlyReads(bash("ls -l | wc -l")) || OnlyReads(bash("rm a.go")) || OnlyReads(read) {
		t.Error("OnlyReads: wrong")
	}
	if p, ok := FileWritten(write); !ok || p != "a.go" {
		t.Errorf("FileWritten(write_file) = %q, %v", p, ok)
	}
	if _, ok := FileWritten(read); ok {
		t.Error("FileWritten(read_file): true")
	}
	if _, ok := FileWritten(bash("echo > a.go")); ok {
		t.Error("FileWritten(bash): true")
	}
	for call, want := range map[*protocol.Call]string{&write: "a.go", &read: "a.go"} {
		if got := Subject(*call); got != want {
			t.Errorf("Subject(%s) = %q", call.Name, got)
		}
	}
	if got := Subject(bash("go test")); got != "go test" {
		t.Errorf("Subject(bash) = %q", got)
	}
	if got := Target(bash("go test")); got != "$ go test" {
		t.Errorf("Target(bash) = %q", got)
	}
}
