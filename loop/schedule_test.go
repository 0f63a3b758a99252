package loop_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"harness/fakemodel"
	"harness/loop"
	"harness/protocol"
	"harness/tools"
)

type nameArgs struct {
	Name string `arg:"name" help:"a name"`
}

// scheduleTools returns a read-only tool "meet" that only returns once two
// calls of it are running at the same time, a tool "write" that fails if any
// other call runs while it does, and the log of what ran, in order.
func scheduleTools(t *testing.T) (*tools.Set, func() []string) {
	var mu sync.Mutex
	var log []string
	running := 0
	enter := func(name string) int {
		mu.Lock()
		defer mu.Unlock()
		running++
		log = append(log, "start "+name)
		return running
	}
	leave := func(name string) {
		mu.Lock()
		defer mu.Unlock()
		running--
		log = append(log, "end "+name)
	}
	// A meeting is a channel the first of two calls waits on and the second
	// closes: calls run one after the other never meet.
	var waiting chan struct{}
	meet := tools.New("meet", "Wait for a partner.", false, func(ctx context.Context, a nameArgs) (string, error) {
		enter(a.Name)
		defer leave(a.Name)
		mu.Lock()
		if waiting != nil {
			close(waiting)
			waiting = nil
			mu.Unlock()
			return "met " + a.Name, nil
		}
		ch := make(chan struct{})
		waiting = ch
		mu.Unlock()
		select {
		case <-ch:
			return "met " + a.Name, nil
		case <-time.After(5 * time.Second):
			return "", errors.New("no partner came: calls did not run together")
		}
	})
	write := tools.New("write", "Write alone.", true, func(ctx context.Context, a nameArgs) (string, error) {
		n := enter(a.Name)
		defer leave(a.Name)
		if n != 1 {
			return "", fmt.Errorf("%d calls ran beside a write", n-1)
		}
		time.Sleep(10 * time.Millisecond) // long enough for a wrongly scheduled call to overlap
		return "wrote " + a.Name, nil
	})
	set, err := tools.NewSet(meet, write)
	if err != nil {
		t.Fatal(err)
	}
	return set, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), log...) }
}

func call(tool, name string) string {
	return fmt.Sprintf(`TOOL_CALL {"name":%q,"arguments":{"name":%q}}`, tool, name)
}

func TestReadsRunTogetherWritesAlone(t *testing.T) {
	set, log := scheduleTools(t)
	reply := strings.Join([]string{call("meet", "a"), call("meet", "b"), call("write", "w"), call("meet", "c"), call("meet", "d")}, "\n")
	s, err := fakemodel.Parse("t", []byte(">>>\n"+reply+"\n>>>\ndone\n"))
	if err != nil {
		t.Fatal(err)
	}
	agent := loop.New(fakemodel.New(s), set, loop.Config{})
	if _, err := agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	msgs := agent.Messages()
	var results []string
	for _, m := range msgs[3:8] {
		results = append(results, m.Content)
	}
	equal(t, results, []string{
		"TOOL_RESULT call_1 meet SUCCESS\nmet a",
		"TOOL_RESULT call_2 meet SUCCESS\nmet b",
		"TOOL_RESULT call_3 write SUCCESS\nwrote w",
		"TOOL_RESULT call_4 meet SUCCESS\nmet c",
		"TOOL_RESULT call_5 meet SUCCESS\nmet d",
	})
	// The write starts after both reads before it ended and ends before the
	// reads after it start.
	l := log()
	idx := func(s string) int {
		for i, x := range l {
			if x == s {
				return i
			}
		}
		t.Fatalf("%q not in log %q", s, l)
		return -1
	}
	if w := idx("start w"); w < idx("end a") || w < idx("end b") || idx("end w") > idx("start c") || idx("end w") > idx("start d") {
		t.Errorf("the write overlapped other calls: %q", l)
	}
}

