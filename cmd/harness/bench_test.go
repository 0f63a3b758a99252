package main

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"harness/fakemodel"
	"harness/xdg"
)

// benchSession writes a workspace of steps-1 files of 2.5 KB and the script
// of a session that reads them one by one, then answers.
func benchSession(b *testing.B, steps int) (dir string, script *fakemodel.Script) {
	b.Helper()
	dir = b.TempDir()
	var s strings.Builder
	for n := 1; n < steps; n++ {
		name := fmt.Sprintf("f%03d.go", n)
		body := strings.Repeat(fmt.Sprintf("func f%d(a, b int) int { return a*b + %d }\n", n, n), 80)[:2560]
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&s, ">>>\nReading %s.\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":%q}}\n", name, name)
	}
	s.WriteString(">>>\nDone.\n")
	script, err := fakemodel.Parse("bench.fake", []byte(s.String()))
	if err != nil {
		b.Fatal(err)
	}
	return dir, script
}

// BenchmarkSession20 is `harness -p` in process: a 20-step session over
// HTTP against the fake Ollama server, with the real Ollama adapter, CLI
// parsing, tools, budget and rendering. The server's own work is included.
// It runs saving the session, as by default, and with --no-session.
func BenchmarkSession20(b *testing.B) {
	for _, bb := range []struct {
		name  string
		extra []string
	}{{"saved", nil}, {"no-session", []string{"--no-session"}}} {
		b.Run(bb.name, func(b *testing.B) { benchmarkSession(b, 20, bb.extra...) })
	}
}

// BenchmarkSession400 is the same over 400 steps, where the conversation
// grows to 1.1 MB: what the harness does at every step, over the whole
// conversation, shows here. Profile it with -cpuprofile and -memprofile,
// leaving out the server (pprof -ignore fakemodel).
func BenchmarkSession400(b *testing.B) { benchmarkSession(b, 400) }

func benchmarkSession(b *testing.B, steps int, extra ...string) {
	dir, script := benchSession(b, steps)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		srv := httptest.NewServer(fakemodel.NewServer(script).Handler())
		b.StartTimer()
		args := []string{"-w", dir, "--host", srv.Listener.Addr().String(), "-m", "fake",
			"--max-steps", fmt.Sprint(steps), "--max-model-calls", fmt.Sprint(steps), "-p", "read the files"}
		if code := execute(ctx, append(args, extra...), nil, io.Discard, io.Discard); code != exitOK {
			b.Fatalf("exit code %d", code)
		}
		b.StopTimer()
		srv.Close()
		b.StartTimer()
	}
}

// BenchmarkPrompt is `harness prompt` in process: parsing the command line,
// building the tools and the system prompt. It is the set-up every run pays.
func BenchmarkPrompt(b *testing.B) {
	dir := b.TempDir()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if code := execute(ctx, []string{"prompt", "-w", dir}, nil, io.Discard, io.Discard); code != exitOK {
			b.Fatalf("exit code %d", code)
		}
	}
}

// BenchmarkLongReply is a whole run in process whose one turn gets a reply
// of 1000 or 10000 lines from the scripted model: in the REPL, which shows
// the reply as it streams, and with -p, which prints it once at the end.
// The REPL should cost little more than -p.
func BenchmarkLongReply(b *testing.B) {
	dir := b.TempDir()
	ctx := context.Background()
	for _, lines := range []int{1000, 10000} {
		script := filepath.Join(dir, fmt.Sprintf("long%d.fake", lines))
		if err := os.WriteFile(script, []byte(">>>\n"+longReply(lines)), 0o644); err != nil {
			b.Fatal(err)
		}
		for _, mode := range []struct {
			name string
			args []string
			in   string
		}{{"repl", nil, "explain\n"}, {"print", []string{"-p", "explain"}, ""}} {
			b.Run(fmt.Sprintf("%s/%d", mode.name, lines), func(b *testing.B) {
				args := append([]string{"-w", dir, "--fake", script}, mode.args...)
				b.ReportAllocs()
				for b.Loop() {
					if code := execute(ctx, args, strings.NewReader(mode.in), io.Discard, io.Discard); code != exitOK {
						b.Fatalf("exit code %d", code)
					}
				}
			})
		}
	}
}

// longReply is an answer of n lines of prose.
func longReply(n int) string {
	var reply strings.Builder
	for i := range n {
		fmt.Fprintf(&reply, "Line %d of a long explanation, the kind a model writes about code.\n", i)
	}
	return reply.String()
}

// BenchmarkVersion is `harness --version` in process: building the command
// line's parser (the chat command's alone, as for every line that names no
// other command), the part of every run's start that the program itself
// does after its packages are initialized.
func BenchmarkVersion(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if code := execute(ctx, []string{"--version"}, nil, io.Discard, io.Discard); code != exitOK {
			b.Fatalf("exit code %d", code)
		}
	}
}

// BenchmarkParse is parsing a command line, without running it: one of
// the default command, parsed by the chat command's parser, and one of
// another command, and one with an error, parsed by the whole command
// line's (the error's after the chat command's failed).
func BenchmarkParse(b *testing.B) {
	ctx := context.Background()
	dirs := xdg.OS()
	for _, bb := range []struct {
		name string
		args []string
	}{
		{"chat", []string{"-w", "dir", "-m", "qwen3", "--max-steps", "30", "-p", "what does this project do?"}},
		{"prompt", []string{"prompt", "-w", "dir"}},
		{"error", []string{"-w", "dir", "--max-steps", "x"}},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				parseLine(ctx, dirs, bb.args, stdio{out: io.Discard, err: io.Discard}, chatOnly(bb.args))
			}
		})
	}
}
