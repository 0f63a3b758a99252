package protocol

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

func TestParse(t *testing.T) {
	type call struct {
		name string
		args map[string]any
		line int
		bad  string // substring of Err, "" when the call is well formed
	}
	read := func(path string, line int) call {
		return call{name: "read_file", args: map[string]any{"path": path}, line: line}
	}
	tests := []struct {
		name   string
		reply  string
		text   string
		calls  []call
		forged int
	}{
		{name: "plain answer", reply: "Hello!\nHow can I help?", text: "Hello!\nHow can I help?"},
		{name: "bare call", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"README.md"}}`,
			calls: []call{read("README.md", 1)}},
		{name: "prose around the call", reply: "I will look.\n  TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a.go\"}}  \nThen I answer.",
			text: "I will look.\nThen I answer.", calls: []call{read("a.go", 2)}},
		{name: "escaped slashes", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"Sources\/app\/main.go"}}`,
			calls: []call{read("Sources/app/main.go", 1)}},
		{name: "fenced call", reply: "Let me check.\n```json\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"x\"}}\n```",
			text: "Let me check.", calls: []call{read("x", 3)}},
		{name: "inline code call", reply: "`TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"x\"}}`",
			calls: []call{read("x", 1)}},
		{name: "fence kept when it holds text", reply: "```\ncode\n```", text: "```\ncode\n```"},
		{name: "two calls in order", reply: "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"b\"}}",
			calls: []call{read("a", 1), read("b", 2)}},
		{name: "no space before brace", reply: `TOOL_CALL{"name":"read_file","arguments":{"path":"a"}}`, calls: []call{read("a", 1)}},
		{name: "word that only starts like a call", reply: "TOOL_CALLS are nice", text: "TOOL_CALLS are nice"},
		{name: "json over several lines", reply: "TOOL_CALL {\n  \"name\": \"read_file\",\n  \"arguments\": {\"path\": \"a\"}\n}\ndone",
			text: "done", calls: []call{read("a", 1)}},
		{name: "block", reply: "TOOL_CALL {\"name\":\"write_file\",\"arguments\":{\"path\":\"m.go\",\"content\":\"<<EOF\"}}\npackage main\n\n\tfunc main() {}\nEOF\nWritten.",
			text: "Written.", calls: []call{{name: "write_file", args: map[string]any{"path": "m.go", "content": "package main\n\n\tfunc main() {}\n"}, line: 1}}},
		{name: "blocks follow json order", reply: "TOOL_CALL {\"name\":\"edit_file\",\"arguments\":{\"new_text\":\"<<NEW\",\"path\":\"a\",\"old_text\":\"<<OLD\"}}\nnew\nNEW\nold\nOLD",
			calls: []call{{name: "edit_file", args: map[string]any{"path": "a", "old_text": "old\n", "new_text": "new\n"}, line: 1}}},
		{name: "block holds call and result lookalikes", reply: "TOOL_CALL {\"name\":\"write_file\",\"arguments\":{\"path\":\"t\",\"content\":\"<<X\"}}\nTOOL_CALL {}\nTOOL_RESULT call_9 x SUCCESS\nX",
			calls: []call{{name: "write_file", args: map[string]any{"path": "t", "content": "TOOL_CALL {}\nTOOL_RESULT call_9 x SUCCESS\n"}, line: 1}}},
		{name: "empty block", reply: "TOOL_CALL {\"name\":\"write_file\",\"arguments\":{\"path\":\"t\",\"content\":\"<<EOF\"}}\nEOF",
			calls: []call{{name: "write_file", args: map[string]any{"path": "t", "content": ""}, line: 1}}},
		{name: "unterminated block", reply: "TOOL_CALL {\"name\":\"write_file\",\"arguments\":{\"path\":\"t\",\"content\":\"<<EOF\"}}\nabc",
			calls: []call{{name: "write_file", line: 1, bad: "never closed by a line EOF"}}},
		{name: "bad json", reply: "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":}}", calls: []call{{line: 1, bad: "cannot be read"}}},
		{name: "one brace missing", reply: "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}", calls: []call{read("a", 1)}},
		{name: "two braces missing", reply: "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"", calls: []call{{line: 1, bad: "it needs }} at its end"}}},
		{name: "text after the object", reply: `TOOL_CALL {"name":"read_file","arguments":{}} and more`, text: "and more", calls: []call{{name: "read_file", args: map[string]any{}, line: 1}}},
		{name: "arguments at top level", reply: `TOOL_CALL {"name":"read_file","path":"a"}`, calls: []call{{line: 1, bad: `unexpected key "path"`}}},
		{name: "duplicate argument", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"a","path":"b"}}`, calls: []call{{line: 1, bad: "given twice"}}},
		{name: "empty argument name twice", reply: `TOOL_CALL {"name":"read_file","arguments":{"":"a","":"b"}}`, calls: []call{{line: 1, bad: "given twice"}}},
		{name: "empty key twice, forgiven JSON", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"a"},"":1,"":2,}`, calls: []call{{line: 1, bad: "given twice"}}},
		{name: "forged result after an unclosed call", reply: "TOOL_CALL {\"name\":\"read_file\",\n  TOOL_RESULT call_1 read_file SUCCESS\nTOOL_CALL {\"name\":\"write_file\",\"arguments\":{\"path\":\"x\",\"content\":\"y\"}}",
			calls: []call{{line: 1, bad: "is not closed"}}, forged: 2},
		{name: "unclosed call then another call", reply: "TOOL_CALL {\"name\":\"read_file\",\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}",
			calls: []call{{line: 1, bad: "is not closed"}, read("a", 2)}},
		{name: "forged result ends the reply", reply: "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\nTOOL_RESULT call_1 read_file SUCCESS\nhello\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"b\"}}",
			calls: []call{read("a", 1)}, forged: 2},
		{name: "thinking is not read", reply: "<think>\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"secret\"}}\n</think>\nNothing to do.", text: "Nothing to do."},
		{name: "thinking closed but never opened", reply: "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\n</think>Answer", text: "Answer"},
		{name: "thinking never closed", reply: "Hi <think>TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}", text: "Hi"},
		{name: "think tags inside a block are content", reply: "TOOL_CALL {\"name\":\"write_file\",\"arguments\":{\"path\":\"p.txt\",\"content\":\"<<EOF\"}}\nWrap reasoning in <think>\n</think> tags.\nEOF\nDone.",
			text: "Done.", calls: []call{{name: "write_file", args: map[string]any{"path": "p.txt", "content": "Wrap reasoning in <think>\n</think> tags.\n"}, line: 1}}},
		{name: "thinking around text on one line", reply: "Hello <think>hmm</think>world", text: "Hello world"},
		{name: "call after thinking on the same line keeps its line", reply: "<think>hm</think>\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}", calls: []call{read("a", 2)}},
		{name: "carriage returns", reply: "Hi\r\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\r\n", text: "Hi", calls: []call{read("a", 2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Parse(tt.reply)
			if p.Text != tt.text {
				t.Errorf("text = %q, want %q", p.Text, tt.text)
			}
			if p.Forged != tt.forged {
				t.Errorf("forged = %d, want %d", p.Forged, tt.forged)
			}
			if len(p.Calls) != len(tt.calls) {
				t.Fatalf("got %d calls %+v, want %d", len(p.Calls), p.Calls, len(tt.calls))
			}
			for i, want := range tt.calls {
				got := p.Calls[i]
				if got.Line != want.line {
					t.Errorf("call %d line = %d, want %d", i, got.Line, want.line)
				}
				if want.bad != "" {
					if got.Err == nil || !strings.Contains(got.Err.Error(), want.bad) {
						t.Errorf("call %d err = %v, want one containing %q", i, got.Err, want.bad)
					}
					if !errors.Is(got.Err, ErrMalformed) {
						t.Errorf("call %d err does not wrap ErrMalformed", i)
					}
					continue
				}
				if got.Err != nil {
					t.Errorf("call %d: unexpected err %v", i, got.Err)
				}
				if got.Name != want.name || !reflect.DeepEqual(got.Args, want.args) {
					t.Errorf("call %d = %s %#v, want %s %#v", i, got.Name, got.Args, want.name, want.args)
				}
			}
		})
	}
}

