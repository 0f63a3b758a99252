package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"harness/ollama"
	"harness/protocol"
)

// TestFakeOllamaCommand starts `harness fake-ollama`, reads the address it
// prints, talks to it with the real client and stops it as Ctrl-C would.
// Its banner says which --host and --model to pass.
func TestFakeOllamaCommand(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.fake")
	logPath := filepath.Join(dir, "log.jsonl")
	if err := os.WriteFile(script, []byte(">>> expect=ping\npong\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- execute(ctx, []string{"fake-ollama", "--script", script, "--model", "tiny", "--log", logPath}, nil, pw, &stderr)
		pw.Close()
	}()
	addr, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no address printed: %v (stderr %q)", err, stderr.String())
	}
	go io.Copy(io.Discard, pr)
	host, err := ollama.ParseHost(strings.TrimSpace(addr))
	if err != nil {
		t.Fatal(err)
	}
	reply, err := ollama.New(host, "tiny", ollama.Options{NumCtx: 1024}).Chat(ctx, protocol.Request{
		Messages: []protocol.Message{{Role: protocol.User, Content: "ping"}},
	}, nil)
	if err != nil || reply.Content != "pong" {
		t.Fatalf("reply %+v, err %v", reply, err)
	}
	cancel()
	if c := <-code; c != exitOK {
		t.Errorf("exit code %d, stderr %q", c, stderr.String())
	}
	// The banner says how to use the server: its address and its model.
	if want := "use it with: harness --host " + strings.TrimSpace(addr) + " --model tiny\n"; !strings.HasSuffix(stderr.String(), want) {
		t.Errorf("banner %q, want it to end with %q", stderr.String(), want)
	}
	logged, err := os.ReadFile(logPath)
	if err != nil || !bytes.Contains(logged, []byte(`"ping"`)) {
		t.Errorf("request log %q, %v", logged, err)
	}
}

// TestFakeOllamaWindow: with --enforce-window the server refuses, as
// Ollama does, a prompt longer than the request's num_ctx, and
// --context-length is what /api/show says the model holds.
func TestFakeOllamaWindow(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.fake")
	if err := os.WriteFile(script, []byte(">>>\npong\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- execute(ctx, []string{"fake-ollama", "--script", script, "--enforce-window", "--context-length", "2048"}, nil, pw, io.Discard)
		pw.Close()
	}()
	addr, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no address printed: %v", err)
	}
	go io.Copy(io.Discard, pr)
	host, err := ollama.ParseHost(strings.TrimSpace(addr))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := ollama.New(host, "fake", ollama.Options{}).ContextLength(ctx); n != 2048 || err != nil {
		t.Errorf("ContextLength = %d, %v; want 2048", n, err)
	}
	// 4400 bytes are 1100 tokens by the fake's count: over a num_ctx of 1024.
	_, err = ollama.New(host, "fake", ollama.Options{NumCtx: 1024}).Chat(ctx, protocol.Request{
		Messages: []protocol.Message{{Role: protocol.User, Content: strings.Repeat("x", 4400)}},
	}, nil)
	if !errors.Is(err, ollama.ErrRefused) || !strings.Contains(err.Error(), "the input length exceeds the context length") {
		t.Errorf("a prompt over the window: %v", err)
	}
	reply, err := ollama.New(host, "fake", ollama.Options{NumCtx: 2048}).Chat(ctx, protocol.Request{
		Messages: []protocol.Message{{Role: protocol.User, Content: strings.Repeat("x", 4400)}},
	}, nil)
	if err != nil || reply.Content != "pong" {
		t.Errorf("a prompt inside the window: %+v, %v", reply, err)
	}
	cancel()
	if c := <-code; c != exitOK {
		t.Errorf("exit code %d", c)
	}
}
