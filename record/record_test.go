package record

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"harness/loop"
	"harness/protocol"
	"harness/window"
)

// started sets r's clock to a fixed time and writes its start line.
func started(t *testing.T, r *Recorder) *Recorder {
	t.Helper()
	r.now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	if err := r.Start(Start{Version: "v1", Model: "m", Backend: "ollama", Tools: []string{"read_file"}}); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRecordRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	r := started(t, New(&buf))
	events := []loop.Event{
		{Kind: loop.TurnStarted, Turn: 1, Text: "hi"},
		{Kind: loop.StepStarted, Turn: 1, Step: 1, Request: protocol.Request{Messages: []protocol.Message{{Content: "abc"}, {Content: "de"}}}},
		{Kind: loop.Streamed, Turn: 1, Step: 1, Delta: protocol.Delta{Content: "x"}},
		{Kind: loop.Replied, Turn: 1, Step: 1, Reply: protocol.Reply{Content: "TOOL_CALL ...", DoneReason: "stop"}, Duration: 1500 * time.Microsecond},
		{Kind: loop.CallStarted, Turn: 1, Step: 1, Call: protocol.Call{ID: "call_1", Name: "read_file", Args: map[string]any{"path": "a"}}},
		{Kind: loop.CallEnded, Turn: 1, Step: 1, Call: protocol.Call{ID: "call_1", Name: "read_file"}, Ran: true, Result: protocol.Result{OK: true, Body: "a\nb\n", Wrote: true}},
		{Kind: loop.TurnEnded, Turn: 1, Step: 2, Text: "done", Report: &loop.Report{Turn: 1, Steps: 2, Succeeded: 1}},
	}
	for _, e := range events {
		if err := r.Event(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Approval(1, 1, "call_2", "bash", "run", "nobody"); err != nil {
		t.Fatal(err)
	}
	lines, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, l := range lines {
		types = append(types, l.Type)
	}
	if got := strings.Join(types, " "); got != "start turn request reply call result turn_end approval" {
		t.Fatalf("types = %s (streamed pieces must not be recorded)", got)
	}
	if l := lines[2]; l.Messages != 2 || l.Bytes != 5 {
		t.Errorf("request line %+v", l)
	}
	if l := lines[3]; l.Usage != nil || *l.DurationMS != 1.5 || *l.DoneReason != "stop" {
		t.Errorf("reply line: usage %v (unknown must be null, not zero), duration %v", l.Usage, *l.DurationMS)
	}
	if l := lines[5]; !*l.OK || !*l.Ran || !*l.Wrote || *l.Body != "a\nb\n" {
		t.Errorf("result line %+v", l)
	}
	if l := lines[6]; l.Report == nil || l.Report.Steps != 2 || *l.Answer != "done" {
		t.Errorf("turn_end line %+v", l)
	}
	var out bytes.Buffer
	if err := Replay(&out, lines); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"You: hi", "<Step 1> request: 2 messages, 5 bytes", "usage unknown", "tool-success: call_1 read_file (0 ms) -> a [+1 more line]",
		"Report: 2 steps, 1 call (1 succeeded, 0 failed); nothing changed; no tests ran", "approval: call_2 bash run? nobody"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("replay lacks %q:\n%s", want, out.String())
		}
	}
}

