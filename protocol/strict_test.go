package protocol

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseStrict(t *testing.T) {
	read := `TOOL_CALL {"name":"read_file","arguments":{"path":"a.go"}}`
	tests := []struct {
		name  string
		reply string
		text  string // the text for the user
		call  string // the tool of the one call, "" for none
		line  int
		bad   string // part of the call's error, "" for a good call
	}{
		{name: "the whole reply is a call", reply: read, call: "read_file", line: 1},
		{name: "white space around the call", reply: "\n\n  " + read + " \n", call: "read_file", line: 3},
		{name: "a plain answer", reply: "Hello there.", text: "Hello there."},
		{name: "a sentence before the call makes it text", reply: "Let me look.\n" + read, text: "Let me look.\n" + read},
		{name: "a fenced call is text", reply: "```\n" + read + "\n```", text: "```\n" + read + "\n```"},
		{name: "text after the call breaks it", reply: read + "\nThen I will answer.", call: "read_file", line: 1, bad: "unexpected text after the JSON object"},
		{name: "two calls are one malformed call", reply: read + "\n" + read, line: 1, bad: "unexpected text after the JSON object"},
		{name: "bad JSON", reply: `TOOL_CALL {"name":`, line: 1, bad: "ends before the object is closed"},
		{name: "a word that only starts like a call", reply: "TOOL_CALLS are fun", text: "TOOL_CALLS are fun"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ParseStrict(tt.reply)
			if p.Text != tt.text {
				t.Errorf("text = %q, want %q", p.Text, tt.text)
			}
			if p.Content != tt.reply {
				t.Errorf("content = %q, want the whole reply", p.Content)
			}
			wantCalls := tt.call != "" || tt.bad != ""
			if !wantCalls {
				if len(p.Calls) != 0 {
					t.Fatalf("calls = %+v, want none", p.Calls)
				}
				return
			}
			if len(p.Calls) != 1 {
				t.Fatalf("calls = %+v, want one", p.Calls)
			}
			c := p.Calls[0]
			if c.Line != tt.line {
				t.Errorf("line = %d, want %d", c.Line, tt.line)
			}
			if tt.bad == "" {
				if c.Err != nil || c.Name != tt.call || !reflect.DeepEqual(c.Args, map[string]any{"path": "a.go"}) {
					t.Errorf("call = %+v", c)
				}
				return
			}
			if c.Err == nil || !strings.Contains(c.Err.Error(), tt.bad) || !errors.Is(c.Err, ErrMalformed) {
				t.Errorf("err = %v, want one holding %q", c.Err, tt.bad)
			}
		})
	}
}

// TestParseStrictAgreesOnBareCalls: where the reply is one call and nothing
// else, both parsers read the same call.
func TestParseStrictAgreesOnBareCalls(t *testing.T) {
	for _, reply := range []string{
		`TOOL_CALL {"name":"read_file","arguments":{"path":"a"}}`,
		`TOOL_CALL{"name":"list_files"}`,
		"TOOL_CALL\t{\"name\":\"bash\",\"arguments\":{\"command\":\"go test ./...\"}}",
	} {
		s, p := ParseStrict(reply), Parse(reply)
		if len(s.Calls) != 1 || len(p.Calls) != 1 || s.Calls[0].Name != p.Calls[0].Name || !reflect.DeepEqual(s.Calls[0].Args, p.Calls[0].Args) {
			t.Errorf("%s: strict %+v, tolerant %+v", reply, s.Calls, p.Calls)
		}
	}
}

func FuzzParseStrict(f *testing.F) {
	for _, s := range []string{
		"hi",
		`TOOL_CALL {"name":"read_file","arguments":{"path":"a"}}`,
		"Sure.\nTOOL_CALL {\"name\":\"a\"}",
		"TOOL_CALL {\"name\":\"a\"} more",
		"  TOOL_CALL {\n\"name\":",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		p := ParseStrict(reply)
		if p.Content != reply {
			t.Fatal("the content is not the whole reply")
		}
		switch len(p.Calls) {
		case 0:
			if p.Text != strings.TrimSpace(reply) {
				t.Fatalf("a reply without a call is not all text: %q", p.Text)
			}
		case 1:
			c := p.Calls[0]
			if p.Text != "" || !strings.HasPrefix(strings.TrimSpace(reply), callPrefix) {
				t.Fatalf("a call in a reply that is not one: %q", reply)
			}
			if c.Err == nil && c.Args == nil {
				t.Fatal("well-formed call without arguments map")
			}
			if c.Line < 1 || c.Line > strings.Count(reply, "\n")+1 {
				t.Fatalf("call line %d outside the reply", c.Line)
			}
		default:
			t.Fatalf("%d calls", len(p.Calls))
		}
	})
}

func TestSystemPromptWithoutTools(t *testing.T) {
	p := SystemPrompt("/ws", nil)
	for _, absent := range []string{"TOOL_CALL", "/ws", "# Tools"} {
		if strings.Contains(p, absent) {
			t.Errorf("a prompt without tools mentions %q:\n%s", absent, p)
		}
	}
	if !strings.Contains(p, "You have no tools") {
		t.Errorf("the prompt does not say there are no tools:\n%s", p)
	}
}

// The examples of the prompt name only tools the model has.
func TestSystemPromptExamplesNameRealTools(t *testing.T) {
	read := ToolSpec{Name: "read_file", Args: []Arg{{Name: "path", Type: String, Required: true}}}
	list := ToolSpec{Name: "list_files", Args: []Arg{{Name: "path", Type: String}}}
	bash := ToolSpec{Name: "bash", Args: []Arg{{Name: "command", Type: String, Required: true}}}
	tests := []struct {
		specs   []ToolSpec
		want    []string
		notWant []string
	}{
		{[]ToolSpec{read}, []string{`TOOL_CALL {"name":"read_file","arguments":{"path":"README.md"}}`}, []string{"write_file", "<<EOF"}},
		{[]ToolSpec{list, bash}, []string{`TOOL_CALL {"name":"bash","arguments":{"command":"..."}}`, `TOOL_CALL {"name":"bash","arguments":{"command":"<<EOF"}}`}, []string{"read_file", "write_file"}},
		{[]ToolSpec{list}, []string{`TOOL_CALL {"name":"list_files","arguments":{}}`}, []string{"read_file", "write_file", "<<EOF"}},
	}
	for _, tt := range tests {
		p := SystemPrompt("/ws", tt.specs)
		for _, w := range tt.want {
			if !strings.Contains(p, w) {
				t.Errorf("prompt lacks %q:\n%s", w, p)
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(p, w) {
				t.Errorf("prompt holds %q:\n%s", w, p)
			}
		}
	}
}

func TestCheckWithoutTools(t *testing.T) {
	call := Parse(`TOOL_CALL {"name":"read_file","arguments":{"path":"a"}}`).Calls[0]
	err := Check(nil, &call)
	if err == nil || !strings.Contains(err.Error(), "There are no tools here") || strings.Contains(err.Error(), "Valid tools") {
		t.Errorf("Check without tools = %v", err)
	}
}

// What an error quotes of a reply is cut at a character's start, never
// inside one: the quote stays text the model can read back.
func TestClipKeepsCharactersWhole(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc..."},
		{"ééé", 3, "é..."}, // é is two bytes: the third byte starts the second é
		{"日本語", 4, "日..."},
		{"日本語", 2, "..."},
	}
	for _, tt := range tests {
		got := Clip(tt.s, tt.n)
		if got != tt.want || !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
