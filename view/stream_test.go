package view

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"harness/loop"
	"harness/protocol"
)

func TestShowable(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"Hello", "Hello"},
		{"Hello wor", "Hello wor"},
		{"Hello   ", "Hello"},
		{"Hello\r", "Hello"},
		{"  Indented line", "  Indented line"},
		{"Today", "Today"},
		{"日本語の文", "日本語の文"},
		{"Café\xc3", "Café"},
		{"- an item", "- an item"},
		{"1. A step", "1. A step"},
		{"## A title", "## A title"},
		{"read the file", "read the file"},
		{"Sure <tool_call>", "Sure"},
		{"Sure <", "Sure"},
		{"Then [TOOL_C", "Then"},
		{"Then [link](x) and", "Then [link](x) and"},
		{"I want to", "I want"},
		{"Call it to=functions.read_file", "Call it"},
		{"Read_file({", "Read"},
		{"The tool▁call", "The"}, {"The tools", "The tools"},
		// Nothing shows of these before the newline.
		{"", ""}, {"   ", ""}, {"T", ""}, {"To", ""}, {"TOOL_", ""}, {"TOOL_CALL {", ""}, {"tool_result", ""},
		{"Tool_call", ""}, {"Action", ""}, {"Action: read_file", ""}, {"Actions speak", ""}, {"Observation: x", ""},
		{"read_file", ""}, {"read_file({", ""}, {"bash", ""}, {"12", ""}, {"1.", ""}, {"-", ""}, {"-5 degrees", ""},
		{"**TOOL_CALL**", ""}, {"**Bold**", ""}, {"> TOOL_RESULT", ""}, {"> quote", ""}, {"`TOOL_CALL {}`", ""},
		{"```go", ""}, {"{\"name\"", ""}, {"[read_file(", ""}, {"<think>", ""}, {"<tool_call>", ""},
		{"<|python_tag|>", ""}, {"[TOOL_CALLS]", ""}, {"✿FUNCTION✿", ""}, {"\x1b]0;title\a", ""},
		{"- TOOL_CALL {", ""}, {"1. TOOL_CALL {", ""}, {"# TOOL_CALL", ""},
	} {
		if got := c.line[:showable(c.line)]; got != c.want {
			t.Errorf("showable(%q) shows %q, want %q", c.line, got, c.want)
		}
	}
}

// showLines are lines of every shape a call, a result or thinking takes,
// and prose that looks like them.
var showLines = append([]string{
	`TOOL_CALL {"name":"read_file","arguments":{"path":"a"}}`,
	`<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>`,
	`Sure. <tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>`,
	`<function=read_file><parameter=path>a</parameter></function>`,
	`<|python_tag|>{"name":"read_file","parameters":{"path":"a"}}`,
	`[TOOL_CALLS]read_file{"path":"a"}`,
	`Then [TOOL_CALLS][{"name":"read_file","arguments":{"path":"a"}}]`,
	`<|tool_call>call:read_file{path:<|"|>a<|"|>}<tool_call|>`,
	`<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path":"a"}<|call|>`,
	`read_file({"path":"a"})`, `[read_file(path="a")]`, `{"name":"read_file","arguments":{"path":"a"}}`,
	`[{"name":"read_file","arguments":{"path":"a"}}]`, `functools[{"name":"read_file","arguments":{}}]`,
	"<read_file><path>a</path></read_file>", `**TOOL_CALL** {"name":"read_file","arguments":{}}`,
	`- tool_call: {"name":"read_file","arguments":{}}`, `1. TOOL_CALL {"name":"read_file","arguments":{}}`,
	"TOOL_RESULT call_1 read_file SUCCESS", "> **tool_result** call_1", "Observation: the file says hi",
	"<tool_response>hi</tool_response>", "<tool_result>hi", "<｜tool▁calls▁begin｜>", "✿FUNCTION✿: read_file",
	"Answer <think>hidden</think> shown", "Hello there, how are you?", "Today we read_file({}) too",
}, renderLines...)

// TestShowableIsText checks that what shows of a line before its end is
// text in the reply once it is whole, as a reader that knows the tools
// reads it: at every byte of lines of every shape.
func TestShowableIsText(t *testing.T) {
	reader := protocol.NewReader([]protocol.ToolSpec{
		{Name: "read_file", Args: []protocol.Arg{{Name: "path", Type: "string", Required: true}}},
		{Name: "bash", Args: []protocol.Arg{{Name: "command", Type: "string", Required: true}}},
	})
	for _, line := range showLines {
		if strings.Contains(line, "</think>") && !strings.Contains(line, "<think>") {
			continue // it takes back all the reply said before, as lines did
		}
		reply := "Intro.\n" + line + "\nAction Input: {}\nOutro.\n"
		text := reader.Parse(reply).Text
		// These make the whole line a call wherever they stand: what
		// shows is what came before them.
		before, whole := line, false
		for _, tok := range []string{"tool▁call", "｜DSML｜", "to=functions."} {
			if i := strings.Index(line, tok); i >= 0 {
				before, whole = line[:i], true
			}
		}
		for i := range len(line) + 1 {
			shown := line[:showable(line[:i])]
			if whole && !strings.HasPrefix(before, shown) || !whole && shown != "" && !strings.HasPrefix(text, "Intro.\n"+shown) {
				t.Errorf("%q shows %q of %q, whose text is %q", line[:i], shown, line, text)
			}
		}
		if prose(line) && !strings.HasPrefix(text, "Intro.\n"+strings.TrimRight(line, " \t\r")) {
			t.Errorf("%q is prose, but the reply's text is %q", line, text)
		}
	}
}

