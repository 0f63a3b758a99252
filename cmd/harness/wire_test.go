package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"harness/protocol"
	"harness/tools"
	"harness/xdg"
)

func TestDefaultTestPattern(t *testing.T) {
	is := tools.RunsTests(regexp.MustCompile(testPattern))
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

// The turn report names what each call that wrote acted on.
func TestTarget(t *testing.T) {
	for _, tt := range []struct {
		call protocol.Call
		want string
	}{
		{protocol.Call{ID: "call_2", Name: "agent", Args: map[string]any{"task": "fix it"}}, "helper call_2"},
		{protocol.Call{Name: "bash", Args: map[string]any{"command": "go test"}}, "$ go test"},
		{protocol.Call{Name: "write_file", Args: map[string]any{"path": "a.go"}}, "a.go"},
		{protocol.Call{Name: "web.post", Args: map[string]any{"url": "x"}}, "web.post"},
	} {
		if got := target(tt.call); got != tt.want {
			t.Errorf("target(%s) = %q, want %q", tt.call.Name, got, tt.want)
		}
	}
}

// TestWiredPromptShowsTheWiredTools: the system prompt a chat starts with,
// and the one harness prompt prints, describe exactly the tools the chat
// runs, the agent tool included.
func TestWiredPromptShowsTheWiredTools(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "model.fake")
	if err := os.WriteFile(script, []byte(">>>\nhi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c := &chatCmd{Prompt: "hi", workspaceFlags: workspaceFlags{Workspace: dir}, modelFlags: modelFlags{Fake: script}, safetyFlags: safetyFlags{Sandbox: "none"}}
	w, err := c.wire(context.Background(), stdio{in: strings.NewReader(""), out: &out, err: &out}, nil, tempDirs(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := w.chat
	defer r.Close()
	if want := protocol.SystemPrompt(r.Root(), r.Tools().Specs()); r.Config.System != want {
		t.Errorf("the chat's system prompt is not that of its tools:\n%s\nwant\n%s", r.Config.System, want)
	}
	if !strings.Contains(r.Config.System, "\nagent: ") {
		t.Error("the agent tool is not in the system prompt")
	}
	out.Reset()
	if err := (&promptCmd{workspaceFlags: c.workspaceFlags}).Run(context.Background(), stdio{out: &out}, tempDirs(t)); err != nil {
		t.Fatal(err)
	}
	if out.String() != r.Config.System {
		t.Error("harness prompt prints another prompt than the chat's")
	}
}

// tempDirs are settings and state folders of a test's own, and no home
// folder.
func tempDirs(t *testing.T) xdg.Dirs {
	env := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "XDG_STATE_HOME": t.TempDir()}
	return xdg.Dirs{Getenv: func(k string) string { return env[k] }, Home: func() (string, error) { return "", errors.New("no home in this test") }}
}