func TestReadCutLastLine(t *testing.T) {
	lines, err := Read(strings.NewReader("{\"type\":\"turn\",\"turn\":1}\n{\"type\":\"requ"))
	if !errors.Is(err, ErrCutLine) || len(lines) != 1 {
		t.Fatalf("lines %d, err %v", len(lines), err)
	}
	_, err = Read(strings.NewReader("garbage\n{\"type\":\"turn\"}\n"))
	if err == nil || errors.Is(err, ErrCutLine) || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a bad middle line: %v", err)
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n++; w.n > 1 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestRecorderStopsAfterAFailedWrite(t *testing.T) {
	r := New(&failWriter{})
	if err := r.Event(loop.Event{Kind: loop.TurnStarted}); err != nil {
		t.Fatal(err)
	}
	if err := r.Event(loop.Event{Kind: loop.TurnStarted}); err == nil {
		t.Fatal("a failed write was not reported")
	}
	if err := r.Event(loop.Event{Kind: loop.Noticed}); err == nil {
		t.Error("a record with a hole went on")
	}
}

// TestRecordNested: the lines of a conversation nested in a call say which
// conversation they belong to, and replay shows them indented under the
// call, each marked with it.
func TestRecordNested(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf)
	agent := protocol.Call{ID: "call_1", Name: "agent", Args: map[string]any{"task": "look"}}
	read := protocol.Call{ID: "call_1", Name: "read_file", Args: map[string]any{"path": "a"}}
	events := []loop.Event{
		{Kind: loop.TurnStarted, Turn: 1, Text: "go"},
		{Kind: loop.CallStarted, Turn: 1, Step: 1, Call: agent},
		{Kind: loop.TurnStarted, Turn: 1, Origin: "call_1", Text: "look"},
		{Kind: loop.Replied, Turn: 1, Step: 1, Origin: "call_1", Reply: protocol.Reply{Content: "reading\nTOOL_CALL ..."}},
		{Kind: loop.CallStarted, Turn: 1, Step: 1, Origin: "call_1", Call: read},
		{Kind: loop.CallEnded, Turn: 1, Step: 1, Origin: "call_1", Call: read, Ran: true, Result: protocol.Result{OK: true, Body: "x"}},
		{Kind: loop.TurnEnded, Turn: 1, Step: 2, Origin: "call_1", Text: "a holds x", Report: &loop.Report{Turn: 1, Steps: 2, Succeeded: 1}},
		{Kind: loop.CallEnded, Turn: 1, Step: 1, Call: agent, Ran: true, Result: protocol.Result{OK: true, Body: "a holds x"}},
	}
	for _, e := range events {
		if err := r.Event(e); err != nil {
			t.Fatal(err)
		}
	}
	lines, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var origins []string
	for _, l := range lines {
		origins = append(origins, l.Type+":"+l.Origin)
	}
	if got, want := strings.Join(origins, " "), "turn: call: turn:call_1 reply:call_1 call:call_1 result:call_1 turn_end:call_1 result:"; got != want {
		t.Errorf("origins:\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(strings.Split(buf.String(), "\n")[0], "origin") {
		t.Errorf("a line of the main conversation has an origin: %s", strings.Split(buf.String(), "\n")[0])
	}
	var out bytes.Buffer
	if err := Replay(&out, lines); err != nil {
		t.Fatal(err)
	}
	want := `<Turn 1>
You: go
tool-call: call_1 agent {"task":"look"}
  [call_1] <Turn 1>
  [call_1] Task: look
  [call_1] Assistant (0 ms, usage unknown, done: ):
  [call_1]   reading
  [call_1]   TOOL_CALL ...
  [call_1] tool-call: call_1 read_file {"path":"a"}
  [call_1] tool-success: call_1 read_file (0 ms) -> x
  [call_1] Report: 2 steps, 1 call (1 succeeded, 0 failed); nothing changed; no tests ran
tool-success: call_1 agent (0 ms) -> a holds x
`
	if out.String() != want {
		t.Errorf("replay:\n%s\nwant\n%s", out.String(), want)
	}
}

func TestStartHasTheFormat(t *testing.T) {
	var buf bytes.Buffer
	if err := New(&buf).Start(Start{Version: "v1"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"format":1`) {
		t.Errorf("start line %s", buf.String())
	}
}

func TestUnknownFormat(t *testing.T) {
	for _, tt := range []struct {
		text string
		err  bool
	}{
		{`{"type":"start","version":"old"}` + "\n", false}, // before formats: 1
		{`{"type":"start","format":1}` + "\n", false},
		{`{"type":"start","format":2,"new_field":[1]}` + "\n", true},
		{`{"type":"start","format":1}` + "\n" + `{"type":"start","format":3}` + "\n", true},
	} {
		_, err := Read(strings.NewReader(tt.text))
		var fe *FormatError
		if got := errors.As(err, &fe); got != tt.err || got && !errors.Is(err, ErrFormat) {
			t.Errorf("%q: %v", tt.text, err)
		}
	}
}

func TestScannerEnds(t *testing.T) {
	text := "{\"type\":\"a\"}\n\n{\"type\":\"b\"}\n{\"type\":\"c\"}"
	s := NewScanner(strings.NewReader(text))
	var ends []int64
	var nums []int
	for s.Scan() {
		ends, nums = append(ends, s.End()), append(nums, s.Number())
	}
	if s.Err() != nil || fmt.Sprint(ends) != "[13 27 39]" || fmt.Sprint(nums) != "[1 3 4]" {
		t.Errorf("ends %v, numbers %v, err %v", ends, nums, s.Err())
	}
}

func TestUsageRoundTrip(t *testing.T) {
	for _, u := range []protocol.Usage{
		{},
		{Known: true, PromptTokens: 7, OutputTokens: 3, PromptDuration: 1500 * time.Microsecond, OutputDuration: 2 * time.Second},
	} {
		if got := UsageOf(u).Protocol(); got != u {
			t.Errorf("%+v came back as %+v", u, got)
		}
	}
}

func TestReplaySession(t *testing.T) {
	text := `{"type":"start","format":1,"session":"20260101-000000-abcd","model":"m","backend":"fake","workspace":"/ws","version":"v","tools":["read_file"]}
{"type":"message","turn":1,"step":1,"role":"system","content":"SYSTEM"}
{"type":"message","turn":1,"step":1,"role":"user","content":"hi"}
{"type":"request","turn":1,"step":1,"messages":2,"bytes":8,"calls_so_far":0}
{"type":"message","turn":1,"step":1,"role":"assistant","content":"hello"}
{"type":"replace","turn":1,"step":1,"keep":1}
{"type":"turn_end","turn":1,"step":1,"messages":1,"bytes":6,"calls_so_far":0}
{"type":"note","turn":0,"step":0,"text":"[The user undid the file changes of turn 1.]"}
`
	lines, err := Read(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Replay(&out, lines); err != nil {
		t.Fatal(err)
	}
	want := `Session 20260101-000000-abcd of m (fake) in /ws, harness v, tools: read_file
system prompt: 6 bytes
user:
  hi
<Step 1> request: 2 messages, 8 bytes
assistant:
  hello
the conversation was cut to its first 1 messages; what follows replaces the rest
note for the model, with the next input: [The user undid the file changes of turn 1.]
`
	if out.String() != want {
		t.Errorf("replay:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestRecordCompaction: a compaction is a line of its own with the
// conversation's size before and after; the summary request it made is
// recorded and replayed as part of it, not as a step.
func TestRecordCompaction(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf)
	summaryReq := protocol.Request{Messages: []protocol.Message{{Content: "SYSTEM"}, {Content: "go"}, {Content: "summarize"}}}
	events := []loop.Event{
		{Kind: loop.StepStarted, Turn: 2, Step: 3, Origin: window.SummaryOrigin, Request: summaryReq},
		{Kind: loop.Replied, Turn: 2, Step: 3, Origin: window.SummaryOrigin, Reply: protocol.Reply{Content: "Done: read a.", Usage: protocol.Usage{Known: true, PromptTokens: 900, OutputTokens: 40}}},
		{Kind: loop.Compacted, Turn: 2, Step: 3, Compaction: loop.Compaction{Before: 41, After: 12, BeforeBytes: 14000, AfterBytes: 5000, BeforeTokens: 3500, AfterTokens: 1250}},
		{Kind: loop.Compacted, Turn: 3, Step: 1, Compaction: loop.Compaction{Before: 14, After: 13, BeforeBytes: 6000, AfterBytes: 5500}},
	}
	for _, e := range events {
		if err := r.Event(e); err != nil {
			t.Fatal(err)
		}
	}
	raw := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if !strings.Contains(raw[2], `"type":"compaction","time":`) ||
		!strings.HasSuffix(raw[2], `"messages_before":41,"messages_after":12,"bytes_before":14000,"bytes_after":5000,"tokens_before":3500,"tokens_after":1250}`) {
		t.Errorf("compaction line:\n%s", raw[2])
	}
	if !strings.Contains(raw[0], `"turn":2,"step":3,"origin":"summary"`) {
		t.Errorf("summary request line:\n%s", raw[0])
	}
	if strings.Contains(raw[0], "before") {
		t.Errorf("a request line holds compaction fields:\n%s", raw[0])
	}
	lines, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if c := lines[2].Compaction; c == nil || c.MessagesAfter != 12 || c.TokensBefore != 3500 || lines[2].Turn != 2 || lines[2].Step != 3 {
		t.Errorf("compaction line read back as %+v, %+v", lines[2], c)
	}
	var out bytes.Buffer
	if err := Replay(&out, lines); err != nil {
		t.Fatal(err)
	}
	want := `compacting: summary request: 3 messages, 17 bytes
Summary (0 ms, 900 prompt + 40 output tokens):
  Done: read a.
compacted: 41 -> 12 messages, 14000 -> 5000 bytes, 3500 -> 1250 tokens
compacted: 14 -> 13 messages, 6000 -> 5500 bytes, ? -> ? tokens
`
	if out.String() != want {
		t.Errorf("replay:\n%s\nwant\n%s", out.String(), want)
	}
}

// TestModelLine: a change of model is a line of its own, which reads back
// and replays as what changed and from which turn.
func TestModelLine(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf)
	if err := r.Model(3, "llama9", "qwen3:8b"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), `{"type":"model","time":`) || !strings.Contains(buf.String(), `"turn":3,"step":0,"from":"llama9","to":"qwen3:8b"}`) {
		t.Fatalf("model line %s", buf.String())
	}
	lines, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if l := lines[0]; l.Type != "model" || l.Turn != 3 || l.From != "llama9" || l.To != "qwen3:8b" || l.Start != nil {
		t.Fatalf("read back %+v", l)
	}
	var out bytes.Buffer
	if err := Replay(&out, lines); err != nil {
		t.Fatal(err)
	}
	if want := "model: qwen3:8b from turn 3 (was llama9)\n"; out.String() != want {
		t.Errorf("replay %q, want %q", out.String(), want)
	}
}

// TestIntOption: a setting the run started with reads as a whole number
// whether it was written by the run (an int) or read back from its file
// (a float64); anything else is not one.
func TestIntOption(t *testing.T) {
	st := Start{Options: map[string]any{"num_ctx": 8192, "num_predict": float64(512), "temperature": 0.7, "seed": "7"}}
	for _, tt := range []struct {
		setting protocol.Setting
		want    int
		ok      bool
	}{
		{protocol.NumCtx, 8192, true},
		{protocol.NumPredict, 512, true},
		{protocol.Temperature, 0, false},
		{protocol.Seed, 0, false},
		{"missing", 0, false},
	} {
		if got, ok := st.IntOption(tt.setting); got != tt.want || ok != tt.ok {
			t.Errorf("IntOption(%s) = %d, %v; want %d, %v", tt.setting, got, ok, tt.want, tt.ok)
		}
	}
}
