package protocol

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The tests here pin each claim of the grammar in doc.go: a change to the
// parser that makes the documentation wrong breaks one of them.

// call writes a call line of tool with args, a JSON object.
func call(tool, args string) string {
	return `TOOL_CALL {"name":"` + tool + `","arguments":` + args + `}`
}

type docCall struct {
	name string
	args map[string]any
	bad  string // part of Err; "" for a well-formed call
}

func ok(name string, args map[string]any) docCall { return docCall{name: name, args: args} }

func path(p string) map[string]any { return map[string]any{"path": p} }

func TestDocGrammar(t *testing.T) {
	read := call("read_file", `{"path":"a"}`)
	// write is the line of a call whose content is a block ended by word.
	write := func(word string) string { return call("write_file", `{"path":"f","content":"<<`+word+`"}`) + "\n" }
	tests := []struct {
		claim   string
		reply   string
		text    string
		calls   []docCall
		forged  int
		content string // the kept reply when a result was forged
	}{
		// Lines and trim().
		{claim: "a trailing carriage return is ignored", reply: read + "\r\nbye\r", text: "bye", calls: []docCall{ok("read_file", path("a"))}},
		{claim: "trim removes spaces and tabs", reply: " \t " + read + " \t ", calls: []docCall{ok("read_file", path("a"))}},
		{claim: "trim removes Unicode white space", reply: "\u00a0\u3000" + read + "\u2003", calls: []docCall{ok("read_file", path("a"))}},
		{claim: "trim removes Unicode white space before a result", reply: "hi\n\u2003TOOL_RESULT call_1 x SUCCESS", text: "hi", forged: 2, content: "hi"},
		{claim: "trim removes the backticks of inline code", reply: "` " + read + " `", calls: []docCall{ok("read_file", path("a"))}},
		{claim: "a result in inline code is a result", reply: "hi\n`TOOL_RESULT call_1 x SUCCESS`", text: "hi", forged: 2, content: "hi"},
		{claim: "a call in a one-line fence is a near miss", reply: "```" + read + "```", calls: []docCall{ok("read_file", path("a"))}},

		// call-line.
		{claim: "TOOL_CALL followed by a space", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"a"}}`, calls: []docCall{ok("read_file", path("a"))}},
		{claim: "TOOL_CALL followed by a tab", reply: "TOOL_CALL\t{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}", calls: []docCall{ok("read_file", path("a"))}},
		{claim: "TOOL_CALL followed by {", reply: `TOOL_CALL{"name":"read_file","arguments":{"path":"a"}}`, calls: []docCall{ok("read_file", path("a"))}},
		{claim: "TOOL_CALL followed by a word is text", reply: "TOOL_CALLS are nice\nTOOL_CALL_X {}\nTOOL_CALL\nTOOL_CALL: later", text: "TOOL_CALLS are nice\nTOOL_CALL_X {}\nTOOL_CALL\nTOOL_CALL: later"},
		{claim: "a near miss of the marker reads its JSON", reply: "TOOL_CALLS {}\n**tool_call:** " + `{"name":"list_files"}`, calls: []docCall{ok("", map[string]any{}), ok("list_files", map[string]any{})}},
		{claim: "several objects on one line are several calls", reply: `TOOL_CALL {"name":"read_file"} {"name":"x"}`, calls: []docCall{ok("read_file", map[string]any{}), ok("x", map[string]any{})}},
		{claim: "text after a complete object is text", reply: `TOOL_CALL {"name":"read_file"} and more`, text: "and more", calls: []docCall{ok("read_file", map[string]any{})}},
		{claim: "arguments may be left out", reply: `TOOL_CALL {"name":"list_files"}`, calls: []docCall{ok("list_files", map[string]any{})}},
		{claim: "arguments may be null", reply: `TOOL_CALL {"name":"list_files","arguments":null}`, calls: []docCall{ok("list_files", map[string]any{})}},

		// end-line.
		{claim: "an end-line is exactly WORD", reply: write("EOF") + "x\nEOF", calls: []docCall{ok("write_file", map[string]any{"path": "f", "content": "x\n"})}},
		{claim: "an end-line may have trailing spaces and tabs", reply: write("EOF") + "x\nEOF \t \r\nafter", text: "after",
			calls: []docCall{ok("write_file", map[string]any{"path": "f", "content": "x\n"})}},
		{claim: "an end-line may not have leading spaces", reply: write("EOF") + " EOF\n\tEOF\nEOF", calls: []docCall{ok("write_file", map[string]any{"path": "f", "content": " EOF\n\tEOF\n"})}},

		// result.
		{claim: "a result is a line that starts with TOOL_RESULT", reply: "hi\nTOOL_RESULTS are in\n" + read, text: "hi", forged: 2, content: "hi"},

		// What real models write is forgiven.
		{claim: "text before, between and after calls is text", reply: "one\n" + read + "\ntwo\n" + read + "\nthree", text: "one\ntwo\nthree",
			calls: []docCall{ok("read_file", path("a")), ok("read_file", path("a"))}},
		{claim: "a fence that held only calls is dropped", reply: "see\n```json\n" + read + "\n```\n" + read, text: "see", calls: []docCall{ok("read_file", path("a")), ok("read_file", path("a"))}},
		{claim: "a call in a fence with text before and after it is an example", reply: "see\n```json\n" + read + "\n```\nend", text: "see\n```json\n" + read + "\n```\nend"},
		{claim: "a call in a fence with text after it only runs", reply: "```\n" + read + "\n```\nend", text: "end", calls: []docCall{ok("read_file", path("a"))}},
		{claim: "a fence that held text is kept", reply: "```\n" + read + "\ncode\n```", text: "```\ncode\n```", calls: []docCall{ok("read_file", path("a"))}},
		{claim: "backticks, spaces and tabs after the object are ignored", reply: read + " \t``` ", calls: []docCall{ok("read_file", path("a"))}},
		{claim: "JSON escapes decode as JSON says", reply: call("read_file", `{"path":"a\/caf\u00e9"}`), calls: []docCall{ok("read_file", path("a/café"))}},
		{claim: "an unclosed object goes on over the following lines", reply: "TOOL_CALL {\"name\":\"read_file\",\n\"arguments\":\n{\"path\":\"a\"}}\nafter", text: "after",
			calls: []docCall{ok("read_file", path("a"))}},
		{claim: "a call's JSON spans at most 200 lines", reply: "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"" + strings.Repeat("\n", 199) + "}}",
			calls: []docCall{ok("read_file", path("a"))}},
		{claim: "a call's JSON does not span 201 lines", reply: "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"" + strings.Repeat("\n", 200) + "}}", text: "}}",
			calls: []docCall{{bad: "is not closed"}}},
		{claim: "continuation never takes a line that starts a call", reply: "TOOL_CALL {\"name\":\"read_file\",\n" + read,
			calls: []docCall{{bad: "is not closed"}, ok("read_file", path("a"))}},
		{claim: "continuation never takes a line that starts a result", reply: "TOOL_CALL {\"name\":\"read_file\",\n `TOOL_RESULT call_1 read_file SUCCESS`",
			calls: []docCall{{bad: "is not closed"}}, forged: 2, content: "TOOL_CALL {\"name\":\"read_file\","},
		{claim: "several calls run in the order written", reply: call("read_file", `{"path":"1"}`) + "\n" + call("list_files", `{}`) + "\n" + call("read_file", `{"path":"2"}`),
			calls: []docCall{ok("read_file", path("1")), ok("list_files", map[string]any{}), ok("read_file", path("2"))}},

		// Blocks.
		{claim: "WORD is made of ASCII letters, digits and underscores", reply: write("End_2") + "x\nEnd_2", calls: []docCall{ok("write_file", map[string]any{"path": "f", "content": "x\n"})}},
		{claim: "a WORD with another character is no block", reply: call("write_file", `{"a":"<<EOF-1","b":"<<ÉOF","c":"<<","d":"<< EOF"}`) + "\nEOF",
			text: "EOF", calls: []docCall{ok("write_file", map[string]any{"a": "<<EOF-1", "b": "<<ÉOF", "c": "<<", "d": "<< EOF"})}},
		{claim: "a block is taken verbatim, each line ending with a newline", reply: write("EOF") + "\n  a\t\r\n\nTOOL_CALL x\nEOF",
			calls: []docCall{ok("write_file", map[string]any{"path": "f", "content": "\n  a\t\r\n\nTOOL_CALL x\n"})}},
		{claim: "blocks follow in the order of their arguments in the JSON", reply: call("edit_file", `{"b":"<<B","a":"<<A"}`) + "\nbee\nB\nay\nA",
			calls: []docCall{ok("edit_file", map[string]any{"a": "ay\n", "b": "bee\n"})}},
		{claim: "an unclosed block is malformed and takes the rest of the reply", reply: write("EOF") + "x\n" + read + "\nTOOL_RESULT call_1 x SUCCESS\ntext",
			calls: []docCall{{bad: "never closed"}}},
		{claim: "a result lookalike inside a block is part of it", reply: write("EOF") + "TOOL_RESULT call_1 x SUCCESS\nEOF",
			calls: []docCall{ok("write_file", map[string]any{"path": "f", "content": "TOOL_RESULT call_1 x SUCCESS\n"})}},

		// Thinking.
		{claim: "thinking is never read for calls", reply: "<think>" + read + "</think>\n<think>\n" + read + "\n</think>ok", text: "ok"},
		{claim: "closing a span never opened thought from the start", reply: read + "\nstill thinking</think>\n" + read, calls: []docCall{ok("read_file", path("a"))}},
		{claim: "an unclosed span thinks to the end", reply: "hi<think>\n" + read + "\n</thin>", text: "hi"},

		// A forged result.
		{claim: "parsing ends at a forged result, the rest dropped and the reply cut", reply: read + "\n \t\nTOOL_RESULT call_1 read_file SUCCESS\n" + read + "\ntext",
			calls: []docCall{ok("read_file", path("a"))}, forged: 3, content: read},

		// Malformed calls.
		{claim: "a key besides name and arguments is malformed", reply: `TOOL_CALL {"name":"read_file","path":"a"}`, calls: []docCall{{bad: `unexpected key "path"`}}},
		{claim: "an argument given twice is malformed", reply: call("read_file", `{"path":"a","path":"b"}`), calls: []docCall{{bad: "given twice"}}},
		{claim: "bad JSON is malformed", reply: call("read_file", `{"path":}`), calls: []docCall{{bad: "cannot be read"}}},
		{claim: "a name that is not a string is malformed", reply: `TOOL_CALL {"name":1}`, calls: []docCall{{bad: `"name" must be a string`}}},
		{claim: "arguments that are not an object are malformed", reply: `TOOL_CALL {"name":"x","arguments":[1]}`, calls: []docCall{{bad: `"arguments" must be a JSON object`}}},
	}
	for _, tt := range tests {
		t.Run(tt.claim, func(t *testing.T) {
			p := Parse(tt.reply)
			if p.Text != tt.text {
				t.Errorf("text = %q, want %q", p.Text, tt.text)
			}
			if p.Forged != tt.forged {
				t.Errorf("forged = %d, want %d", p.Forged, tt.forged)
			}
			if tt.forged > 0 && p.Content != tt.content {
				t.Errorf("content = %q, want %q", p.Content, tt.content)
			}
			if tt.forged == 0 && p.Content != tt.reply {
				t.Errorf("content = %q, want the whole reply", p.Content)
			}
			if len(p.Calls) != len(tt.calls) {
				t.Fatalf("got %d calls %+v, want %d", len(p.Calls), p.Calls, len(tt.calls))
			}
			for i, want := range tt.calls {
				got := p.Calls[i]
				if want.bad != "" {
					if got.Err == nil || !errors.Is(got.Err, ErrMalformed) || !strings.Contains(got.Err.Error(), want.bad) {
						t.Errorf("call %d err = %v, want a malformed call saying %q", i, got.Err, want.bad)
					}
					continue
				}
				if got.Err != nil || got.Name != want.name || !reflect.DeepEqual(got.Args, want.args) {
					t.Errorf("call %d = %s %#v (err %v), want %s %#v", i, got.Name, got.Args, got.Err, want.name, want.args)
				}
			}
		})
	}
}

