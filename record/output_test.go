package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"harness/loop"
	"harness/protocol"
)

// An output's lines are a record's with the format on each, second after
// the type, and the answer last: how the run ended, in the main
// conversation's last turn. Terminal escapes in what the model wrote are
// escaped, and the output reads back as a record.
func TestOutput(t *testing.T) {
	var buf bytes.Buffer
	r := started(t, NewOutput(&buf))
	events := []loop.Event{
		{Kind: loop.TurnStarted, Turn: 2, Text: "hi"},
		{Kind: loop.Replied, Turn: 2, Step: 1, Reply: protocol.Reply{Content: "\x1b[2Jgone"}},
		{Kind: loop.TurnStarted, Turn: 1, Origin: "call_1", Text: "help"},
		{Kind: loop.TurnEnded, Turn: 2, Step: 1, Err: fmt.Errorf("turn: %w", &loop.LimitError{Name: "max-steps", Value: "1"})},
	}
	for _, e := range events {
		if err := r.Event(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Approval(2, 1, "call_1", "bash", "run", "nobody"); err != nil {
		t.Fatal(err)
	}
	err := fmt.Errorf("turn: %w", &loop.LimitError{Name: "max-steps", Value: "1"})
	if err := r.End("", 3, err); err != nil {
		t.Fatal(err)
	}
	raw := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	var types []string
	for _, line := range raw {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, line)
		}
		typ := obj["type"].(string)
		types = append(types, typ)
		if prefix := `{"type":"` + typ + `","format":1,"time":`; !strings.HasPrefix(line, prefix) {
			t.Errorf("line does not begin with %s: %s", prefix, line)
		}
	}
	if got := strings.Join(types, " "); got != "start turn reply turn turn_end approval answer" {
		t.Errorf("types = %s", got)
	}
	if strings.Contains(buf.String(), "\x1b") || !strings.Contains(raw[2], `"content":"\u001b[2Jgone"`) {
		t.Errorf("a terminal escape is not escaped: %s", raw[2])
	}
	if want := `{"type":"answer","format":1,"time":"2026-01-02T03:04:05Z","turn":2,"step":0,"answer":"","error":"turn: stopped: reached the limit of 1  (max-steps=1)","exit":3,"limit":"max-steps"}`; raw[len(raw)-1] != want {
		t.Errorf("answer line\n%s\nwant\n%s", raw[len(raw)-1], want)
	}
	lines, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if l := lines[0]; l.Start == nil || l.Model != "m" || l.Format != Format {
		t.Errorf("start line read back as %+v", l)
	}
	if l := lines[len(lines)-1]; l.Type != "answer" || l.Exit == nil || *l.Exit != 3 {
		t.Errorf("answer line read back as %+v", l)
	}
	var shown strings.Builder
	if err := Replay(&shown, lines); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(shown.String(), "\nExit code 3, the limit max-steps\n") {
		t.Errorf("the replay ends otherwise:\n%s", shown.String())
	}
}

// A record file says its format on its start line alone, and has no
// answer line.
func TestRecordHasFormatOnStartOnly(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf)
	r.Start(Start{Model: "m"})
	r.Event(loop.Event{Kind: loop.TurnStarted, Turn: 1, Text: "hi"})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"format":1`) || strings.Contains(lines[1], `"format"`) {
		t.Errorf("record:\n%s", buf.String())
	}
}