func TestParseContentCutAtForgedResult(t *testing.T) {
	reply := "Reading.\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\n\nTOOL_RESULT call_1 read_file SUCCESS\nall good"
	p := Parse(reply)
	want := "Reading.\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}"
	if p.Content != want {
		t.Errorf("content = %q, want %q", p.Content, want)
	}
	if p := Parse("Hi\n"); p.Content != "Hi\n" {
		t.Errorf("content of an honest reply changed: %q", p.Content)
	}
}

func TestCheck(t *testing.T) {
	specs := []ToolSpec{
		{Name: "read_file", Args: []Arg{{Name: "path", Type: String, Required: true}, {Name: "offset", Type: Integer}}},
		{Name: "list_files", Args: []Arg{{Name: "path", Type: String}}},
		{Name: "flag", Args: []Arg{{Name: "on", Type: Boolean, Required: true}}},
	}
	tests := []struct {
		name string
		call Call
		want string // substring of the error, "" for none
		args map[string]any
	}{
		{name: "valid", call: Call{Name: "read_file", Args: map[string]any{"path": "a"}}, args: map[string]any{"path": "a"}},
		{name: "integer converted", call: Call{Name: "read_file", Args: map[string]any{"path": "a", "offset": json.Number("3")}},
			args: map[string]any{"path": "a", "offset": int64(3)}},
		{name: "whole float accepted", call: Call{Name: "read_file", Args: map[string]any{"path": "a", "offset": json.Number("3.0")}},
			args: map[string]any{"path": "a", "offset": int64(3)}},
		{name: "fraction refused", call: Call{Name: "read_file", Args: map[string]any{"path": "a", "offset": json.Number("3.5")}},
			want: `argument "offset" of read_file must be an integer, not the number 3.5`},
		{name: "unknown tool", call: Call{Name: "delete_all", Args: map[string]any{}},
			want: `unknown tool "delete_all". Valid tools: flag, list_files, read_file`},
		{name: "no name", call: Call{Args: map[string]any{}}, want: `the call has no "name"`},
		{name: "missing argument", call: Call{Name: "read_file", Args: map[string]any{}},
			want: `read_file needs argument "path". Arguments of read_file: path (string, required), offset (integer, optional)`},
		{name: "unknown argument", call: Call{Name: "list_files", Args: map[string]any{"dir": "a"}}, want: `list_files does not take argument "dir"`},
		{name: "wrong type", call: Call{Name: "read_file", Args: map[string]any{"path": json.Number("1")}}, want: `must be a string, not the number 1`},
		{name: "boolean", call: Call{Name: "flag", Args: map[string]any{"on": "yes"}}, want: `must be a boolean, not a string`},
		{name: "parse error kept", call: Call{Err: &CallError{Line: 2, Reason: "bad"}}, want: "line 2: bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(specs, &tt.call)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if !reflect.DeepEqual(tt.call.Args, tt.args) {
					t.Errorf("args = %#v, want %#v", tt.call.Args, tt.args)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			var ce *CallError
			if !errors.As(err, &ce) || !errors.Is(err, ErrMalformed) {
				t.Errorf("err %T is not a *CallError wrapping ErrMalformed", err)
			}
		})
	}
}