func TestHookStopsBeforeACallAndRefusesTheRest(t *testing.T) {
	set, log := scheduleTools(t)
	reply := strings.Join([]string{call("write", "1"), call("write", "2"), call("write", "3")}, "\n")
	s, _ := fakemodel.Parse("t", []byte(">>>\n"+reply+"\n"))
	stop := errors.New("budget spent")
	var ended []loop.Event
	hook := loop.HookFunc(func(e loop.Event) error {
		if e.Kind == loop.CallStarted && e.Call.ID == "call_2" {
			return stop
		}
		if e.Kind == loop.CallEnded {
			ended = append(ended, e)
		}
		return nil
	})
	agent := loop.New(fakemodel.New(s), set, loop.Config{}, hook)
	_, err := agent.Turn(context.Background(), "go")
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v", err)
	}
	if l := log(); len(l) != 2 || l[0] != "start 1" {
		t.Errorf("ran %q, want only the first write", l)
	}
	msgs := agent.Messages()
	if len(msgs) != 6 {
		t.Fatalf("%d messages, want a result for each of the 3 calls", len(msgs))
	}
	for _, m := range msgs[4:] {
		if !strings.Contains(m.Content, "ERROR\nNot run: budget spent") {
			t.Errorf("refused call's result = %q", m.Content)
		}
	}
	if len(ended) != 3 || !ended[0].Ran || ended[1].Ran || ended[2].Ran {
		t.Errorf("CallEnded events: %+v", ended)
	}
}

func TestHooksRunInOrder(t *testing.T) {
	set, _ := scheduleTools(t)
	s, _ := fakemodel.Parse("t", []byte(">>>\nhi\n"))
	var order []string
	mk := func(name string) loop.Hook {
		return loop.Observe(func(e loop.Event) {
			if e.Kind == loop.StepStarted {
				order = append(order, name)
			}
		})
	}
	agent := loop.New(fakemodel.New(s), set, loop.Config{}, mk("budget"), mk("record"), mk("ui"))
	if _, err := agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	equal(t, order, []string{"budget", "record", "ui"})
}

