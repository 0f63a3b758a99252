package window_test

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
	"harness/window"
)

// longRun is a turn of many read_file steps, each reading a file of its
// own, in a small window that the model enforces.
type longRun struct {
	Steps    int // read_file steps before the answer
	FileSize int // bytes of each file
	Window   int // tokens
}

// longRunResult is what a long run sent and did.
type longRunResult struct {
	answer    string
	err       error
	requests  [][]protocol.Message // what each step sent, in order
	compacted []int                // for each compaction, the index of the request that followed it
	reports   []window.Report
	summaries int // summary requests
}

// path names the file read at step n.
func path(n int) string { return fmt.Sprintf("src/f%03d.go", n) }

// setup writes the workspace and returns the tools and the model's script.
func (r longRun) setup(tb testing.TB) (loop.Tools, string, *fakemodel.Script) {
	tb.Helper()
	dir := tb.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		tb.Fatal(err)
	}
	var s strings.Builder
	s.WriteString(">>> expect=\"read every file\"\n")
	for n := 1; n <= r.Steps; n++ {
		line := fmt.Sprintf("func f%d(a, b int) int { return a*b + %d }\n", n, n)
		body := strings.Repeat(line, r.FileSize/len(line)+1)[:r.FileSize]
		if err := os.WriteFile(filepath.Join(dir, path(n)), []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
		if n > 1 {
			fmt.Fprintf(&s, ">>> expect=\"TOOL_RESULT call_%d read_file SUCCESS\\nfunc f%d(\"\n", n-1, n-1)
		}
		fmt.Fprintf(&s, "Reading %s.\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":%q}}\n", path(n), path(n))
	}
	fmt.Fprintf(&s, ">>> expect=\"TOOL_RESULT call_%d read_file SUCCESS\"\nDone.\n", r.Steps)
	script, err := fakemodel.Parse("long.fake", []byte(s.String()))
	if err != nil {
		tb.Fatal(err)
	}
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		tb.Fatal(err)
	}
	set, err := tools.NewSet(tools.ReadFile(ws))
	if err != nil {
		tb.Fatal(err)
	}
	return set, protocol.SystemPrompt(ws.Root(), set.Specs()), script
}

// summaries is a script of n summaries.
func summaries(tb testing.TB, n int) *fakemodel.Script {
	var s strings.Builder
	for range n {
		s.WriteString(">>> expect=\"Write the summary\"\nDone: read the files of src one by one.\nLearned: each file fN.go defines one function fN(a, b int) int returning a*b + N.\nFiles changed: none.\nOpen: read the remaining files, then answer.\n")
	}
	script, err := fakemodel.Parse("summaries.fake", []byte(s.String()))
	if err != nil {
		tb.Fatal(err)
	}
	return script
}

// pathOf is the Target of read_file calls.
func pathOf(c protocol.Call) string {
	p, _ := c.Args["path"].(string)
	return p
}

// run runs the turn with a window-enforcing model and a Compactor that
// summarizes with a model enforcing the same window.
func (r longRun) run(tb testing.TB, set loop.Tools, system string, script *fakemodel.Script, cfg window.Config) longRunResult {
	tb.Helper()
	var res longRunResult
	model := fakemodel.New(script)
	model.SetWindow(r.Window)
	summarizer := fakemodel.New(summaries(tb, r.Steps))
	summarizer.SetWindow(r.Window)
	cfg.Summarizer = window.ModelSummarizer(summarizer, nil, loop.Observe(func(e loop.Event) {
		if e.Kind == loop.StepStarted && e.Origin == window.SummaryOrigin {
			res.summaries++
		}
	}))
	cfg.Target = pathOf
	c := window.New(cfg)
	a := loop.New(model, set, loop.Config{System: system, MaxSteps: r.Steps + 1, Window: r.Window, Compactor: c},
		loop.Observe(func(e loop.Event) {
			switch e.Kind {
			case loop.StepStarted:
				res.requests = append(res.requests, e.Request.Messages)
			case loop.Compacted:
				res.compacted = append(res.compacted, len(res.requests))
				res.reports = append(res.reports, c.Last())
				if last := c.Last(); e.Compaction.BeforeTokens != last.Before || e.Compaction.AfterTokens != last.After {
					tb.Errorf("the Compacted event carries %d -> %d tokens, Last says %d -> %d", e.Compaction.BeforeTokens, e.Compaction.AfterTokens, last.Before, last.After)
				}
			}
		}))
	res.answer, res.err = a.Turn(context.Background(), "read every file in src, one at a time, then say Done.")
	return res
}

