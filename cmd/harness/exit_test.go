package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestExitCodes checks each exit code of the CLI against a case that must
// produce it.
func TestExitCodes(t *testing.T) {
	f := writeFakes(t, "hi")
	dir, answer, loops, slow, empty, cancelled, terminated := f.dir, f.answer, f.loops, f.slow, f.empty, f.cancelled, f.terminated
	tests := []struct {
		name string
		ctx  context.Context
		args []string
		want int
	}{
		{"answer", context.Background(), []string{"-w", dir, "--fake", answer, "-p", "hi"}, exitOK},
		{"model error", context.Background(), []string{"-w", dir, "--fake", empty, "-p", "hi"}, exitError},
		{"bad flag", context.Background(), []string{"--no-such-flag"}, exitUsage},
		{"bad lie", context.Background(), []string{"--lie", "nope", "-p", "hi"}, exitUsage},
		{"no room in the window", context.Background(), []string{"-w", dir, "--fake", answer, "--num-ctx", "4096", "--max-tokens", "4096", "-p", "hi"}, exitUsage},
		{"too large for the window", context.Background(), []string{"-w", dir, "--fake", answer, "--num-ctx", "2048", "-p", strings.Repeat("word ", 2000)}, exitError},
		{"limit", context.Background(), []string{"-w", dir, "--fake", loops, "--max-steps", "1", "-p", "hi"}, exitLimit},
		{"interrupted", cancelled, []string{"-w", dir, "--fake", slow, "-p", "hi"}, exitInterrupt},
		{"terminated", terminated, []string{"-w", dir, "--fake", slow, "-p", "hi"}, 128 + int(syscall.SIGTERM)},
		{"help", context.Background(), []string{"--help"}, exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := execute(tt.ctx, tt.args, nil, io.Discard, io.Discard); got != tt.want {
				t.Errorf("exit code %d, want %d", got, tt.want)
			}
		})
	}
}

// fakes are the fake-model scripts the exit tests run, written in dir,
// which is also their workspace: one that answers, one whose calls go on
// for ever, one that answers after 30 s, and one with no reply; and the
// contexts of a run interrupted and of one SIGTERM ended.
type fakes struct {
	dir, answer, loops, slow, empty string
	cancelled, terminated           context.Context
}

// writeFakes writes the fakes, the first one answering answer.
func writeFakes(t *testing.T, answer string) fakes {
	t.Helper()
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	terminated, end := context.WithCancelCause(context.Background())
	end(&signalled{sig: syscall.SIGTERM})
	return fakes{
		cancelled:  cancelled,
		terminated: terminated,
		dir:        dir,
		answer:     script("answer.fake", ">>>\n"+answer+"\n"),
		loops:      script("loop.fake", ">>>\nTOOL_CALL {\"name\":\"list_files\",\"arguments\":{}}\n>>>\nTOOL_CALL {\"name\":\"list_files\",\"arguments\":{\"path\":\"x\"}}\n"),
		slow:       script("slow.fake", ">>> delay=30s\nhi\n"),
		empty:      script("empty.fake", ""),
	}
}

// TestReadmeDemo runs the README's first command: the demo must keep
// working, with no Ollama, on a fresh checkout.
func TestReadmeDemo(t *testing.T) {
	demo := filepath.Join("..", "..", "testdata", "demo")
	var out, errs strings.Builder
	code := execute(context.Background(), []string{"-w", filepath.Join(demo, "project"), "--fake", filepath.Join(demo, "explore.fake"),
		"-p", "explore this project and tell me what it is about"}, nil, &out, &errs)
	if code != exitOK || !strings.Contains(out.String(), "This is **greet**") || strings.Count(errs.String(), "tool-success:") != 4 {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out.String(), errs.String())
	}
}
