package protocol

import (
	"strings"
	"testing"
)

// TestDocShapes pins each claim of the sections of doc.go on call
// objects, repairs, other shapes, attempts, examples and forged results:
// what the harness does with each call of a reply, as outcome says ("TOOL
// {args}" when it runs, "error" when it is refused), and the line of a
// forged result.
func TestDocShapes(t *testing.T) {
	const read = `read_file {"path":"a"}`
	tests := []struct {
		claim  string
		reply  string
		want   []string
		forged int
		text   string // checked when not empty
	}{
		// Call objects.
		{claim: "parameters for arguments", reply: `TOOL_CALL {"name":"read_file","parameters":{"path":"a"}}`, want: []string{read}},
		{claim: "args for arguments", reply: `TOOL_CALL {"name":"read_file","args":{"path":"a"}}`, want: []string{read}},
		{claim: "input for arguments", reply: `TOOL_CALL {"name":"read_file","input":{"path":"a"}}`, want: []string{read}},
		{claim: "tool for name", reply: `TOOL_CALL {"tool":"read_file","arguments":{"path":"a"}}`, want: []string{read}},
		{claim: "tool_name for name", reply: `TOOL_CALL {"tool_name":"read_file","arguments":{"path":"a"}}`, want: []string{read}},
		{claim: "arguments as a JSON string", reply: `TOOL_CALL {"name":"read_file","arguments":"{\"path\":\"a\"}"}`, want: []string{read}},
		{claim: "OpenAI's function object", reply: `TOOL_CALL {"type":"function","id":"x","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}`, want: []string{read}},
		{claim: "function for name", reply: `TOOL_CALL {"function":"read_file","arguments":{"path":"a"}}`, want: []string{read}},
		{claim: "an id and a type are left out", reply: `TOOL_CALL {"id":"call_0","type":"function","name":"read_file","arguments":{"path":"a"}}`, want: []string{read}},
		{claim: "arguments beside the name", reply: `TOOL_CALL {"name":"read_file","path":"a"}`, want: []string{read}},
		{claim: "a key beside the name that is no argument is malformed", reply: `TOOL_CALL {"name":"read_file","file":"a"}`, want: []string{"error"}},
		{claim: "a tool_calls envelope", reply: `{"tool_calls":[{"name":"read_file","arguments":{"path":"a"}},{"name":"list_files"}]}`, want: []string{read, "list_files {}"}},
		{claim: "a tool_call envelope", reply: `{"tool_call":{"name":"read_file","arguments":{"path":"a"}}}`, want: []string{read}},
		{claim: "arguments given twice is malformed", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"a"},"args":{"path":"b"}}`, want: []string{"error"}},

		// Repairs.
		{claim: "a trailing comma", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"a",},}`, want: []string{read}},
		{claim: "single quotes", reply: `TOOL_CALL {'name':'read_file','arguments':{'path':'a'}}`, want: []string{read}},
		{claim: "curly quotes", reply: `TOOL_CALL {“name”:“read_file”,“arguments”:{“path”:“a”}}`, want: []string{read}},
		{claim: "comments", reply: "TOOL_CALL {\"name\":\"read_file\", // the file\n\"arguments\":{/* which */\"path\":\"a\"}}", want: []string{read}},
		{claim: "Python literals", reply: `TOOL_CALL {"name":"list_files","arguments":{"path":None}}`, want: []string{"list_files {}"}},
		{claim: "one missing brace at the end", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"a"}`, want: []string{read}},
		{claim: "not after a comma", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"a"},`, want: []string{"error"}},
		{claim: "two missing braces are an error", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"a"`, want: []string{"error"}},
		{claim: "a leading zero is an error", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"a","limit":07}}`, want: []string{"error"}},
		{claim: "a string past the end of its line is an error", reply: "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\nb\"}}", want: []string{"error"}},
		{claim: "an escape JSON lacks is an error", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"a\q"}}`, want: []string{"error"}},
		{claim: "an integer as a string of digits", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"a","limit":"20"}}`, want: []string{`read_file {"limit":20,"path":"a"}`}},
		{claim: "a word is no integer", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"a","limit":"all"}}`, want: []string{"error"}},
		{claim: "null for an optional argument", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"a","limit":null}}`, want: []string{read}},
		{claim: "null for a required argument is an error", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":null}}`, want: []string{"error"}},

		{claim: "bracketed text after a call is text", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"a"}} [see the docs](x)`, want: []string{read}, text: "[see the docs](x)"},

		// Near misses.
		{claim: "any letter case", reply: `tool_call {"name":"read_file","arguments":{"path":"a"}}`, want: []string{read}},
		{claim: "a plural", reply: `TOOL_CALLS [{"name":"read_file","arguments":{"path":"a"}},{"name":"list_files"}]`, want: []string{read, "list_files {}"}},
		{claim: "emphasis and a colon", reply: `**TOOL_CALL:** {"name":"read_file","arguments":{"path":"a"}}`, want: []string{read}},
		{claim: "brackets", reply: `[TOOL_CALL] {"name":"read_file","arguments":{"path":"a"}}`, want: []string{read}},
		{claim: "a bullet and backticks", reply: "1. `TOOL_CALL` " + `{"name":"read_file","arguments":{"path":"a"}}`, want: []string{read}},
		{claim: "a quote", reply: `> TOOL_CALL: {"name":"read_file","arguments":{"path":"a"}}`, want: []string{read}},
		{claim: "the marker alone, its JSON below", reply: "TOOL_CALL:\n\n" + `{"name":"read_file","arguments":{"path":"a"}}`, want: []string{read}},
		{claim: "the marker alone, its JSON in a fence", reply: "**TOOL_CALL**\n```json\n{\"name\":\"read_file\",\n\"arguments\":{\"path\":\"a\"}}\n```\nok", want: []string{read}, text: "ok"},
		{claim: "the marker alone with no JSON is text", reply: "TOOL_CALL\nis our marker", text: "TOOL_CALL\nis our marker"},

		// Trained formats.
		{claim: "hermes", reply: "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n</tool_call>", want: []string{read}},
		{claim: "hermes on one line, twice", reply: `<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call><tool_call>{"name":"list_files"}</tool_call>`, want: []string{read, "list_files {}"}},
		{claim: "hermes without its closing tag", reply: "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}", want: []string{read}},
		{claim: "hermes naming an unknown tool is an error", reply: `<tool_call>{"name":"search","arguments":{}}</tool_call>`, want: []string{"error"}},
		{claim: "hermes holding no JSON is an error", reply: `<tool_call>please read a</tool_call>`, want: []string{"error"}},
		{claim: "<tools>", reply: `<tools>{"name":"read_file","arguments":{"path":"a"}}</tools>`, want: []string{read}},
		{claim: "<|tool_call|>", reply: `<|tool_call|>[{"name":"read_file","arguments":{"path":"a"}}]<|/tool_call|>`, want: []string{read}},
		{claim: "qwen3-coder", reply: "<tool_call>\n<function=write_file>\n<parameter=path>\na\n</parameter>\n<parameter=content>\nx\ny\n</parameter>\n</function>\n</tool_call>", want: []string{`write_file {"content":"x\ny","path":"a"}`}},
		{claim: "qwen3-coder without its wrapper", reply: "<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>", want: []string{read}},
		{claim: "glm", reply: "<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>a</arg_value>\n</tool_call>", want: []string{read}},
		{claim: "llama's function tag", reply: `<function=read_file>{"path": "a"}</function>`, want: []string{read}},
		{claim: "python tag", reply: `<|python_tag|>{"name": "read_file", "parameters": {"path": "a"}}<|eom_id|>`, want: []string{read}},
		{claim: "python tag, objects after semicolons", reply: `<|python_tag|>{"name": "read_file", "parameters": {"path": "a"}}; {"name": "list_files", "parameters": {}}`, want: []string{read, "list_files {}"}},
		{claim: "python tag, a built-in tool", reply: `<|python_tag|>brave_search.call(query="go")`, want: []string{"error"}},
		{claim: "mistral's array", reply: `[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "a"}, "id": "abc123def"}]`, want: []string{read}},
		{claim: "mistral's NAME[ARGS]", reply: `[TOOL_CALLS]read_file[ARGS]{"path": "a"}[TOOL_CALLS]list_files[ARGS]{}`, want: []string{read, "list_files {}"}},
		{claim: "mistral's [CALL_ID]", reply: `[TOOL_CALLS]read_file[CALL_ID]x1[ARGS]{"path": "a"}`, want: []string{read}},
		{claim: "mistral's NAME{...}", reply: `[TOOL_CALLS]read_file{"path": "a"}`, want: []string{read}},
		{claim: "a python list", reply: `[read_file(path="a"), list_files()]`, want: []string{read, "list_files {}"}},
		{claim: "a python list of no tool is text", reply: `[get_weather(city="Paris")]`, text: `[get_weather(city="Paris")]`},
		{claim: "python_start", reply: `<|python_start|>[read_file(path='a')]<|python_end|>`, want: []string{read}},
		{claim: "gemma's tool_code", reply: "```tool_code\nprint(default_api.read_file(path=\"a\"))\n```", want: []string{read}},
		{claim: "python in a python fence is code", reply: "```python\nread_file(path=\"a\")\n```", text: "```python\nread_file(path=\"a\")\n```"},
		{claim: "bare JSON", reply: `{"name": "read_file", "arguments": {"path": "a"}}`, want: []string{read}},
		{claim: "bare JSON in a json fence", reply: "```json\n{\"name\": \"read_file\", \"parameters\": {\"path\": \"a\"}}\n```", want: []string{read}},
		{claim: "bare JSON naming no tool is text", reply: `{"name": "demo", "version": "1.0.0"}`, text: `{"name": "demo", "version": "1.0.0"}`},
		{claim: "a bare call of an unknown tool is an attempt", reply: `{"name": "search_web", "arguments": {"q": "go"}}`, want: []string{"error"}},
		{claim: "in a json fence after text it is text", reply: "Like this:\n```json\n{\"name\": \"search_web\", \"arguments\": {\"q\": \"go\"}}\n```", text: "Like this:\n```json\n{\"name\": \"search_web\", \"arguments\": {\"q\": \"go\"}}\n```"},
		{claim: "in a json fence that is the whole reply it is an attempt", reply: "```json\n{\"name\": \"search_web\", \"arguments\": {\"q\": \"go\"}}\n```", want: []string{"error"}},
		{claim: "one known among unknown ones", reply: `{"name": "slugify", "parameters": {}}; {"name": "read_file", "parameters": {"path": "a"}}`, want: []string{"error", read}},
		{claim: "bare JSON in a go fence is code", reply: "```go\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n```", text: "```go\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n```"},

		{claim: "react", reply: "Thought: I need the file.\nAction: read_file\nAction Input: {\"path\": \"a\"}\nObservation: made up", want: []string{read}, forged: 4},
		{claim: "react with a plain input for the one required argument", reply: "Action: read_file\nAction Input: a", want: []string{read}},
		{claim: "react with a plain input and several required arguments", reply: "Action: edit_file\nAction Input: a", want: []string{"error"}},
		{claim: "an action line alone is text", reply: "Action: none needed", text: "Action: none needed"},
		{claim: "gemma 4 with braces", reply: `<|tool_call>call:read_file{path:<|"|>a<|"|>,limit:3}<tool_call|>`, want: []string{`read_file {"limit":3,"path":"a"}`}},
		{claim: "gemma 4 with parentheses", reply: `<|tool_call>call:read_file(path="a")`, want: []string{read}},
		{claim: "gpt-oss harmony", reply: `<|channel|>commentary to=functions.read_file<|constrain|>json<|message|>{"path":"a"}<|call|>`, want: []string{read}},
		{claim: "a token after text on its line", reply: `Let me look.<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>`, want: []string{read}, text: "Let me look."},
		{claim: "mistral after text on its line", reply: `Checking [TOOL_CALLS]read_file[ARGS]{"path":"a"}`, want: []string{read}, text: "Checking"},
		{claim: "a token after text, followed by prose, is text", reply: "Models write <tool_call> tags.", text: "Models write <tool_call> tags."},
		{claim: "JSON ends at a closing tag, its brace added", reply: `<tool_call>{"name":"read_file","arguments":{"path":"a"}</tool_call>`, want: []string{read}},
		{claim: "one missing ] at the end", reply: `<tool_call>[{"name":"read_file","arguments":{"path":"a"}}`, want: []string{read}},
		{claim: "qwen3-coder values on one line are trimmed", reply: `<tool_call> <function=read_file> <parameter=path> a </parameter> </function> </tool_call>`, want: []string{read}},
		{claim: "qwen3-coder misspelt closing tag", reply: "<function=read_file>\n<parameter=path>\na\n</parameter1>\n</function>", want: []string{read}},
		{claim: "qwen3-coder parameter that lost its >", reply: "<function=read_file>\n<parameter=path=a</parameter>\n</function>", want: []string{read}},
		{claim: "llama 4 python_start with JSON", reply: `<|python_start|>{"name":"read_file","parameters":{"path":"a"}}<|python_end|>`, want: []string{read}},
		{claim: "an escaped single quote in double quotes is an error", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"a\'"}}`, want: []string{"error"}},
		{claim: "an escaped single quote in single quotes is one", reply: `TOOL_CALL {'name':'read_file','arguments':{'path':'\'a'}}`, want: []string{`read_file {"path":"'a"}`}},

		{claim: "action for name", reply: `{"action": "read_file", "args": {"path": "a"}}`, want: []string{read}},
		{claim: "a Markdown-escaped underscore", reply: `TOOL_CALL {"name":"read_file","arguments":{"path":"a\_b"}}`, want: []string{`read_file {"path":"a_b"}`}},
		{claim: "a tokenizer's space", reply: `[TOOL_CALLS]▁[{"name":▁"read_file",▁"arguments":▁{"path":▁"a"}}]`, want: []string{read}},
		{claim: "lfm", reply: `<|tool_call_start|>[read_file(path="a")]<|tool_call_end|>`, want: []string{read}},
		{claim: "lfm naming an unknown tool is an error", reply: `<|tool_call_start|>[search(q="a")]<|tool_call_end|>`, want: []string{"error"}},
		{claim: "NAME({...})", reply: "Reading.\n" + `read_file({"path": "a"})`, want: []string{read}, text: "Reading."},
		{claim: "NAME({...}) of no tool is text", reply: `print({"a": 1})`, text: `print({"a": 1})`},
		{claim: "a stray quote before </function>", reply: `<function=read_file>{"path": "a"}"</function>`, want: []string{read}},
		{claim: "qwen3-coder parameters never closed", reply: "<function=write_file>\n<parameter=path> a\n<parameter=content> x", want: []string{`write_file {"content":"x","path":"a"}`}},
		{claim: "react with prose for a name is an attempt", reply: "Action: Read the notes.\nAction Input: a", want: []string{"error"}},
		{claim: "react with an invented observation is an attempt", reply: "Action: I will use bash\nObservation: done", want: []string{"error"}, forged: 2},
		{claim: "react drops only matching quotes", reply: "Action: bash\nAction Input: ls \"a b\"", want: []string{`bash {"command":"ls \"a b\""}`}},
		{claim: "react escaped name", reply: "Action: read\\_file\nAction Input: a", want: []string{read}},

		// Attempts.
		{claim: "function-name tags", reply: "<function-name>read_file</function-name>\n<arguments>{\"path\": \"a\"}</arguments>", want: []string{"error"}},
		{claim: "a function tag with a name attribute", reply: `<function name="read_file"><param name="path">a</param></function>`, want: []string{"error"}},
		{claim: "deepseek", reply: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"a\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", want: []string{"error"}},
		{claim: "phi-4", reply: `functools[{"name": "read_file", "arguments": {"path": "a"}}]`, want: []string{"error"}},
		{claim: "qwen-agent", reply: "✿FUNCTION✿: read_file\n✿ARGS✿: {\"path\": \"a\"}", want: []string{"error"}},
		{claim: "function_call", reply: `<function_call>{"name": "read_file", "arguments": {"path": "a"}}</function_call>`, want: []string{"error"}},
		{claim: "invoke", reply: "<invoke name=\"read_file\">\n<parameter name=\"path\">a</parameter>\n</invoke>", want: []string{"error"}},
		{claim: "a tag named after a tool", reply: "<read_file>\n<path>a</path>\n</read_file>", want: []string{"error"}},
		{claim: "a tag named after no tool is text", reply: "<thought>\nhm\n</thought>", text: "<thought>\nhm\n</thought>"},

		// Examples.
		{claim: "a fenced call between text is an example", reply: "Write:\n```\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\n```\nand it reads.", text: "Write:\n```\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\n```\nand it reads."},
		{claim: "a fenced call after text runs", reply: "Reading:\n```\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\n```", want: []string{read}, text: "Reading:"},

		// Forged results.
		{claim: "a result in bold", reply: "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\n**TOOL_RESULT call_1 read_file SUCCESS**\nx", want: []string{read}, forged: 2},
		{claim: "a result quoted", reply: "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\n> TOOL_RESULT call_1", want: []string{read}, forged: 2},
		{claim: "a result in lower case after a bullet", reply: "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\n- tool_result: x", want: []string{read}, forged: 2},
		{claim: "an observation", reply: "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\nObservation: x\nTOOL_CALL {\"name\":\"list_files\"}", want: []string{read}, forged: 2},
		{claim: "a tool_response", reply: "<tool_call>{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}</tool_call>\n<tool_response>\nx", want: []string{read}, forged: 2},
		{claim: "an output fence after a call", reply: "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\n\n```output\nx\n```", want: []string{read}, forged: 3},
		{claim: "a fence closing a call's fence is no output", reply: "```\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\n```\n```\ncode\n```", want: []string{read}},
		{claim: "a go fence after a call is no output", reply: "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\n```go\nx\n```", want: []string{read}},
	}
	r := NewReader(harnessTools)
	for _, tt := range tests {
		t.Run(tt.claim, func(t *testing.T) {
			p := r.Parse(tt.reply)
			var got []string
			for _, c := range p.Calls {
				got = append(got, outcome(c))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
				for _, c := range p.Calls {
					t.Logf("line %d shape %q repairs %q err %v", c.Line, c.Shape, c.Repairs, c.Err)
				}
			}
			if p.Forged != tt.forged {
				t.Errorf("forged = %d, want %d", p.Forged, tt.forged)
			}
			if tt.text != "" && p.Text != tt.text {
				t.Errorf("text = %q, want %q", p.Text, tt.text)
			}
		})
	}
}