func TestInterruptedModelCallIsReportedNotRun(t *testing.T) {
	set, log := scheduleTools(t)
	s, _ := fakemodel.Parse("t", []byte(">>> delay=10s\n"+call("write", "x")+"\n"))
	var interrupted, replied int
	agent := loop.New(fakemodel.New(s), set, loop.Config{}, loop.Observe(func(e loop.Event) {
		switch e.Kind {
		case loop.Interrupted:
			interrupted++
		case loop.Replied:
			replied++
		}
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := agent.Turn(ctx, "go")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if interrupted != 1 || replied != 0 || len(log()) != 0 {
		t.Errorf("interrupted %d, replied %d, ran %q", interrupted, replied, log())
	}
	if n := len(agent.Messages()); n != 1 {
		t.Errorf("the interrupted first step left %d messages", n)
	}
}

func TestInterruptedToolEndsTheTurnWithItsResult(t *testing.T) {
	slow := tools.New("slow", "Wait.", true, func(ctx context.Context, _ struct{}) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	set, _ := tools.NewSet(slow)
	s, _ := fakemodel.Parse("t", []byte(">>>\nTOOL_CALL {\"name\":\"slow\",\"arguments\":{}}\n>>>\nnever\n"))
	ctx, cancel := context.WithCancel(context.Background())
	var report *loop.Report
	agent := loop.New(fakemodel.New(s), set, loop.Config{}, loop.Observe(func(e loop.Event) {
		if e.Kind == loop.CallStarted {
			cancel()
		}
		if e.Kind == loop.TurnEnded {
			report = e.Report
		}
	}))
	_, err := agent.Turn(ctx, "go")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	msgs := agent.Messages()
	if last := msgs[len(msgs)-1].Content; !strings.HasPrefix(last, "TOOL_RESULT call_1 slow ERROR\ninterrupted") {
		t.Errorf("result = %q", last)
	}
	if report == nil || !report.Interrupted || report.Failed != 1 {
		t.Errorf("report = %+v", report)
	}
}

// perCall makes the calls of its tools whose name argument starts with "w"
// writing, and every other call read-only, whatever the specs say.
type perCall struct{ *tools.Set }

func (perCall) Writes(c protocol.Call) bool { return strings.HasPrefix(c.Args["name"].(string), "w") }

// TestCallWritesDecidesPerCall: Tools that tell whether each call writes
// are asked instead of the spec: calls of one tool run together or alone
// as each call says, and events carry what they said.
func TestCallWritesDecidesPerCall(t *testing.T) {
	var mu sync.Mutex
	running, arrived := 0, 0
	all := make(chan struct{})
	// Calls named r* wait for both r* calls to be running; those named w*
	// fail when anything runs beside them.
	work := func(ctx context.Context, a nameArgs) (string, error) {
		mu.Lock()
		running++
		n := running
		if strings.HasPrefix(a.Name, "r") {
			if arrived++; arrived == 2 {
				close(all)
			}
		}
		mu.Unlock()
		defer func() { mu.Lock(); running--; mu.Unlock() }()
		if strings.HasPrefix(a.Name, "w") {
			if n != 1 {
				return "", fmt.Errorf("%d calls ran beside a write", n-1)
			}
			return "alone", nil
		}
		select {
		case <-all:
			return "together", nil
		case <-time.After(5 * time.Second):
			return "", errors.New("the other call never came: calls did not run together")
		}
	}
	set, err := tools.NewSet(tools.New("reads", "Read.", false, work), tools.New("writes", "Write.", true, work))
	if err != nil {
		t.Fatal(err)
	}
	// The spec of reads says it reads, that of writes that it writes; the
	// calls say otherwise.
	reply := strings.Join([]string{call("writes", "r1"), call("writes", "r2"), call("reads", "w")}, "\n")
	s, err := fakemodel.Parse("t", []byte(">>>\n"+reply+"\n>>>\ndone\n"))
	if err != nil {
		t.Fatal(err)
	}
	var writes []string
	agent := loop.New(fakemodel.New(s), perCall{set}, loop.Config{}, loop.Observe(func(e loop.Event) {
		if e.Kind == loop.CallStarted {
			writes = append(writes, fmt.Sprintf("%s %t", e.Call.Args["name"], e.Writes))
		}
	}))
	if _, err := agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	equal(t, writes, []string{"r1 false", "r2 false", "w true"})
	equal(t, contents(agent.Messages()[3:6]), []string{
		"user: TOOL_RESULT call_1 writes SUCCESS\ntogether",
		"user: TOOL_RESULT call_2 writes SUCCESS\ntogether",
		"user: TOOL_RESULT call_3 reads SUCCESS\nalone",
	})
}

// countTools returns a read-only tool "echo" and a writing tool "big",
// whose results are size bytes, and the count of calls that ran.
func countTools(t *testing.T, size int) (*tools.Set, *atomic.Int64) {
	var ran atomic.Int64
	echo := tools.New("echo", "Say a name.", false, func(ctx context.Context, a nameArgs) (string, error) {
		ran.Add(1)
		return strings.Repeat("é", size/2), nil
	})
	big := tools.New("big", "Write and say much.", true, func(ctx context.Context, a nameArgs) (string, error) {
		ran.Add(1)
		return strings.Repeat("é", size/2), nil
	})
	set, err := tools.NewSet(echo, big)
	if err != nil {
		t.Fatal(err)
	}
	return set, &ran
}

// One reply with thousands of calls runs only the first 32; each of the
// others gets a result saying it was not run.
func TestCallsPerReplyCapped(t *testing.T) {
	set, ran := countTools(t, 2)
	var calls []string
	for i := range 1000 {
		calls = append(calls, call("echo", fmt.Sprint(i)))
	}
	s, _ := fakemodel.Parse("t", []byte(">>>\n"+strings.Join(calls, "\n")+"\n>>>\ndone\n"))
	agent := loop.New(fakemodel.New(s), set, loop.Config{})
	if _, err := agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if n := ran.Load(); n != 32 {
		t.Errorf("%d calls ran, want 32", n)
	}
	msgs := agent.Messages()
	if len(msgs) != 3+1000+1 {
		t.Fatalf("%d messages, want a result for each call", len(msgs))
	}
	if got := msgs[3+31].Content; !strings.HasPrefix(got, "TOOL_RESULT call_32 echo SUCCESS") {
		t.Errorf("call 32: %q", got)
	}
	want := "TOOL_RESULT call_33 echo ERROR\nNot run: your reply held 1000 calls, and one reply may make at most 32"
	if got := msgs[3+32].Content; !strings.HasPrefix(got, want) {
		t.Errorf("call 33: %q, want it to start with %q", got, want)
	}
	agent = loop.New(fakemodel.New(s), set, loop.Config{MaxCallsPerReply: 5})
	ran.Store(0)
	agent.Turn(context.Background(), "go")
	if n := ran.Load(); n != 5 {
		t.Errorf("MaxCallsPerReply 5: %d calls ran", n)
	}
}

// The results of one step hold at most MaxResultBytes: the result that
// reaches it is cut with a note, those of calls that ran with it are left
// out, and later calls are not run.
func TestResultBytesPerStep(t *testing.T) {
	set, ran := countTools(t, 100<<10)
	reply := strings.Join([]string{call("big", "1"), call("big", "2"), call("big", "3"), call("big", "4"), call("echo", "5"), call("echo", "6")}, "\n")
	s, _ := fakemodel.Parse("t", []byte(">>>\n"+reply+"\n>>>\ndone\n"))
	agent := loop.New(fakemodel.New(s), set, loop.Config{})
	if _, err := agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if n := ran.Load(); n != 3 {
		t.Errorf("%d calls ran, want 3", n)
	}
	msgs := agent.Messages()
	total := 0
	for i, m := range msgs[3:9] {
		total += len(m.Content)
		switch {
		case i < 2 && strings.Contains(m.Content, "["):
			t.Errorf("result %d was cut", i+1)
		case i == 2 && !strings.Contains(m.Content, "[cut here: the results of one step may hold 262144 bytes"):
			t.Errorf("result 3 = ...%q", m.Content[max(0, len(m.Content)-200):])
		case i == 2 && !utf8.ValidString(m.Content):
			t.Error("result 3 was cut inside a character")
		case i > 2 && !strings.Contains(m.Content, "Not run: the results of this step already hold 262144 bytes"):
			t.Errorf("result %d = %q", i+1, m.Content)
		}
	}
	if total > 256<<10+2048 {
		t.Errorf("the results of the step hold %d bytes", total)
	}
}

// A hook's error at the end of a call refused because the step's results
// were full ends the turn, as at any other call's end.
func TestHookErrorAtACallRefusedForSizeEndsTheTurn(t *testing.T) {
	set, _ := countTools(t, 100<<10)
	reply := strings.Join([]string{call("big", "1"), call("big", "2"), call("big", "3"), call("big", "4")}, "\n")
	s, _ := fakemodel.Parse("t", []byte(">>>\n"+reply+"\n>>>\ndone\n"))
	model := fakemodel.New(s)
	stop := errors.New("stop")
	var refused int
	hook := loop.HookFunc(func(e loop.Event) error {
		if e.Kind == loop.CallEnded && !e.Ran {
			refused++
			return stop
		}
		return nil
	})
	agent := loop.New(model, set, loop.Config{}, hook)
	if _, err := agent.Turn(context.Background(), "go"); !errors.Is(err, stop) {
		t.Errorf("Turn: %v, want the hook's error", err)
	}
	if refused != 1 || model.Remaining() != 1 {
		t.Errorf("%d calls refused, %d replies left; want call 4 refused and no more steps", refused, model.Remaining())
	}
}

// Calls that run together all run even when the first results fill the
// step: the result that reaches the limit is cut, and those after it are
// left out and count as failed, since the model never reads them.
func TestResultBytesOfCallsThatRanTogether(t *testing.T) {
	set, ran := countTools(t, 100<<10)
	reply := strings.Join([]string{call("echo", "1"), call("echo", "2"), call("echo", "3"), call("echo", "4"), call("big", "5")}, "\n")
	s, _ := fakemodel.Parse("t", []byte(">>>\n"+reply+"\n>>>\ndone\n"))
	var report *loop.Report
	agent := loop.New(fakemodel.New(s), set, loop.Config{}, loop.Observe(func(e loop.Event) {
		if e.Kind == loop.TurnEnded {
			report = e.Report
		}
	}))
	if _, err := agent.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if n := ran.Load(); n != 4 {
		t.Errorf("%d calls ran, want the 4 that ran together", n)
	}
	msgs := agent.Messages()
	for i, want := range []string{
		"TOOL_RESULT call_1 echo SUCCESS\néé",
		"TOOL_RESULT call_2 echo SUCCESS\néé",
		"TOOL_RESULT call_3 echo SUCCESS\néé",
		"TOOL_RESULT call_4 echo ERROR\n[left out: the results of one step may hold 262144 bytes",
		"TOOL_RESULT call_5 big ERROR\nNot run: the results of this step already hold 262144 bytes",
	} {
		if got := msgs[3+i].Content; !strings.HasPrefix(got, want) {
			t.Errorf("result %d = %.100q, want it to start with %q", i+1, got, want)
		}
	}
	if !strings.Contains(msgs[5].Content, "[cut here:") {
		t.Error("result 3 was not cut")
	}
	if report.Succeeded != 3 || report.Failed != 2 {
		t.Errorf("report: %d succeeded, %d failed; want 3 and 2", report.Succeeded, report.Failed)
	}
}
