package subagent_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"harness/approve"
	"harness/fakemodel"
	"harness/guard"
	"harness/loop"
	"harness/protocol"
	"harness/sandbox"
	"harness/subagent"
	"harness/tools"
)

// world is a parent agent with the agent tool, in a workspace of real file
// tools, with a scripted model and a hook that logs every event.
type world struct {
	root   string
	tools  *subagent.Tools
	parent *loop.Agent

	mu     sync.Mutex
	events []loop.Event
	reqs   map[string][]protocol.Request // by origin
}

// opts are what a world is built with besides its script.
type opts struct {
	files map[string]string // written in the workspace first
	cfg   subagent.Config   // Model, Root and Hooks are filled in
	gate  func(*tools.Set) loop.Tools
	model func(loop.Model) loop.Model // wraps the scripted model
	hooks []loop.Hook                 // before the world's own
	bash  bool                        // the tools have bash, run without a sandbox
}

func setup(t testing.TB, script string, o opts) *world {
	t.Helper()
	root := t.TempDir()
	for name, content := range o.files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	ts := []tools.Tool{tools.ReadFile(ws), tools.ListFiles(ws), tools.WriteFile(ws)}
	if o.bash {
		policy, err := guard.New(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		box, err := sandbox.New(sandbox.Config{Mode: sandbox.None, Dir: ws.Root()})
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, tools.Bash(ws, policy, box))
	}
	set, err := tools.NewSet(ts...)
	if err != nil {
		t.Fatal(err)
	}
	var inner loop.Tools = set
	if o.gate != nil {
		inner = o.gate(set)
	}
	s, err := fakemodel.Parse(t.Name(), []byte(script))
	if err != nil {
		t.Fatal(err)
	}
	w := &world{root: ws.Root(), reqs: map[string][]protocol.Request{}}
	var model loop.Model = fakemodel.New(s)
	if o.model != nil {
		model = o.model(model)
	}
	log := loop.Observe(func(e loop.Event) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if e.Kind == loop.Streamed {
			return
		}
		w.events = append(w.events, e)
		if e.Kind == loop.StepStarted {
			w.reqs[e.Origin] = append(w.reqs[e.Origin], e.Request)
		}
	})
	hooks := append(o.hooks, log)
	cfg := o.cfg
	cfg.Model, cfg.Root, cfg.Hooks = model, ws.Root(), hooks
	if w.tools, err = subagent.New(inner, cfg); err != nil {
		t.Fatal(err)
	}
	w.parent = loop.New(model, w.tools, loop.Config{System: protocol.SystemPrompt(ws.Root(), w.tools.Specs())}, hooks...)
	return w
}

// results returns the contents of the parent's tool results.
func (w *world) results() []string {
	var out []string
	for _, m := range w.parent.Messages() {
		if m.Role == protocol.User && strings.HasPrefix(m.Content, "TOOL_RESULT ") {
			out = append(out, m.Content)
		}
	}
	return out
}