// stream runs a step whose reply arrives as deltas through v.
func stream(v *Turn, deltas ...protocol.Delta) {
	v.Event(loop.Event{Kind: loop.StepStarted, Step: 1})
	var reply protocol.Reply
	for _, d := range deltas {
		v.Event(loop.Event{Kind: loop.Streamed, Step: 1, Delta: d})
		reply.Content += d.Content
		reply.Thinking += d.Thinking
	}
	v.Event(loop.Event{Kind: loop.Replied, Step: 1, Reply: reply, Parsed: protocol.Parse(reply.Content)})
}

// TestStreamWords checks that prose shows a word at a time, as it comes,
// and a call not at all.
func TestStreamWords(t *testing.T) {
	var out bytes.Buffer
	v := &Turn{Out: &out, Log: &bytes.Buffer{}, Stream: true}
	v.Event(loop.Event{Kind: loop.StepStarted, Step: 1})
	want := "Assistant: "
	for _, step := range []struct{ piece, shows string }{
		{"Hello", "Hello"}, {" there,", " there,"}, {" how", " how"}, {" are", " are"}, {" you?\n", " you?"},
		{"- Fine", "\n- Fine"}, {" thanks.\n\n", " thanks."}, {"TOOL", ""}, {"_CALL ", ""},
		{`{"name":"read_file","arguments":{"path":"a"}}`, ""},
	} {
		v.Event(loop.Event{Kind: loop.Streamed, Step: 1, Delta: protocol.Delta{Content: step.piece}})
		want += step.shows
		if got := out.String(); got != want {
			t.Fatalf("after %q: %q, want %q", step.piece, got, want)
		}
	}
}

// TestStreamAfterCode checks that prose after a code block still shows as
// it comes, and that the code block shows once a line of text follows its
// fence, as the reply reader keeps it.
func TestStreamAfterCode(t *testing.T) {
	var out bytes.Buffer
	v := &Turn{Out: &out, Log: &bytes.Buffer{}, Stream: true}
	v.Event(loop.Event{Kind: loop.StepStarted, Step: 1})
	want := "Assistant: "
	for _, step := range []struct{ piece, shows string }{
		{"Code:\n```go\n", "Code:"}, {"\n", ""}, {"x := 1\n", "\n```go\n\nx := 1"}, {"```\n", ""}, {"Then", "\n```\nThen"},
		{" more.\n```\n```\n", " more."}, {"Done", "\nDone"},
	} {
		v.Event(loop.Event{Kind: loop.Streamed, Step: 1, Delta: protocol.Delta{Content: step.piece}})
		want += step.shows
		if got := out.String(); got != want {
			t.Fatalf("after %q: %q, want %q", step.piece, got, want)
		}
	}
}

