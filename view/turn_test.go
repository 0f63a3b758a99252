package view

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"harness/approve"
	"harness/loop"
	"harness/protocol"
)

// renderWhole is the reference the incremental view must match, byte for
// byte: it parses the whole reply so far at every piece, escaping what it
// prints. At a piece with a newline it shows the text ParseLines reads in
// the complete lines, less a fence opened on the last, as the REPL did when
// it showed replies line by line. While every complete line is prose or a
// plain fence, it
// also shows the line still arriving, as far as showable lets it, as
// ParseLines reads it after them. At the end it shows what Parse reads.
func renderWhole(pieces []string) string {
	var out strings.Builder
	shown, sofar := "", ""
	show := func(text string) {
		if text == shown || !strings.HasPrefix(text, shown) {
			return
		}
		if shown == "" {
			out.WriteString("Assistant: ")
		}
		out.WriteString(approve.Visible(text[len(shown):]))
		shown = text
	}
	checked, allProse := 0, true // the complete lines checked, and whether they are prose
	for _, p := range pieces {
		if p == "" {
			continue
		}
		sofar += p
		nl := strings.LastIndexByte(sofar, '\n')
		if strings.Contains(p, "\n") {
			text := protocol.ParseLines(sofar[:nl]).Text
			// A fence opening on the last line was held back.
			i := strings.LastIndexByte(text, '\n') + 1
			if strings.HasPrefix(strings.TrimSpace(text[i:]), "```") {
				text = strings.TrimRight(text[:i], "\n")
			}
			show(text)
		}
		for ; checked < nl+1; checked += strings.IndexByte(sofar[checked:], '\n') + 1 {
			line := strings.TrimSpace(sofar[checked : checked+strings.IndexByte(sofar[checked:], '\n')])
			allProse = allProse && (prose(line) || strings.HasPrefix(line, "```") && plainFence(line))
		}
		if n := showable(sofar[nl+1:]); allProse && n > 0 {
			show(protocol.ParseLines(sofar[:nl+1] + sofar[nl+1:nl+1+n]).Text)
		}
	}
	show(protocol.Parse(sofar).Text)
	if shown != "" {
		out.WriteString("\n")
	}
	return out.String()
}

// renderView streams pieces through the REPL's view.
func renderView(pieces []string) string {
	var out strings.Builder
	v := &Turn{Out: &out, Log: &strings.Builder{}, Stream: true}
	v.Event(loop.Event{Kind: loop.StepStarted, Step: 1})
	for _, p := range pieces {
		v.Event(loop.Event{Kind: loop.Streamed, Step: 1, Delta: protocol.Delta{Content: p}})
	}
	v.Event(loop.Event{Kind: loop.Replied, Step: 1, Parsed: protocol.Parse(strings.Join(pieces, ""))})
	return out.String()
}

func checkRender(t *testing.T, pieces []string) {
	t.Helper()
	if got, want := renderView(pieces), renderWhole(pieces); got != want {
		t.Fatalf("pieces %q\nrendered %q\nwant     %q", pieces, got, want)
	}
}

// cut cuts s into pieces of 1 to n bytes.
func cut(r *rand.Rand, s string, n int) []string {
	var pieces []string
	for s != "" {
		k := min(1+r.IntN(n), len(s))
		pieces = append(pieces, s[:k])
		s = s[k:]
	}
	return pieces
}

// renderLines are the lines that change how a reply is shown.
var renderLines = []string{
	"Some text.", "", "  ", "\f", "\u00a0", "```", "```go", "  ```  ", "`x`",
	`TOOL_CALL {"name":"read_file","arguments":{"path":"a"}}`,
	"`TOOL_CALL {\"name\":\"read_file\",\"arguments\":{}}`",
	`TOOL_CALL {"name":"write_file","arguments":{"path":"a","content":"<<EOF"}}`,
	`TOOL_CALL {"name":"edit_file","arguments":{"path":"a","old_text":"<<A","new_text":"<<B"}}`,
	"EOF", "A", "B", "TOOL_CALL {", `"name": "read_file"}`, "}",
	"TOOL_RESULT call_1 read_file SUCCESS", "<think>", "</think>", "a <think>b</think> c", "x</think>y", "Some</think>Some more",
	"\x1b]0;title\a", "é\x1b[2Jü",
	// Lines whose start decides whether they show before their end.
	"- a list item", "1. a step", "12) another", "## A title", "* item", "**Bold** text", "> quoted",
	"Action: read_file", `Action Input: {"path": "a"}`, "Observation: it said", "Actions speak",
	`read_file({"path":"a"})`, `Read_file({"path":"a"})`, `[read_file(path="a")]`, `{"name":"read_file","arguments":{}}`,
	`Sure. <tool_call>{"name":"read_file","arguments":{}}</tool_call>`, `Then [TOOL_CALLS][{"name":"read_file","arguments":{}}]`,
	`commentary to=functions.read_file json{}`, "The tool▁call here", "Tool_call", "TOOLS are", "Today is fine.",
	"**TOOL_CALL**", "TOOL_CALL:", "> TOOL_RESULT call_1 x SUCCESS", "tool_result call_1", "日本語の文です。", "x := 1 // code",
	"```tool_code", "```json", "```  <think>", "Hello\r", "Trailing \u00a0", "\xc3\xa9t\xe9 \xe2\x82", "\tIndented line", "Vec<T> is", "a < b and c",
}

// TestRenderIncremental checks that the REPL shows a reply streamed in
// pieces exactly as it did when it parsed the whole reply at every line:
// replies of calls, blocks, fences, thinking and forged results, cut at
// random.
func TestRenderIncremental(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 4000 {
		var reply strings.Builder
		for range r.IntN(16) {
			reply.WriteString(renderLines[r.IntN(len(renderLines))])
			if r.IntN(10) > 0 {
				reply.WriteByte('\n')
			}
		}
		pieces := cut(r, reply.String(), 1+n%30)
		checkRender(t, pieces)
	}
}

func TestRenderIncrementalCases(t *testing.T) {
	call := `TOOL_CALL {"name":"read_file","arguments":{"path":"a"}}`
	for _, reply := range []string{
		"Hello.\nHow are you?",
		"Look:\n```json\n" + call + "\n```\nDone.",
		"Code:\n```go\nx := 1\n```\nDone.\n",
		// The start turns out to be thinking, and the text after it
		// happens to extend what was shown.
		"Hi\nthere</think>Hi\nagain\n",
		"Hi\nthere</think>Bye\nagain\n",
		// A dropped fence takes back a form feed it had kept.
		"a\n\f\n```\n```\n\f\nb\n",
		"a\n```\n\f\n```go\n```\nb\n",
		"Hi.\n" + call + "\nTOOL_RESULT call_1 read_file SUCCESS\ninvented\n",
	} {
		for _, pieces := range [][]string{{reply}, strings.SplitAfter(reply, "\n"), strings.Split(reply, "")} {
			checkRender(t, pieces)
		}
	}
}

func FuzzRender(f *testing.F) {
	for i, l := range renderLines {
		f.Add(fmt.Sprintf("Text.\n%s\nMore text.\n%s\n", l, renderLines[(i*7)%len(renderLines)]), uint64(i))
	}
	f.Fuzz(func(t *testing.T, reply string, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 0))
		checkRender(t, cut(r, reply, 1+int(seed%16)))
	})
}