// The run: 60 steps of 2 KB read_file results in a window of 4096.
var sixty = longRun{Steps: 60, FileSize: 2048, Window: 4096}

func TestLongTurnFitsTheWindow(t *testing.T) {
	set, system, script := sixty.setup(t)
	res := sixty.run(t, set, system, script, window.Config{})
	if res.err != nil || res.answer != "Done." {
		t.Fatalf("Turn = %q, %v", res.answer, res.err)
	}
	if len(res.requests) != sixty.Steps+1 {
		t.Fatalf("%d requests, want %d", len(res.requests), sixty.Steps+1)
	}
	if len(res.compacted) == 0 || res.summaries == 0 {
		t.Fatalf("%d compactions, %d summaries: the run never needed them?", len(res.compacted), res.summaries)
	}
	t.Logf("%d requests, %d compactions, %d summaries", len(res.requests), len(res.compacted), res.summaries)
	for i, rep := range res.reports {
		if rep.After >= rep.Before || rep.Masked+rep.Summarized == 0 {
			t.Errorf("compaction %d: %+v", i, rep)
		}
	}
	// The model saw every result verbatim at least once: at the step after
	// its call.
	for n := 1; n <= sixty.Steps; n++ {
		last := res.requests[n][len(res.requests[n])-1]
		if r, ok := protocol.ReadResult(last); !ok || r.CallID != protocol.CallID(n) || window.IsMasked(r.Body) || len(r.Body) != sixty.FileSize {
			t.Errorf("request %d ends with %.80q, want the whole result of call_%d", n, last.Content, n)
		}
	}
}

// TestLongTurnExtendsItsPrefix: between compactions, each request begins
// with the one before, byte for byte; a compaction keeps the system prompt
// and the user's message; a masked result never changes again.
func TestLongTurnExtendsItsPrefix(t *testing.T) {
	set, system, script := sixty.setup(t)
	res := sixty.run(t, set, system, script, window.Config{})
	if res.err != nil {
		t.Fatal(res.err)
	}
	after := map[int]bool{}
	for _, i := range res.compacted {
		after[i] = true
	}
	masked := map[string]string{} // call id: its masked message
	for i, req := range res.requests {
		if i > 0 {
			prev := res.requests[i-1]
			same := common(prev, req)
			switch {
			case !after[i] && same != len(prev):
				t.Errorf("request %d changes message %d of the one before, with no compaction between", i, same)
			case after[i] && same < 2:
				t.Errorf("request %d, after a compaction, changes message %d: the system prompt and the input must stay", i, same)
			}
		}
		for _, m := range req {
			r, ok := protocol.ReadResult(m)
			if !ok || !window.IsMasked(r.Body) {
				continue
			}
			if before, seen := masked[r.CallID]; seen && before != m.Content {
				t.Errorf("request %d: the masked result of %s changed from %q to %q", i, r.CallID, before, m.Content)
			}
			masked[r.CallID] = m.Content
		}
	}
	if len(masked) == 0 {
		t.Error("no result was masked")
	}
	// The masked line names the call, its tool, its file and its size.
	want := "TOOL_RESULT call_1 read_file SUCCESS\n[result of call_1 read_file " + path(1) + " elided to save context (2.0 KB); call the tool again if you need it]"
	if got, ok := masked["call_1"]; ok && got != want {
		t.Errorf("call_1 masked as %q, want %q", got, want)
	}
}

// common is how many messages, from the start, a and b share.
func common(a, b []protocol.Message) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