func TestStreamThinking(t *testing.T) {
	for _, c := range []struct {
		name   string
		deltas []protocol.Delta
		want   string
	}{
		{"streamed", []protocol.Delta{{Thinking: "Let me"}, {Thinking: " see\x1b[2J."}, {Content: "Answer."}},
			"Thinking: Let me see\\u001b[2J.\nAssistant: Answer.\n"},
		{"thinking only", []protocol.Delta{{Thinking: "Hm."}}, "Thinking: Hm.\n"},
		{"with the wire", []protocol.Delta{{Thinking: "Hm."}, {Content: "Answer."}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			v := &Turn{Out: &out, Log: &bytes.Buffer{}, Stream: true, Wire: c.name == "with the wire"}
			stream(v, c.deltas...)
			if got := out.String(); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}

	// Thinking the backend sent whole shows with the reply; dimmed.
	var out bytes.Buffer
	v := &Turn{Out: &out, Log: &bytes.Buffer{}, Style: true, Stream: true}
	v.Event(loop.Event{Kind: loop.StepStarted, Step: 1})
	v.Event(loop.Event{Kind: loop.Replied, Step: 1, Reply: protocol.Reply{Content: "Yes.", Thinking: "Hm."}, Parsed: protocol.Parse("Yes.")})
	if got, want := out.String(), "\x1b[2mThinking: \x1b[0m\x1b[2mHm.\x1b[0m\n\x1b[93mAssistant\x1b[0m: Yes.\n"; got != want {
		t.Errorf("whole thinking: %q, want %q", got, want)
	}
}

// TestStreamInterrupted checks that what was shown of a reply cut off
// stays, its line ended before the note.
func TestStreamInterrupted(t *testing.T) {
	var out bytes.Buffer
	v := &Turn{Out: &out, Log: &out, Stream: true}
	v.Event(loop.Event{Kind: loop.StepStarted, Step: 1})
	for _, p := range []string{"First line.\n", "Then half a", " sentence", " <b"} {
		v.Event(loop.Event{Kind: loop.Streamed, Step: 1, Delta: protocol.Delta{Content: p}})
	}
	v.Event(loop.Event{Kind: loop.Interrupted, Step: 1, Reply: protocol.Reply{Content: "First line.\nThen half a sentence <b"}})
	want := "<Step 1>\nAssistant: First line.\nThen half a sentence\nnote: the model call was interrupted; its partial reply was not run\n"
	if got := out.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

var indicator = regexp.MustCompile("(\x1b\\[2m)?[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏](\x1b\\[0m)?\b|\x1b\\[K")

// TestActivity checks the indicator: drawn while a reply is awaited and
// while it streams, moving as pieces come that show nothing, erased
// before anything else is written, and nothing else changed by it.
func TestActivity(t *testing.T) {
	deltas := []protocol.Delta{{Content: "Hello"}, {Content: " there.\nTOOL_CALL "}, {Content: `{"name":"read_file",`}, {Content: `"arguments":{"path":"a"}}`}}
	var plain, active bytes.Buffer
	stream(&Turn{Out: &plain, Log: &plain, Stream: true}, deltas...)
	v := &Turn{Out: &active, Log: &active, Stream: true, Activity: true}
	v.Event(loop.Event{Kind: loop.StepStarted, Step: 1})
	if got := active.String(); got != "<Step 1>\n⠋\b" {
		t.Fatalf("awaiting a reply: %q", got)
	}
	var frames []string
	for _, d := range deltas {
		v.Event(loop.Event{Kind: loop.Streamed, Step: 1, Delta: d})
		s := active.String()
		if !strings.HasSuffix(s, "\b") {
			t.Fatalf("no indicator after %q: %q", d.Content, s)
		}
		frames = append(frames, s[len(s)-4:])
	}
	if frames[1] == frames[2] || frames[2] == frames[3] {
		t.Errorf("the indicator does not move while a call streams: %q", frames)
	}
	v.Event(loop.Event{Kind: loop.Replied, Step: 1, Parsed: protocol.Parse("Hello there.\nTOOL_CALL x")})
	v.Event(loop.Event{Kind: loop.CallStarted, Step: 1, Call: protocol.Call{Text: "TOOL_CALL x"}})
	got := active.String()
	if strings.Count(got, "\b") != strings.Count(got, "\x1b[K") {
		t.Errorf("an indicator was left on screen: %q", got)
	}
	if !strings.Contains(got, "\x1b[KAssistant: Hello") || !strings.Contains(got, "\x1b[K\ntool-call:") {
		t.Errorf("the indicator is not erased before text: %q", got)
	}
	if stripped := indicator.ReplaceAllString(got, ""); stripped != plain.String()+"tool-call: TOOL_CALL x\n" {
		t.Errorf("without the indicator:\n%q\nwant\n%q", stripped, plain.String())
	}
	if s := plain.String(); strings.ContainsAny(s, "\b\x1b") {
		t.Errorf("an indicator without Activity: %q", s)
	}
}

// TestWireShowsReplyOnce checks that with the wire shown, a reply shows
// once, as the wire shows it, in the main conversation and in a helper's.
func TestWireShowsReplyOnce(t *testing.T) {
	const reply = "Hello there.\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}"
	for _, origin := range []string{"", "call_1"} {
		var out bytes.Buffer
		wire := NewWire(&out, Style(false), true)
		var turn loop.Hook = &Turn{Out: &out, Log: &out, Stream: true, Wire: true}
		if origin != "" {
			turn = &Nest{w: &out, views: map[string]*Turn{}, Wire: true}
		}
		hooks := loop.Hooks{turn, wire}
		hooks.Event(loop.Event{Kind: loop.StepStarted, Step: 1, Origin: origin, Request: protocol.Request{Messages: []protocol.Message{{Role: protocol.User, Content: "hi"}}}})
		for _, p := range strings.SplitAfter(reply, " ") {
			hooks.Event(loop.Event{Kind: loop.Streamed, Step: 1, Origin: origin, Delta: protocol.Delta{Content: p}})
		}
		hooks.Event(loop.Event{Kind: loop.Replied, Step: 1, Origin: origin, Reply: protocol.Reply{Content: reply, DoneReason: "stop"}, Parsed: protocol.Parse(reply)})
		got := out.String()
		if n := strings.Count(got, "Hello there."); n != 1 || strings.Contains(got, "Assistant") || !strings.Contains(got, "<= reply") {
			t.Errorf("origin %q: the reply shows %d times:\n%s", origin, n, got)
		}
	}

	// Without the wire, the view shows the reply as ever.
	var out bytes.Buffer
	stream(&Turn{Out: &out, Log: &out, Stream: true}, protocol.Delta{Content: reply})
	if got := out.String(); !strings.Contains(got, "Assistant: Hello there.\n") {
		t.Errorf("without the wire: %q", got)
	}
}
