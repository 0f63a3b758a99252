package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"harness/chat"
	"harness/loop"
	"harness/protocol"
	"harness/repl"
)

// replTools builds the chat tools of a workspace as the REPL gets them,
// with questions written to out and answered by the lines given to the
// asker it returns.
func replTools(t *testing.T, flags safetyFlags, out *bytes.Buffer) (loop.Tools, *repl.Asker, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &workspaceFlags{Workspace: dir}
	tb, err := w.tools(&flags, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	asker := &repl.Asker{Out: out}
	c := &chatCmd{workspaceFlags: *w, safetyFlags: flags}
	ch, err := c.chain(tb, "", "", asker, &chat.Approvals{Log: out}, &fallback{log: out}, func() int { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ch.out.Close() })
	return ch.gate, asker, dir
}

func writeCall(id, path string) protocol.Call {
	return protocol.Call{ID: id, Name: "write_file", Args: map[string]any{"path": path, "content": "x"}}
}

// The REPL's input lines answer the questions, and the answers show in its
// output as typed lines would. A question to write a file shows the file
// it would write first.
func TestREPLAnswers(t *testing.T) {
	var out bytes.Buffer
	ts, asker, dir := replTools(t, safetyFlags{Sandbox: "none"}, &out)
	asker.Use(repl.PlainInput(strings.NewReader("y\nno\nalways\n"), &out, true))
	ctx := context.Background()

	if res := ts.Run(ctx, writeCall("call_1", "b.txt")); !res.OK {
		t.Errorf("answered y: %+v", res)
	}
	if res := ts.Run(ctx, writeCall("call_2", "c.txt")); res.OK || !strings.Contains(res.Body, "the user said no") {
		t.Errorf("answered no: %+v", res)
	}
	bash := protocol.Call{ID: "call_3", Name: "bash", Args: map[string]any{"command": "ls"}}
	for range 2 {
		if res := ts.Run(ctx, bash); !res.OK || !strings.Contains(res.Body, "a.txt") {
			t.Errorf("answered always: %+v", res)
		}
	}
	newFile := func(name string) string {
		return "--- /dev/null\n+++ b/" + name + "\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n"
	}
	want := newFile("b.txt") + "Run write_file: b.txt? [y/N/a(lways)] y\n" +
		newFile("c.txt") + "Run write_file: c.txt? [y/N/a(lways)] no\n" +
		"Run bash: ls? [y/N/a(lways)] always\n"
	if out.String() != want {
		t.Errorf("the REPL shows:\n%s\nwant:\n%s", out.String(), want)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err != nil {
		t.Error("b.txt was not written")
	}
	if _, err := os.Stat(filepath.Join(dir, "c.txt")); err == nil {
		t.Error("c.txt was written against a no")
	}
}

// Before the REPL gives its lines, and after they end, nobody can answer.
func TestREPLNobody(t *testing.T) {
	var out bytes.Buffer
	ts, asker, _ := replTools(t, safetyFlags{Sandbox: "none"}, &out)
	if res := ts.Run(context.Background(), writeCall("call_1", "b.txt")); res.OK || !strings.Contains(res.Body, "nobody could approve it") {
		t.Errorf("no lines yet: %+v", res)
	}
	asker.Use(repl.PlainInput(strings.NewReader(""), &out, true))
	if res := ts.Run(context.Background(), writeCall("call_2", "b.txt")); res.OK || !strings.Contains(res.Body, "the input ended") {
		t.Errorf("input ended: %+v", res)
	}
}

// Ctrl-C during a question ends it as an interruption.
func TestREPLQuestionInterrupted(t *testing.T) {
	var out bytes.Buffer
	ts, asker, _ := replTools(t, safetyFlags{Sandbox: "none"}, &out)
	pr, pw := io.Pipe()
	defer pw.Close()
	asker.Use(repl.PlainInput(pr, &out, true))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res := ts.Run(ctx, writeCall("call_1", "b.txt")); res.OK || res.Body != "interrupted" {
		t.Errorf("interrupted question: %+v", res)
	}
}

// Bad safety flags are usage errors that name the flag.
func TestSafetyFlagErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		flags safetyFlags
		want  string
	}{
		{safetyFlags{BashAllow: []string{"eval"}}, "--bash-allow"},
		{safetyFlags{BashBlock: []string{"a b"}}, "--bash-allow/--bash-block"},
		{safetyFlags{SandboxWrite: []string{filepath.Join(dir, "missing")}}, "--sandbox-write"},
	} {
		_, err := (&workspaceFlags{Workspace: dir}).tools(&tt.flags, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err = %v, want it to name %s", tt.flags, err, tt.want)
		}
	}
}

// harness prompt shows the bash tool, built with the defaults.
func TestPromptListsBash(t *testing.T) {
	var out, errs bytes.Buffer
	if code := execute(context.Background(), []string{"prompt", "-w", t.TempDir()}, strings.NewReader(""), &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if !strings.Contains(out.String(), "\nbash: Run a command line with bash") {
		t.Errorf("prompt lacks bash:\n%s", out.String())
	}
}
