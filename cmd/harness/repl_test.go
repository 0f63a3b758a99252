package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"

	"harness/loop"
	"harness/ollama"
	"harness/protocol"
	"harness/record"
	"harness/repl"
	"harness/tools"
)

func TestIsCommand(t *testing.T) {
	for line, want := range map[string]bool{
		"/help": true, "/model qwen3:8b": true, "/": true, "/model a/b": true,
		"/usr/bin/env is where?": false, "help": false, "x /help": false,
	} {
		if got := isCommand(line); got != want {
			t.Errorf("isCommand(%q) = %v, want %v", line, got, want)
		}
	}
}

// The commands table has one entry a name, and each says what it does.
func TestCommandsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands() {
		if seen[c.name] || c.name == "" || c.help == "" || c.run == nil || strings.Contains(c.name, "/") {
			t.Errorf("bad or repeated command %+v", c)
		}
		seen[c.name] = true
	}
}

// The advice for a model the server does not have is the same in the
// REPL and with -p, each naming what it can do: /model, or --model.
func TestModelAdvice(t *testing.T) {
	host, _ := url.Parse("http://127.0.0.1:9")
	const missing = `model not found: "qwen3" is not on the Ollama server at http://127.0.0.1:9`
	real := &ollama.MissingError{Model: "qwen3", Host: host, Have: []ollama.Available{{Name: "llama3", Family: "llama"}, {Name: "gemma3", Family: "gemma3"}}}
	empty := &ollama.MissingError{Model: "qwen3", Host: host}
	fake := &ollama.MissingError{Model: "qwen3", Host: host, Have: []ollama.Available{{Name: "fake", Family: "fake"}}}
	tests := []struct {
		name string
		err  error
		repl bool
		want string
	}{
		{"real server", real, true, missing + "; get it with: ollama pull qwen3, or type /model NAME with one it has: llama3, gemma3"},
		{"real server, -p", real, false, missing + "; get it with: ollama pull qwen3, or start again with --model NAME with one it has: llama3, gemma3"},
		{"empty server", empty, true, missing + "; get it with: ollama pull qwen3"},
		{"empty server, -p", empty, false, missing + "; get it with: ollama pull qwen3"},
		{"fake server", fake, true, missing + "; that server is a harness fake-ollama serving fake: start again with --model fake, or type /model fake"},
		{"fake server, -p", fake, false, missing + "; that server is a harness fake-ollama serving fake: start again with --model fake"},
		{"wrapped", fmt.Errorf("turn 1: %w", fake), false, "turn 1: " + missing + "; that server is a harness fake-ollama serving fake: start again with --model fake"},
		{"other error", errors.New("cannot reach it"), true, "cannot reach it"},
	}
	for _, tt := range tests {
		if got := modelAdvice(tt.err, tt.repl); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
	if err := advised(fake); err.Error() != modelAdvice(fake, false) || !errors.Is(err, ollama.ErrModelNotFound) {
		t.Errorf("advised(%v) = %v", fake, err)
	}
}

// writeTool writes files in a workspace, as write_file does, for the
// journal to watch.
type writeTool struct{ root string }

func (w writeTool) Specs() []protocol.ToolSpec {
	return []protocol.ToolSpec{{Name: "write_file", Writes: true}}
}

func (w writeTool) Run(_ context.Context, c protocol.Call) protocol.Result {
	path, content := c.Args["path"].(string), c.Args["content"].(string)
	if content == "fail" {
		return protocol.Result{CallID: c.ID, Tool: c.Name, Body: "failed"}
	}
	if err := os.WriteFile(filepath.Join(w.root, path), []byte(content), 0o600); err != nil {
		return protocol.Result{CallID: c.ID, Tool: c.Name, Body: err.Error()}
	}
	return protocol.Result{CallID: c.ID, Tool: c.Name, OK: true, Wrote: true, Body: "ok"}
}

func TestStrayWords(t *testing.T) {
	parser, err := kong.New(&cli{}, kong.Vars{"version": "test", "default_model": "m", "test_pattern": "x", "backends": backendNames(), "default_backend": backends[0].Name})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"hello", "there"}, []string{"hello", "there"}},
		{[]string{"-m", "qwen3", "hello"}, []string{"hello"}},
		{[]string{"--model=qwen3", "-w", "dir", "hi"}, []string{"hi"}},
		{[]string{"--lie", "joke", "--approve", "all", "hi"}, []string{"hi"}},
		{[]string{"--version", "hi"}, []string{"hi"}},
		{[]string{"replay", "a", "b"}, nil},
		{[]string{"-w", "dir", "prompt", "x"}, nil},
		{[]string{"-p"}, nil},
		{[]string{"--", "-p"}, []string{"-p"}},
		{[]string{"-p", "what", "does", "it", "do"}, []string{"what", "does", "it", "do"}},
		{[]string{"--prompt=what", "is", "this"}, []string{"what", "is", "this"}},
		{[]string{"-m", "q", "-p", "hi", "there", "--approve", "all"}, []string{"hi", "there"}},
		{[]string{"-p", "hi", "--bogus"}, nil},
		{[]string{"-p", "--max-steps", "3"}, nil},
	}
	for _, tt := range tests {
		if got := strayWords(parser.Model.Node, tt.args); !slices.Equal(got, tt.want) {
			t.Errorf("strayWords(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestRecordIsPrivate: a new --record file is its owner's alone, since it
// holds whatever the model read; an existing one keeps the mode it has.
func TestRecordIsPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no such modes")
	}
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept.jsonl")
	if err := os.WriteFile(kept, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(kept, 0o644) // whatever the umask
	for path, want := range map[string]os.FileMode{filepath.Join(dir, "new.jsonl"): 0o600, kept: 0o644} {
		_, done, err := openRecord(path, record.Start{})
		if err != nil {
			t.Fatal(err)
		}
		done()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", filepath.Base(path), fi.Mode().Perm(), want)
		}
	}
}

// stuckModel is a model whose call ignores its context: it returns only
// once released, as a call stuck in a system call would.
type stuckModel struct {
	called  chan struct{}
	release chan struct{}
}

func (m *stuckModel) Chat(ctx context.Context, _ protocol.Request, _ func(protocol.Delta)) (protocol.Reply, error) {
	close(m.called)
	<-m.release
	return protocol.Reply{}, ctx.Err()
}

// TestSecondInterruptQuits: a second Ctrl-C while a turn is still ending
// returns errQuitNow at once, without waiting for the turn, so that the
// REPL returns and the run's deferred close runs before the harness exits.
func TestSecondInterruptQuits(t *testing.T) {
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := &stuckModel{called: make(chan struct{}), release: make(chan struct{})}
	defer close(m.release)
	ts := writeTool{ws.Root()}
	r := &runner{budget: &loop.Budget{}, attach: &repl.Attacher{WS: ws, Tools: ts}}
	c := &console{r: r, out: io.Discard, in: repl.PlainInput(strings.NewReader(""), io.Discard, false),
		agent: loop.New(m, ts, loop.Config{System: "SYSTEM"})}
	sigs := make(chan os.Signal, 1)
	done := make(chan error, 1)
	go func() { done <- c.runTurn(context.Background(), "go", sigs) }()
	<-m.called
	sigs <- os.Interrupt
	select {
	case err := <-done:
		t.Fatalf("the first Ctrl-C ended the stuck turn at once: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	sigs <- os.Interrupt
	select {
	case err := <-done:
		if !errors.Is(err, errQuitNow) {
			t.Errorf("got %v, want errQuitNow", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a second Ctrl-C did not quit")
	}
}
