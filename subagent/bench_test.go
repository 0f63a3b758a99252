package subagent_test

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
	"harness/subagent"
	"harness/tools"
)

// exploration is a workspace of 20 files of 2 KB and the scripts of two
// ways to explore it: the parent reads every file itself, or it hands the
// reading to a child that answers with a short summary.
type exploration struct {
	ws              *tools.Workspace
	self, delegated *fakemodel.Script
}

const explored = 20

func newExploration(tb testing.TB) *exploration {
	tb.Helper()
	root := tb.TempDir()
	line := strings.Repeat("x", 63) + "\n"
	for i := range explored {
		body := fmt.Sprintf("// file %d\n", i) + strings.Repeat(line, 2048/len(line))
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.go", i)), []byte(body[:2048]), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		tb.Fatal(err)
	}
	reads := func(when string) string {
		var b strings.Builder
		fmt.Fprintf(&b, ">>>%s\nTOOL_CALL {\"name\":\"list_files\",\"arguments\":{}}\n", when)
		for i := range explored {
			fmt.Fprintf(&b, ">>>%s\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"f%02d.go\"}}\n", when, i)
		}
		return b.String()
	}
	summary := "The 20 files f00.go to f19.go each hold a numbered header comment and 31 lines of x; nothing else."
	self := reads("") + ">>> expect=\"TOOL_RESULT call_21 read_file SUCCESS\"\n" + summary + "\n"
	delegated := ">>>\nTOOL_CALL {\"name\":\"agent\",\"arguments\":{\"task\":\"explore the workspace: read every file and summarize it\"}}\n" +
		reads(` when="explore the workspace"`) +
		">>> when=\"explore the workspace\" expect=\"TOOL_RESULT call_21 read_file SUCCESS\"\n" + summary + "\n" +
		">>> expect=\"TOOL_RESULT call_1 agent SUCCESS\"\n" + summary + "\n"
	e := &exploration{ws: ws}
	if e.self, err = fakemodel.Parse("self", []byte(self)); err != nil {
		tb.Fatal(err)
	}
	if e.delegated, err = fakemodel.Parse("delegated", []byte(delegated)); err != nil {
		tb.Fatal(err)
	}
	return e
}

// run explores with script and returns the bytes of the messages of the
// parent's last request.
func (e *exploration) run(tb testing.TB, script *fakemodel.Script) int {
	set, err := tools.NewSet(tools.ReadFile(e.ws), tools.ListFiles(e.ws))
	if err != nil {
		tb.Fatal(err)
	}
	model := fakemodel.New(script)
	ts, err := subagent.New(set, subagent.Config{Model: model, Root: e.ws.Root(), MaxSteps: 25})
	if err != nil {
		tb.Fatal(err)
	}
	var last protocol.Request
	a := loop.New(model, ts, loop.Config{System: protocol.SystemPrompt(e.ws.Root(), ts.Specs())}, loop.Observe(func(ev loop.Event) {
		if ev.Kind == loop.StepStarted && ev.Origin == "" {
			last = ev.Request
		}
	}))
	if _, err := a.Turn(context.Background(), "what is in this workspace?"); err != nil {
		tb.Fatal(err)
	}
	if n := model.Remaining(); n != 0 {
		tb.Fatalf("%d replies of the script were not used", n)
	}
	size := 0
	for _, m := range last.Messages {
		size += len(m.Content)
	}
	return size
}

// TestDelegationShrinksTheParentsLastRequest: the exploration handed to a
// child leaves the parent's last request at least 5 times smaller than the
// parent's own exploration does.
func TestDelegationShrinksTheParentsLastRequest(t *testing.T) {
	e := newExploration(t)
	self, delegated := e.run(t, e.self), e.run(t, e.delegated)
	t.Logf("the parent's last request: %d bytes reading itself, %d delegating (%.1fx)", self, delegated, float64(self)/float64(delegated))
	if self < 5*delegated {
		t.Errorf("the parent's last request is %d bytes when it delegates, %d when it reads itself: less than 5x smaller", delegated, self)
	}
}

// BenchmarkExploration runs both explorations and reports the size of the
// parent's last request, and by how much delegating shrinks it.
func BenchmarkExploration(b *testing.B) {
	e := newExploration(b)
	var self, delegated int
	for b.Loop() {
		self, delegated = e.run(b, e.self), e.run(b, e.delegated)
	}
	b.ReportMetric(float64(self), "self-last-request-bytes")
	b.ReportMetric(float64(delegated), "delegated-last-request-bytes")
	b.ReportMetric(float64(self)/float64(delegated), "x-smaller")
}
