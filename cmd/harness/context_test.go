package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"harness/chat"
	"harness/protocol"
	"harness/view"
)

// TestShowContextInstructions: /context counts the project instructions
// the system prompt holds apart from the rest of it.
func TestShowContextInstructions(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no SYSTEM.md of the user's
	dir := t.TempDir()
	script := filepath.Join(dir, "model.fake")
	agents := "Answer in French. " + strings.Repeat("Keep it short. ", 60)
	for name, text := range map[string]string{script: ">>>\nbonjour\n", filepath.Join(dir, "AGENTS.md"): agents} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	c := &chatCmd{Prompt: "hi", workspaceFlags: workspaceFlags{Workspace: dir}, modelFlags: modelFlags{Fake: script, providerFlags: providerFlags{NumCtx: 4096}},
		safetyFlags: safetyFlags{Sandbox: "none"}, sessionFlags: sessionFlags{NoSession: true}}
	w, err := c.wire(context.Background(), stdio{in: strings.NewReader(""), out: &log, err: &log}, nil, tempDirs(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := w.chat
	defer r.Close()
	got := chat.InstructionsIn(r.Config.System, protocol.SystemPrompt(r.Root(), r.Tools().Specs()))
	if !strings.HasPrefix(got, "\n# Instructions from AGENTS.md\nAnswer in French. Keep it short.") || !strings.HasSuffix(r.Config.System, got) {
		t.Fatalf("instructions = %q", got)
	}
	var out bytes.Buffer
	r.Start(&view.Turn{Out: &log, Log: &log})
	if err := r.ShowContext(&out); err != nil {
		t.Fatal(err)
	}
	// 930 bytes of instructions are about 230 tokens.
	if !regexp.MustCompile(`\n  instructions +2\d\d +[56]%  #\n`).MatchString(out.String()) {
		t.Errorf("/context does not count the instructions:\n%s", out.String())
	}
}
