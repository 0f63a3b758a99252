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

// renderWhole is how the REPL rendered a streamed reply when it parsed the
// whole reply so far at every newline, escaping what it printed: the
// reference the incremental view must match, byte for byte.
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
	for _, p := range pieces {
		if p == "" {
			continue
		}
		sofar += p
		if strings.Contains(p, "\n") {
			text := protocol.ParseLines(sofar[:strings.LastIndexByte(sofar, '\n')]).Text
			// A fence opening on the last line was held back.
			i := strings.LastIndexByte(text, '\n') + 1
			if strings.HasPrefix(strings.TrimSpace(text[i:]), "```") {
				text = strings.TrimRight(text[:i], "\n")
			}
			show(text)
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
