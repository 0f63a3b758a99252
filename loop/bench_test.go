package loop_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"harness/fakemodel"
	"harness/loop"
	"harness/protocol"
	"harness/tools"
)

// benchScript parses a fake-model script or stops the benchmark.
func benchScript(b *testing.B, text string) *fakemodel.Script {
	b.Helper()
	s, err := fakemodel.Parse("bench.fake", []byte(text))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkStep is one turn of one step: the model answers at once and no
// tool runs. It is the loop's fixed cost per model call.
func BenchmarkStep(b *testing.B) {
	script := benchScript(b, ">>>\nThe answer is 42.\n")
	set, err := tools.NewSet()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	cfg := loop.Config{System: strings.Repeat("system prompt ", 200)}
	b.ReportAllocs()
	for b.Loop() {
		a := loop.New(fakemodel.New(script), set, cfg, loop.Observe(func(loop.Event) {}))
		if _, err := a.Turn(ctx, "what is the answer?"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTurn20 is a 20-step turn: 19 read_file calls of a 2.5 KB file
// each, then an answer, with the harness's file tools and long outputs.
func BenchmarkTurn20(b *testing.B) {
	dir := b.TempDir()
	var s strings.Builder
	for n := 1; n < 20; n++ {
		name := fmt.Sprintf("f%02d.go", n)
		body := strings.Repeat(fmt.Sprintf("func f%d(a, b int) int { return a*b + %d }\n", n, n), 80)[:2560]
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&s, ">>>\nReading %s.\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":%q}}\n", name, name)
	}
	s.WriteString(">>>\nDone.\n")
	script := benchScript(b, s.String())
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	set, err := tools.NewSet(tools.ReadFile(ws), tools.ListFiles(ws), tools.EditFile(ws), tools.WriteFile(ws))
	if err != nil {
		b.Fatal(err)
	}
	ts := tools.WithOutputs(set, "")
	defer ts.Close()
	cfg := loop.Config{System: protocol.SystemPrompt(ws.Root(), ts.Specs())}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		budget := &loop.Budget{ModelCalls: 200, Repeats: 3, Window: 8}
		a := loop.New(fakemodel.New(script), ts, cfg, budget, loop.Observe(func(loop.Event) {}))
		answer, err := a.Turn(ctx, "read the files")
		if err != nil || answer != "Done." {
			b.Fatalf("answer %q, err %v", answer, err)
		}
	}
}