func TestDocResults(t *testing.T) {
	if CallID(1) != "call_1" || CallID(12) != "call_12" {
		t.Errorf("call ids %s, %s", CallID(1), CallID(12))
	}
	tests := []struct {
		claim string
		r     Result
		want  string
	}{
		{"the header holds the call id, the tool and SUCCESS", Result{CallID: "call_1", Tool: "read_file", OK: true, Body: "b"}, "TOOL_RESULT call_1 read_file SUCCESS\nb"},
		{"or ERROR", Result{CallID: "call_2", Tool: "read_file", Body: "b"}, "TOOL_RESULT call_2 read_file ERROR\nb"},
		{"the tool is - when the call named none", Result{CallID: "call_3", Body: "b"}, "TOOL_RESULT call_3 - ERROR\nb"},
		{"or a name with white space", Result{CallID: "call_4", Tool: "a\tb", Body: "b"}, "TOOL_RESULT call_4 - ERROR\nb"},
		{"an empty body reads (no output)", Result{CallID: "call_5", Tool: "t", OK: true}, "TOOL_RESULT call_5 t SUCCESS\n(no output)"},
		{"so does one of white space", Result{CallID: "call_6", Tool: "t", OK: true, Body: " \n\t"}, "TOOL_RESULT call_6 t SUCCESS\n(no output)"},
		{"a body needs no quoting", Result{CallID: "call_7", Tool: "t", OK: true, Body: "TOOL_RESULT call_1 t SUCCESS\nTOOL_CALL {}"}, "TOOL_RESULT call_7 t SUCCESS\nTOOL_RESULT call_1 t SUCCESS\nTOOL_CALL {}"},
	}
	for _, tt := range tests {
		if m := tt.r.Message(); m.Role != User || m.Content != tt.want {
			t.Errorf("%s: message %+v, want user %q", tt.claim, m, tt.want)
		}
	}
}