func names(specs []protocol.ToolSpec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

func TestSpecsAndSystemPrompts(t *testing.T) {
	w := setup(t, "", opts{})
	if got := strings.Join(names(w.tools.Specs()), " "); got != "agent list_files read_file write_file" {
		t.Errorf("parent's tools: %s", got)
	}
	reads := []protocol.ToolSpec{tools.ReadFile(nil).Spec(), tools.ListFiles(nil).Spec()}
	sys := subagent.System(w.root, reads)
	if sys != subagent.System(w.root, slices.Clone(reads)) || sys != subagent.System(w.root, []protocol.ToolSpec{reads[1], reads[0]}) {
		t.Error("the same tools gave different system prompts")
	}
	if !strings.HasPrefix(sys, protocol.SystemPrompt(w.root, reads)) || !strings.Contains(sys, "You work for another agent") {
		t.Errorf("a child's system prompt is not the protocol's and one line:\n%s", sys)
	}
}

func TestNewRefusesASecondAgent(t *testing.T) {
	set, err := tools.NewSet(tools.New("agent", "Not ours.", false, func(context.Context, struct{}) (string, error) { return "", nil }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := subagent.New(set, subagent.Config{}); !errors.Is(err, subagent.ErrName) {
		t.Errorf("err = %v, want ErrName", err)
	}
}

func TestWritesPerCall(t *testing.T) {
	w := setup(t, "", opts{})
	tests := []struct {
		call protocol.Call
		want bool
	}{
		{protocol.Call{Name: "agent", Args: map[string]any{"task": "x"}}, false},
		{protocol.Call{Name: "agent", Args: map[string]any{"task": "x", "tools": "read"}}, false},
		{protocol.Call{Name: "agent", Args: map[string]any{"task": "x", "tools": "all"}}, true},
		{protocol.Call{Name: "agent", Args: map[string]any{"task": "x", "tools": "some"}}, false}, // refused without running
		{protocol.Call{Name: "read_file", Args: map[string]any{"path": "a"}}, false},
		{protocol.Call{Name: "write_file", Args: map[string]any{"path": "a", "content": ""}}, true},
	}
	for _, tt := range tests {
		if got := w.tools.Writes(tt.call); got != tt.want {
			t.Errorf("Writes(%s %v) = %t, want %t", tt.call.Name, tt.call.Args, got, tt.want)
		}
	}
}

// TestReadOnlyChildCannotWrite: a child started with the default tools
// has only the tools that read; its write is refused as an unknown tool,
// nothing is written, and the parent gets the child's answer and report.
// The child starts fresh: its system prompt, then the task.
func TestReadOnlyChildCannotWrite(t *testing.T) {
	w := setup(t, `>>> expect="summarize a.txt"
TOOL_CALL {"name":"agent","arguments":{"task":"read a.txt, then write b.txt"}}
>>> when="read a.txt"
TOOL_CALL {"name":"read_file","arguments":{"path":"a.txt"}}
TOOL_CALL {"name":"write_file","arguments":{"path":"b.txt","content":"no"}}
>>> when="read a.txt" expect="TOOL_RESULT call_2 write_file ERROR"
a.txt says hello; I could not write b.txt.
>>> expect="TOOL_RESULT call_1 agent SUCCESS"
Done.
`, opts{files: map[string]string{"a.txt": "hello\n"}})
	answer, err := w.parent.Turn(context.Background(), "summarize a.txt")
	if err != nil || answer != "Done." {
		t.Fatalf("Turn = %q, %v", answer, err)
	}
	if _, err := os.Stat(filepath.Join(w.root, "b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("b.txt: %v; the read-only child wrote", err)
	}
	child := w.reqs["call_1"]
	if len(child) != 2 {
		t.Fatalf("the child made %d requests, want 2", len(child))
	}
	first := child[0].Messages
	if len(first) != 2 || first[1].Content != "read a.txt, then write b.txt" {
		t.Fatalf("the child's first request holds %d messages: %+v", len(first), first)
	}
	sys := first[0].Content
	if !strings.Contains(sys, "\nread_file:") || strings.Contains(sys, "\nwrite_file:") || strings.Contains(sys, "\nagent:") {
		t.Errorf("the read-only child's tools:\n%s", sys)
	}
	if last := child[1].Messages[len(child[1].Messages)-1].Content; !strings.Contains(last, "unknown tool") {
		t.Errorf("the child's write was answered with %q", last)
	}
	want := "TOOL_RESULT call_1 agent SUCCESS\na.txt says hello; I could not write b.txt.\n\n" +
		"[report of the helper: 2 steps, 2 calls (1 succeeded, 1 failed); nothing changed; no tests ran]"
	if got := w.results(); len(got) != 1 || got[0] != want {
		t.Errorf("results %q\nwant %q", got, want)
	}
}

// readOnlyBash is bash limited to the command lines the guard finds only
// read, as the harness gives it to a read child.
var readOnlyBash = subagent.Limited{
	Name: "bash",
	Reads: func(c protocol.Call) bool {
		command, _ := c.Args["command"].(string)
		return guard.ReadOnly(command)
	},
	Refusal: "only read-only commands are allowed to a read-only helper",
	Rule:    "Your bash runs only commands that only read.",
}

// TestReadOnlyChildRunsReadOnlyCommands: a read child has bash, limited:
// its ls and cat run, its mkdir is refused before it reaches the tools,
// and nothing is made. Its system prompt says so in one line; a child
// with every tool has bash whole. The child still counts as one that
// only reads, and so may run beside other reads.
func TestReadOnlyChildRunsReadOnlyCommands(t *testing.T) {
	var ran []string
	gate := func(inner *tools.Set) loop.Tools {
		return toolsFunc{inner, func(call protocol.Call) { ran = append(ran, call.Args["command"].(string)) }}
	}
	w := setup(t, `>>> expect="look around"
TOOL_CALL {"name":"agent","arguments":{"task":"list the files and show a.txt"}}
>>> when="list the files"
TOOL_CALL {"name":"bash","arguments":{"command":"ls"}}
TOOL_CALL {"name":"bash","arguments":{"command":"cat a.txt | wc -l"}}
TOOL_CALL {"name":"bash","arguments":{"command":"mkdir out"}}
>>> when="list the files" expect="TOOL_RESULT call_3 bash ERROR"
a.txt has one line; I could not make out.
>>> expect="TOOL_RESULT call_1 agent SUCCESS"
Done.
`, opts{files: map[string]string{"a.txt": "hello\n"}, bash: true, gate: gate, cfg: subagent.Config{Limited: []subagent.Limited{readOnlyBash}}})
	if w.tools.Writes(protocol.Call{Name: "agent", Args: map[string]any{"task": "x"}}) {
		t.Error("a read child with limited bash counts as one that may write")
	}
	if answer, err := w.parent.Turn(context.Background(), "look around"); err != nil || answer != "Done." {
		t.Fatalf("Turn = %q, %v", answer, err)
	}
	if _, err := os.Stat(filepath.Join(w.root, "out")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("out: %v; the read-only child's mkdir ran", err)
	}
	if got := strings.Join(ran, "; "); got != "ls; cat a.txt | wc -l" {
		t.Errorf("commands that reached the tools: %s", got)
	}
	child := w.reqs["call_1"]
	if len(child) != 2 {
		t.Fatalf("the child made %d requests, want 2", len(child))
	}
	sys := child[0].Messages[0].Content
	if !strings.Contains(sys, "\nbash:") || strings.Contains(sys, "\nwrite_file:") || !strings.HasSuffix(sys, "\nYour bash runs only commands that only read.\n") {
		t.Errorf("the read child's system prompt:\n%s", sys)
	}
	results := child[1].Messages[len(child[1].Messages)-3:]
	for i, want := range []string{
		"TOOL_RESULT call_1 bash SUCCESS\na.txt\n",
		"TOOL_RESULT call_2 bash SUCCESS\n1\n",
		"TOOL_RESULT call_3 bash ERROR\nNothing was run: only read-only commands are allowed to a read-only helper.",
	} {
		if !strings.HasPrefix(results[i].Content, want) {
			t.Errorf("result %d: %q, want it to start with %q", i+1, results[i].Content, want)
		}
	}
	if got := w.results(); len(got) != 1 || !strings.HasSuffix(got[0], "[report of the helper: 2 steps, 3 calls (2 succeeded, 1 failed); nothing changed; no tests ran]") {
		t.Errorf("results %q", got)
	}
	// A child with every tool has bash as the parent has it, and no rule.
	all := subagent.System(w.root, w.tools.Specs())
	if strings.Contains(all, "Your bash") {
		t.Errorf("a child with every tool is told of a limit:\n%s", all)
	}
}

// toolsFunc passes every call to inner, telling seen of it first.
type toolsFunc struct {
	loop.Tools
	seen func(protocol.Call)
}

func (t toolsFunc) Run(ctx context.Context, call protocol.Call) protocol.Result {
	t.seen(call)
	return t.Tools.Run(ctx, call)
}

// TestChildEventsCarryItsOrigin: the child's events reach the parent's
// hooks, inside the call that started it, marked with its id.
func TestChildEventsCarryItsOrigin(t *testing.T) {
	w := setup(t, `>>>
TOOL_CALL {"name":"agent","arguments":{"task":"say hi"}}
>>> when="say hi"
hi
>>>
ok
`, opts{})
	if _, err := w.parent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	var log []string
	for _, e := range w.events {
		log = append(log, strings.TrimSpace(e.Origin+" "+e.Kind.String()))
	}
	want := []string{"turn", "step", "reply", "call",
		"call_1 turn", "call_1 step", "call_1 reply", "call_1 turn_end",
		"result", "step", "reply", "turn_end"}
	if strings.Join(log, ", ") != strings.Join(want, ", ") {
		t.Errorf("events:\n%s\nwant\n%s", strings.Join(log, ", "), strings.Join(want, ", "))
	}
}

// TestChildStepLimit: a child that reaches its step limit gives the parent
// an ERROR result naming the limit and what it had found; the parent goes
// on.
func TestChildStepLimit(t *testing.T) {
	w := setup(t, `>>>
TOOL_CALL {"name":"agent","arguments":{"task":"read forever"}}
>>> when="read forever"
a.txt first.
TOOL_CALL {"name":"read_file","arguments":{"path":"a.txt"}}
>>> when="read forever"
a.txt says hello. Again.
TOOL_CALL {"name":"read_file","arguments":{"path":"a.txt"}}
>>> expect="TOOL_RESULT call_1 agent ERROR"
It ran out of steps.
`, opts{files: map[string]string{"a.txt": "hello\n"}, cfg: subagent.Config{MaxSteps: 2}})
	answer, err := w.parent.Turn(context.Background(), "go")
	if err != nil || answer != "It ran out of steps." {
		t.Fatalf("Turn = %q, %v", answer, err)
	}
	want := `TOOL_RESULT call_1 agent ERROR
The helper stopped: reached the limit of 2 steps in a helper's turn (agent-max-steps=2).
What the helper had found so far:
a.txt first.
a.txt says hello. Again.
Its calls:
- read_file {"path":"a.txt"}: SUCCESS
- read_file {"path":"a.txt"}: SUCCESS
[report of the helper: 2 steps, 2 calls (2 succeeded, 0 failed); nothing changed; no tests ran]`
	if got := w.results(); len(got) != 1 || got[0] != want {
		t.Errorf("result:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
}

// TestRunBudgetCountsChildren: a child's model calls count in the run's
// budget; the child that exhausts it gives an ERROR result naming the
// run's limit, and the parent's turn ends with it at its next step.
func TestRunBudgetCountsChildren(t *testing.T) {
	budget := &loop.Budget{ModelCalls: 2}
	w := setup(t, `>>>
TOOL_CALL {"name":"agent","arguments":{"task":"read"}}
>>> when="read"
TOOL_CALL {"name":"read_file","arguments":{"path":"a.txt"}}
>>> when="read"
never
>>>
never
`, opts{files: map[string]string{"a.txt": "hello\n"}, hooks: []loop.Hook{budget}})
	_, err := w.parent.Turn(context.Background(), "go")
	var limit *loop.LimitError
	if !errors.As(err, &limit) || limit.Name != "max-model-calls" {
		t.Fatalf("err = %v, want the run's model-call limit", err)
	}
	if got := w.results(); len(got) != 1 || !strings.Contains(got[0], "The helper stopped: reached the limit of 2 model calls in the run (max-model-calls=2), a limit of the whole run.") {
		t.Errorf("result %q", got)
	}
}

// meeting is a model that holds the first request of each of n
// conversations named in firsts until all n have made theirs: children that
// run one after the other never meet, and the test fails instead of
// hanging.
type meeting struct {
	loop.Model
	firsts []string
	mu     sync.Mutex
	seen   map[string]bool
	all    chan struct{}
}

func (m *meeting) Chat(ctx context.Context, req protocol.Request, stream func(protocol.Delta)) (protocol.Reply, error) {
	if len(req.Messages) == 2 && slices.Contains(m.firsts, req.Messages[1].Content) {
		m.mu.Lock()
		m.seen[req.Messages[1].Content] = true
		if len(m.seen) == len(m.firsts) {
			close(m.all)
		}
		m.mu.Unlock()
		select {
		case <-m.all:
		case <-time.After(5 * time.Second):
			return protocol.Reply{}, errors.New("the other children never asked: they did not run together")
		}
	}
	return m.Model.Chat(ctx, req, stream)
}

// TestReadOnlyChildrenRunTogether: two read-only children asked for in one
// reply run at the same time, and their results come back in call order.
func TestReadOnlyChildrenRunTogether(t *testing.T) {
	script := `>>>
TOOL_CALL {"name":"agent","arguments":{"task":"summarize a.txt"}}
TOOL_CALL {"name":"agent","arguments":{"task":"summarize b.txt"}}
>>> when="summarize b.txt"
TOOL_CALL {"name":"read_file","arguments":{"path":"b.txt"}}
>>> when="summarize a.txt"
TOOL_CALL {"name":"read_file","arguments":{"path":"a.txt"}}
>>> when="summarize a.txt" expect="TOOL_RESULT call_1 read_file SUCCESS\nhello"
a greets
>>> when="summarize b.txt" expect="TOOL_RESULT call_1 read_file SUCCESS\nbye"
b parts
>>> expect="TOOL_RESULT call_2 agent SUCCESS\nb parts"
Both read.
`
	m := &meeting{firsts: []string{"summarize a.txt", "summarize b.txt"}, seen: map[string]bool{}, all: make(chan struct{})}
	w := setup(t, script, opts{
		files: map[string]string{"a.txt": "hello\n", "b.txt": "bye\n"},
		model: func(inner loop.Model) loop.Model { m.Model = inner; return m },
	})
	if answer, err := w.parent.Turn(context.Background(), "go"); err != nil || answer != "Both read." {
		t.Fatalf("Turn = %q, %v", answer, err)
	}
	got := w.results()
	if len(got) != 2 || !strings.HasPrefix(got[0], "TOOL_RESULT call_1 agent SUCCESS\na greets") || !strings.HasPrefix(got[1], "TOOL_RESULT call_2 agent SUCCESS\nb parts") {
		t.Errorf("results not in call order: %q", got)
	}
}

// TestHooksSeeOneEventAtATime: parallel children's events reach the hooks
// one at a time, and their conversations reach Done one at a time too,
// never while a hook is busy.
func TestHooksSeeOneEventAtATime(t *testing.T) {
	var busy, overlaps, done int
	var mu sync.Mutex
	enter := func() {
		mu.Lock()
		busy++
		if busy > 1 {
			overlaps++
		}
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		busy--
		mu.Unlock()
	}
	check := loop.Observe(func(loop.Event) { enter() })
	var script strings.Builder
	script.WriteString(">>>\n")
	for i := range 4 {
		fmt.Fprintf(&script, "TOOL_CALL {\"name\":\"agent\",\"arguments\":{\"task\":\"list %d\"}}\n", i)
	}
	for i := range 4 {
		fmt.Fprintf(&script, ">>> when=\"list %d\"\nTOOL_CALL {\"name\":\"list_files\",\"arguments\":{}}\n>>> when=\"list %d\"\nlisted\n", i, i)
	}
	script.WriteString(">>>\ndone\n")
	w := setup(t, script.String(), opts{hooks: []loop.Hook{check}, cfg: subagent.Config{Done: func(string, loop.State) {
		enter()
		mu.Lock()
		done++
		mu.Unlock()
	}}})
	if _, err := w.parent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if overlaps > 0 || done != 4 {
		t.Errorf("a hook or Done was called %d times while another was busy; Done %d times", overlaps, done)
	}
}

// TestChildReadsRepliesWithTheParser: a child reads its replies with
// Config.Parse, as the parent does: with the strict parser, a call after
// a sentence is text.
func TestChildReadsRepliesWithTheParser(t *testing.T) {
	script := `>>>
TOOL_CALL {"name":"agent","arguments":{"task":"look"}}
>>> when="look"
I will list them.
TOOL_CALL {"name":"list_files","arguments":{}}
>>>
ok
`
	w := setup(t, script, opts{cfg: subagent.Config{Parse: protocol.ParseStrict}})
	if _, err := w.parent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	got := w.results()
	if len(got) != 1 || !strings.HasPrefix(got[0], "TOOL_RESULT call_1 agent SUCCESS\nI will list them.\nTOOL_CALL") {
		t.Errorf("results %q, want the child's reply as its answer", got)
	}
}

// TestCancelMidChild: cancelling the turn while a child waits for its
// model stops the child and the parent's turn.
func TestCancelMidChild(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := loop.Observe(func(e loop.Event) {
		if e.Origin == "call_1" && e.Kind == loop.StepStarted {
			cancel()
		}
	})
	w := setup(t, `>>>
TOOL_CALL {"name":"agent","arguments":{"task":"wait"}}
>>> when="wait" delay=10s
never
>>>
never
`, opts{hooks: []loop.Hook{stop}})
	var report *loop.Report
	start := time.Now()
	_, err := w.parent.Turn(ctx, "go")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("the child was not stopped")
	}
	for _, e := range w.events {
		if e.Kind == loop.TurnEnded && e.Origin == "" {
			report = e.Report
		}
	}
	if report == nil || !report.Interrupted {
		t.Errorf("parent's report: %+v", report)
	}
	if got := w.results(); len(got) != 1 || !strings.HasPrefix(got[0], "TOOL_RESULT call_1 agent ERROR\ninterrupted") {
		t.Errorf("results %q", got)
	}
}

// asker answers every question with yes and keeps them.
type asker struct {
	mu        sync.Mutex
	questions []string
}

func (a *asker) Ask(_ context.Context, q approve.Question) (approve.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.questions = append(a.questions, q.String())
	return approve.Yes, nil
}

// TestChildAsksForApproval: a child's calls go through the parent's
// approval gate: its write is asked about, under an id that names the
// child, and the parent's result says the child wrote.
func TestChildAsksForApproval(t *testing.T) {
	ask := &asker{}
	var decisions []string
	gate := func(inner *tools.Set) loop.Tools {
		return approve.New(inner, approve.Config{Mode: approve.Auto, Asker: ask, Inspector: inner, Record: func(d approve.Decision) {
			decisions = append(decisions, d.Call.ID+" "+d.Call.Name+" "+d.Outcome.String())
		}})
	}
	w := setup(t, `>>>
TOOL_CALL {"name":"agent","arguments":{"task":"write a.txt","tools":"all"}}
>>> when="write a.txt"
TOOL_CALL {"name":"write_file","arguments":{"path":"a.txt","content":"a"}}
>>> when="write a.txt" expect="TOOL_RESULT call_1 write_file SUCCESS"
Wrote a.txt.
>>>
ok
`, opts{gate: gate, cfg: subagent.Config{Target: func(c protocol.Call) string { return c.Args["path"].(string) }}})
	if _, err := w.parent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ask.questions, "; "); got != "Run write_file: a.txt?" {
		t.Errorf("questions: %s", got)
	}
	if got := strings.Join(decisions, "; "); got != "call_1/call_1 write_file user yes" {
		t.Errorf("decisions: %s", got)
	}
	if _, err := os.Stat(filepath.Join(w.root, "a.txt")); err != nil {
		t.Error(err)
	}
	var ended *loop.Event
	for i, e := range w.events {
		if e.Kind == loop.CallEnded && e.Origin == "" {
			ended = &w.events[i]
		}
	}
	if ended == nil || !ended.Writes || !ended.Result.Wrote || !strings.Contains(ended.Result.Body, "changed: a.txt") {
		t.Errorf("the parent's call: %+v", ended)
	}
}

// TestChildConversationIsHandedOver: Done gets each child's conversation
// with the id of the call that started it.
func TestChildConversationIsHandedOver(t *testing.T) {
	var got []string
	done := func(origin string, st loop.State) {
		for _, m := range st.Messages[1:] {
			got = append(got, origin+" "+string(m.Role)+": "+m.Content)
		}
	}
	w := setup(t, `>>>
TOOL_CALL {"name":"agent","arguments":{"task":"say hi"}}
>>> when="say hi"
hi
>>>
ok
`, opts{cfg: subagent.Config{Done: done}})
	if _, err := w.parent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != "call_1 user: say hi\ncall_1 assistant: hi" {
		t.Errorf("handed over:\n%s", strings.Join(got, "\n"))
	}
}

func TestBadCalls(t *testing.T) {
	w := setup(t, `>>>
TOOL_CALL {"name":"agent","arguments":{"task":"x","tools":"most"}}
TOOL_CALL {"name":"agent","arguments":{"task":"  "}}
>>>
ok
`, opts{})
	if _, err := w.parent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	got := w.results()
	if len(got) != 2 || !strings.Contains(got[0], `tools must be "read" or "all", not "most"`) || !strings.Contains(got[1], "the task is empty") {
		t.Errorf("results %q", got)
	}
	if len(w.reqs) != 1 {
		t.Errorf("a child was started: %d conversations asked the model", len(w.reqs))
	}
}

// New makes no helper's system prompt: a run whose model never starts a
// helper never needs one, and each holds every tool's description. A tool
// with a description of a megabyte shows it: New copies none of it.
func TestNewMakesNoPrompt(t *testing.T) {
	const size = 1 << 20
	long := tools.New("long", strings.Repeat("x", size), false, func(context.Context, struct{}) (string, error) { return "", nil })
	set, err := tools.NewSet(long)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := subagent.New(set, subagent.Config{Root: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got >= size {
		t.Errorf("New allocated %d bytes for a tool described in %d: it made the helpers' system prompts", got, size)
	}
}