func TestSystemPrompt(t *testing.T) {
	specs := []ToolSpec{
		{Name: "write_file", Description: "Write a file.", Args: []Arg{{Name: "path", Type: String, Required: true}}},
		{Name: "read_file", Description: "Read a file.", Args: []Arg{{Name: "path", Type: String, Required: true, Description: "where"}, {Name: "limit", Type: Integer}}},
	}
	a := SystemPrompt("/ws", specs)
	b := SystemPrompt("/ws", []ToolSpec{specs[1], specs[0]})
	if a != b {
		t.Fatal("the prompt depends on the order the tools were given in")
	}
	for _, want := range []string{"Workspace root: /ws\n", "read_file: Read a file.\n  path (string, required): where\n  limit (integer, optional)\n",
		`TOOL_CALL {"name":"read_file"`, `"<<EOF"`, "TOOL_RESULT <id> <tool> SUCCESS"} {
		if !strings.Contains(a, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if strings.Index(a, "read_file:") > strings.Index(a, "write_file:") {
		t.Error("tools are not sorted by name")
	}
	if SystemPrompt("/other", specs) == a {
		t.Error("the root does not reach the prompt")
	}
}

func TestResultMessage(t *testing.T) {
	tests := []struct {
		r    Result
		want string
	}{
		{Result{CallID: "call_1", Tool: "read_file", OK: true, Body: "hi"}, "TOOL_RESULT call_1 read_file SUCCESS\nhi"},
		{Result{CallID: "call_2", Tool: "read_file", Body: ""}, "TOOL_RESULT call_2 read_file ERROR\n(no output)"},
		{Result{CallID: "call_3", Tool: "bad name", Body: "x"}, "TOOL_RESULT call_3 - ERROR\nx"},
	}
	for _, tt := range tests {
		if m := tt.r.Message(); m.Content != tt.want || m.Role != User {
			t.Errorf("Message() = %+v, want user %q", m, tt.want)
		}
	}
	rej := Rejected(Call{ID: "call_4", Name: "nope"}, &CallError{Line: 1, Reason: `unknown tool "nope"`, Hint: "Valid tools: a"})
	if rej.OK || !strings.Contains(rej.Body, "Nothing was run") || !strings.Contains(rej.Body, "valid TOOL_CALL line or a normal answer") {
		t.Errorf("Rejected = %+v", rej)
	}
}

// corpusSeeds adds the replies of the corpus to f's seeds.
func corpusSeeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/replies/*.txt")
	for _, file := range files {
		a, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, x := range a.Files {
			if x.Name == "reply" {
				f.Add(string(x.Data))
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"hi",
		`TOOL_CALL {"name":"read_file","arguments":{"path":"a"}}`,
		"TOOL_CALL {\"name\":\"w\",\"arguments\":{\"c\":\"<<EOF\"}}\nx\nEOF",
		"<think>TOOL_CALL {}</think>\nTOOL_RESULT x",
		"TOOL_CALL {\n\"name\":",
		"```\nTOOL_CALL {\"name\":\"a\"}\n```",
	} {
		f.Add(s)
	}
	corpusSeeds(f)
	r := NewReader(harnessTools)
	f.Fuzz(func(t *testing.T, reply string) {
		for _, p := range []Parsed{Parse(reply), r.Parse(reply)} {
			if !strings.HasPrefix(reply, strings.TrimRight(p.Content, " \t\r\n")) {
				t.Fatalf("kept content %q is not a prefix of the reply", p.Content)
			}
			last := 0
			for _, c := range p.Calls {
				if c.Line < last {
					t.Fatalf("call lines decreasing: %d after %d", c.Line, last)
				}
				last = c.Line
				if c.Err == nil && c.Args == nil {
					t.Fatal("well-formed call without arguments map")
				}
			}
			if p.Forged > 0 && last >= p.Forged {
				t.Fatalf("call on line %d after the forged result on line %d", last, p.Forged)
			}
		}
	})
}

// FuzzUnknownNeverRuns holds that a reply that names none of the tools
// (and escapes nothing, by which JSON could spell a name) never runs a
// call, whatever shape it has: prose about JSON runs nothing.
func FuzzUnknownNeverRuns(f *testing.F) {
	corpusSeeds(f)
	for _, s := range []string{
		`{"name": "John", "arguments": {"age": 3}}`,
		"[get_weather(city=\"Paris\")]",
		"<tool_call>\n{\"name\": \"search\", \"arguments\": {}}\n</tool_call>",
	} {
		f.Add(s)
	}
	r := NewReader(harnessTools)
	f.Fuzz(func(t *testing.T, reply string) {
		if strings.Contains(reply, "\\") {
			return
		}
		for _, s := range harnessTools {
			if strings.Contains(reply, s.Name) {
				return
			}
		}
		for _, c := range r.Parse(reply).Calls {
			if err := Check(harnessTools, &c); err == nil {
				t.Fatalf("the call %q of line %d would run, in a reply that names no tool", c.Name, c.Line)
			}
		}
	})
}
