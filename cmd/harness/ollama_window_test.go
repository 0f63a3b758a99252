//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"harness/fakemodel"
	"harness/fakemodel/tiny"
	"harness/record"
)

// The tests in this file run the harness against a real Ollama server and
// the tiny model, as those of ollama_integration_test.go do (and are
// skipped, like them, without HARNESS_OLLAMA_BIN), with conversations that
// outgrow --num-ctx: the server refuses them without compaction, and they
// complete with it.

// conversationTimeout bounds a run of several turns on the tiny model,
// which evaluates thousands of prompt tokens a step on a CPU.
const conversationTimeout = 5 * time.Minute

// promptSize is the bytes of the system prompt for the workspace ws: about
// as many tokens for the tiny model, which spends one token per byte.
func promptSize(t *testing.T, ws string) int {
	t.Helper()
	r := runHarness(t, "prompt", "-w", ws)
	if r.code != exitOK {
		t.Fatalf("harness prompt: exit code %d", r.code)
	}
	return len(r.stdout)
}

// TestOllamaCompactionElides: a tool result that does not fit the window
// with the system prompt is replaced by a line saying so, and the turn
// completes; without compaction, the server refuses the request that
// carries it.
func TestOllamaCompactionElides(t *testing.T) {
	t.Parallel()
	srv := startOllama(t)
	srv.createTiny(t)
	var names []string
	for i := range 40 {
		names = append(names, fmt.Sprintf("a-file-with-a-rather-long-name-%02d.txt", i))
	}
	ws := workspace(t, names...)
	// The listing is 1.6k tokens: room for the question, the call and its
	// result's line, not for the listing.
	numCtx := fmt.Sprint(promptSize(t, ws) + 600)

	rec := newChatRecorder(t, srv.addr)
	r := runHarness(t, "-w", ws, "--host", rec.addr(), "-m", tinyName, "--num-ctx", numCtx, "--max-tokens", "100", "--no-compact", "-p", "list the files")
	if r.code != exitError || !regexp.MustCompile(`(?m)^harness: .*exceeds the context length`).MatchString(r.stderr) {
		t.Errorf("without compaction: exit code %d; want %d and the server's refusal", r.code, exitError)
	}
	if ex := rec.recorded(); len(ex) != 2 || ex[1].status != http.StatusBadRequest {
		t.Errorf("without compaction: %d requests, want 2, the second refused", len(ex))
	}

	rec = newChatRecorder(t, srv.addr)
	r = runHarness(t, "-w", ws, "--host", rec.addr(), "-m", tinyName, "--num-ctx", numCtx, "--max-tokens", "100", "-p", "list the files")
	if r.code != exitOK || r.stdout != tiny.Answer+"\n" {
		t.Errorf("with compaction: exit code %d, stdout %q; want %d and the answer", r.code, r.stdout, exitOK)
	}
	if !regexp.MustCompile(`(?m)^compacted: .*\(1 result too large for the window elided\)$`).MatchString(r.stderr) {
		t.Error("stderr does not show the result elided")
	}
	ex := rec.recorded()
	if len(ex) != 2 {
		t.Fatalf("with compaction: %d requests, want 2", len(ex))
	}
	for i, e := range ex {
		if e.status != http.StatusOK {
			t.Errorf("request %d: HTTP %d", i+1, e.status)
		}
	}
	msgs := ex[1].req.Messages
	if last := msgs[len(msgs)-1].Content; !strings.HasPrefix(last, "TOOL_RESULT call_1 list_files SUCCESS\n[result of call_1 list_files . elided: too large for the context window (") {
		t.Errorf("the second request ends with %q", last)
	}
}

// TestOllamaCompaction: a REPL conversation of five turns, each listing
// the workspace, outgrows the window by the third or fourth: without
// compaction the server refuses the turns from then on; with it, every
// turn is answered, and between compactions each request extends the one
// before, byte for byte, as the server's prompt cache needs.
func TestOllamaCompaction(t *testing.T) {
	t.Parallel()
	srv := startOllama(t)
	srv.createTiny(t)
	var names []string
	for i := range 12 {
		names = append(names, fmt.Sprintf("a-file-with-a-rather-long-name-number-%02d.txt", i))
	}
	ws := workspace(t, names...)
	numCtx := fmt.Sprint(promptSize(t, ws) + 2200)
	const turns = 5
	input := strings.Repeat("list the files\n", turns)
	// The tiny model makes the same call at every turn: that is what it
	// is asked for, not going round in circles.
	args := []string{"-w", ws, "-m", tinyName, "--num-ctx", numCtx, "--max-repeats", "0"}

	rec := newChatRecorder(t, srv.addr)
	r := runREPL(t, input, append(args, "--host", rec.addr(), "--no-compact")...)
	if !strings.Contains(r.stderr, "exceeds the context length") {
		t.Errorf("without compaction, no turn was refused:\n%s", r.stderr)
	}
	if n := strings.Count(r.stdout, "Assistant: "+tiny.Answer); n == turns {
		t.Errorf("without compaction, all %d turns were answered: the conversation fits, the test proves nothing", n)
	}

	rec = newChatRecorder(t, srv.addr)
	path := filepath.Join(t.TempDir(), "run.jsonl")
	r = runREPL(t, input, append(args, "--host", rec.addr(), "--record", path)...)
	if r.stderr != "" {
		t.Errorf("with compaction, errors:\n%s", r.stderr)
	}
	if n := strings.Count(r.stdout, "Assistant: "+tiny.Answer); n != turns {
		t.Errorf("with compaction, %d of %d turns answered", n, turns)
	}
	if !regexp.MustCompile(`(?m)^compacted: .* older results? masked`).MatchString(r.stdout) {
		t.Error("no compaction masked a result")
	}
	var reqs []api.ChatRequest
	for i, e := range rec.recorded() {
		if e.status != http.StatusOK {
			t.Errorf("request %d: HTTP %d", i+1, e.status)
		}
		reqs = append(reqs, e.req)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines, err := record.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := splitAtCompactions(lines, reqs, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, run := range runs {
		if err := fakemodel.CheckPrefixes(run); err != nil {
			t.Errorf("requests after compaction %d: %v", i, err)
		}
	}
	t.Logf("%d requests, %d compactions", len(reqs), len(runs)-1)
}

// runREPL runs the real harness binary's REPL with input on its stdin, as
// runHarness runs a command.
func runREPL(t *testing.T, input string, args ...string) harnessRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), conversationTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "harness", args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1", "HARNESS_MODEL=", "OLLAMA_HOST=127.0.0.1:1")
	cmd.Stdin = strings.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("harness %s: no end within %v\nstdout:\n%s", strings.Join(args, " "), conversationTimeout, tail(stdout.String(), 40))
	case err != nil && !errors.As(err, &exit):
		t.Fatalf("harness %s: %v", strings.Join(args, " "), err)
	}
	r := harnessRun{stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("harness %s\nexit code %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, tail(r.stdout, 60), r.stderr)
		}
	})
	return r
}
