package loop_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"harness/fakemodel"
	"harness/loop"
	"harness/protocol"
	"harness/tools"
)

type pathArgs struct {
	Path string `arg:"path" help:"a path"`
	Also string `arg:"also,optional" help:"a path the call is seen to change beside (changing)"`
}

type passArgs struct {
	Pass   bool   `arg:"pass" help:"whether the tests pass"`
	Refuse bool   `arg:"refuse,optional" help:"refuse to run, as the guard or the user may"`
	Empty  bool   `arg:"empty,optional" help:"run, and find no test to run"`
	Also   string `arg:"also,optional" help:"a path the call is seen to change beside (changing)"`
}

// changing gives each result the path the call's "also" names as one it
// was seen to change beside what it names, as the bash tool does for a
// command that rewrote .gitignore.
type changing struct{ loop.Tools }

func (c changing) Run(ctx context.Context, call protocol.Call) protocol.Result {
	res := c.Tools.Run(ctx, call)
	if also, _ := call.Args["also"].(string); also != "" {
		res.Changed = append(res.Changed, also)
	}
	return res
}

func TestReportVerdicts(t *testing.T) {
	write := tools.New("write", "Write.", true, func(_ context.Context, a pathArgs) (string, error) {
		if a.Path == "bad" {
			return "", errors.New("cannot write bad")
		}
		return "wrote " + a.Path, nil
	})
	test := tools.New("test", "Run tests.", true, func(_ context.Context, a passArgs) (string, error) {
		if a.Refuse {
			return "", errors.New("refused; nothing was run")
		}
		if a.Empty {
			return "?   \texample.com/greet\t[no test files]\n[exit status 0]", nil
		}
		if !a.Pass {
			return "", fmt.Errorf("%w: FAIL", tools.ErrMayHaveChanged)
		}
		return "ok", nil
	})
	read := tools.New("read", "Read.", false, func(_ context.Context, a pathArgs) (string, error) { return "x", nil })
	set, err := tools.NewSet(write, test, read)
	if err != nil {
		t.Fatal(err)
	}
	w := func(p string) string { return `TOOL_CALL {"name":"write","arguments":{"path":"` + p + `"}}` }
	pass := `TOOL_CALL {"name":"test","arguments":{"pass":true}}`
	fail := `TOOL_CALL {"name":"test","arguments":{"pass":false}}`
	refused := `TOOL_CALL {"name":"test","arguments":{"pass":true,"refuse":true}}`
	empty := `TOOL_CALL {"name":"test","arguments":{"pass":true,"empty":true}}`
	r := `TOOL_CALL {"name":"read","arguments":{"path":"a"}}`
	tests := []struct {
		name    string
		steps   []string
		verdict string
		changed []string
	}{
		{name: "untested", steps: []string{w("a.go"), r}, verdict: "no tests ran", changed: []string{"a.go"}},
		{name: "verified", steps: []string{w("a.go"), w("b.go"), pass, r}, verdict: "verified after last edit", changed: []string{"a.go", "b.go"}},
		{name: "edited after testing", steps: []string{w("a.go"), pass, w("b.go"), w("a.go")}, verdict: "edits after the last test run: b.go, a.go", changed: []string{"a.go", "b.go"}},
		{name: "failed write changes nothing", steps: []string{pass, w("bad")}, verdict: "tests passed"},
		{name: "tests failed", steps: []string{w("a.go"), fail}, verdict: "the last test run failed", changed: []string{"a.go"}},
		{name: "a refused test verifies nothing", steps: []string{w("a.go"), refused}, verdict: "no tests ran", changed: []string{"a.go"}},
		{name: "a refused test keeps edits unverified", steps: []string{pass, w("b.go"), refused}, verdict: "edits after the last test run: b.go", changed: []string{"b.go"}},
		{name: "a test command that found no test verifies nothing", steps: []string{w("a.go"), empty}, verdict: "no tests ran (the test command found no test to run)", changed: []string{"a.go"}},
		{name: "a real test run after an empty one verifies", steps: []string{w("a.go"), empty, pass}, verdict: "verified after last edit", changed: []string{"a.go"}},
		{name: "an empty run after a real one changes nothing", steps: []string{w("a.go"), pass, empty}, verdict: "verified after last edit", changed: []string{"a.go"}},
		// What a call was seen to change beside is listed; after a test
		// run, it is no edit the tests missed; after a write, it is.
		{name: "a test run's side changes are listed, not unverified", steps: []string{w("a.go"), `TOOL_CALL {"name":"test","arguments":{"pass":true,"also":".gitignore"}}`}, verdict: "verified after last edit", changed: []string{"a.go", ".gitignore"}},
		{name: "a write's side changes are unverified", steps: []string{pass, `TOOL_CALL {"name":"write","arguments":{"path":"a.go","also":"b.go"}}`}, verdict: "edits after the last test run: a.go, b.go", changed: []string{"a.go", "b.go"}},
		{name: "several calls in one reply", steps: []string{w("a.go") + "\n" + pass}, verdict: "verified after last edit", changed: []string{"a.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := ""
			for _, s := range tt.steps {
				script += ">>>\n" + s + "\n"
			}
			s, err := fakemodel.Parse("t", []byte(script+">>>\ndone\n"))
			if err != nil {
				t.Fatal(err)
			}
			var report *loop.Report
			cfg := loop.Config{
				IsTest: func(c protocol.Call) bool { return c.Name == "test" },
				Target: func(c protocol.Call) string { return c.Args["path"].(string) },
			}
			agent := loop.New(fakemodel.New(s), changing{set}, cfg, loop.Observe(func(e loop.Event) {
				if e.Kind == loop.TurnEnded {
					report = e.Report
				}
			}))
			if _, err := agent.Turn(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			if got := report.Verdict(); got != tt.verdict {
				t.Errorf("verdict %q, want %q", got, tt.verdict)
			}
			if strings.Join(report.Changed, ",") != strings.Join(tt.changed, ",") {
				t.Errorf("changed %q, want %q", report.Changed, tt.changed)
			}
			if report.Steps != len(tt.steps)+1 {
				t.Errorf("steps %d", report.Steps)
			}
		})
	}
}

// noUsage is a model whose backend reports no token use for the replies
// whose content holds "quiet".
type noUsage struct{ loop.Model }

func (m noUsage) Chat(ctx context.Context, req protocol.Request, stream func(protocol.Delta)) (protocol.Reply, error) {
	r, err := m.Model.Chat(ctx, req, stream)
	if strings.Contains(r.Content, "quiet") {
		r.Usage = protocol.Usage{}
	}
	return r, err
}

// The report counts the replies whose token use went unreported, which a
// token limit cannot see, and says so when there are some.
func TestReportUnreportedUsage(t *testing.T) {
	read := tools.New("read", "Read.", false, func(_ context.Context, a pathArgs) (string, error) { return "x", nil })
	set, err := tools.NewSet(read)
	if err != nil {
		t.Fatal(err)
	}
	r := `TOOL_CALL {"name":"read","arguments":{"path":"a"}}`
	tests := []struct {
		script string
		want   string
	}{
		{">>>\n" + r + "\n>>>\ndone\n", "2 steps, 1 call (1 succeeded, 0 failed); nothing changed; no tests ran"},
		{">>>\nquiet\n" + r + "\n>>>\nloud\n" + r + "\n>>>\nquiet\n", "3 steps, 2 calls (2 succeeded, 0 failed); nothing changed; no tests ran; no token count for 2 of the replies"},
	}
	for _, tt := range tests {
		s, err := fakemodel.Parse("t", []byte(tt.script))
		if err != nil {
			t.Fatal(err)
		}
		var report *loop.Report
		agent := loop.New(noUsage{fakemodel.New(s)}, set, loop.Config{}, loop.Observe(func(e loop.Event) {
			if e.Kind == loop.TurnEnded {
				report = e.Report
			}
		}))
		if _, err := agent.Turn(context.Background(), "go"); err != nil {
			t.Fatal(err)
		}
		if got := report.Summary(); got != tt.want {
			t.Errorf("Summary = %q, want %q", got, tt.want)
		}
	}
}