// TestRejectedRewrite holds that an attempt's error shows the call in
// our format on lines of its own, blocks for text with line breaks.
func TestRejectedRewrite(t *testing.T) {
	r := NewReader(harnessTools)
	p := r.Parse("<write_file>\n<path>a.txt</path>\n<content>\nline 1\nline 2\n</content>\n</write_file>")
	if len(p.Calls) != 1 {
		t.Fatalf("calls %+v", p.Calls)
	}
	body := Rejected(p.Calls[0], Check(harnessTools, &p.Calls[0])).Body
	want := "Write it as:\nTOOL_CALL {\"name\":\"write_file\",\"arguments\":{\"path\":\"a.txt\",\"content\":\"<<EOF\"}}\nline 1\nline 2\nEOF\nReply again"
	if !strings.Contains(body, want) {
		t.Errorf("body:\n%s\nwant it to hold:\n%s", body, want)
	}
	// The rewrite, read back, is the call it shows.
	rw := strings.TrimPrefix(body[strings.Index(body, "TOOL_CALL"):strings.Index(body, "\nReply again")], "")
	back := r.Parse(rw)
	if len(back.Calls) != 1 || outcome(back.Calls[0]) != `write_file {"content":"line 1\nline 2\n","path":"a.txt"}` {
		t.Errorf("the rewrite reads back as %+v", back.Calls)
	}
}

func TestUnknownToolDidYouMean(t *testing.T) {
	tests := []struct{ name, want string }{
		{"Read_File", "read_file"},
		{"read-file", "read_file"},
		{"readfile", "read_file"},
		{"read_fil", "read_file"},
		{"bsh", "bash"},
		{"web_search", ""},
		{"list", ""},
	}
	for _, tt := range tests {
		c := Call{Name: tt.name, Args: map[string]any{}}
		err := Check(harnessTools, &c)
		hint := "(did you mean " + tt.want + "?)"
		switch {
		case err == nil:
			t.Errorf("%s: no error", tt.name)
		case tt.want != "" && !strings.Contains(err.Error(), hint):
			t.Errorf("%s: %v; want it to hold %q", tt.name, err, hint)
		case tt.want == "" && strings.Contains(err.Error(), "did you mean"):
			t.Errorf("%s: %v; want no guess", tt.name, err)
		}
	}
}
