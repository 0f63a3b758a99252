package protocol

import (
	"fmt"
	"strings"
	"testing"
)

// benchSpecs are tools shaped like the harness's default ones.
var benchSpecs = []ToolSpec{
	{Name: "read_file", Description: "Show the text of a file. Long files are shown in parts.", Args: []Arg{
		{Name: "path", Type: String, Required: true, Description: "File path, relative to the workspace root"},
		{Name: "offset", Type: Integer, Description: "First line to show"},
		{Name: "limit", Type: Integer, Description: "Most lines to show"},
	}},
	{Name: "list_files", Description: "List a directory.", Args: []Arg{
		{Name: "path", Type: String, Description: "Directory path"},
	}},
	{Name: "write_file", Description: "Create or replace a file.", Writes: true, Args: []Arg{
		{Name: "path", Type: String, Required: true},
		{Name: "content", Type: String, Required: true},
	}},
	{Name: "edit_file", Description: "Replace text in a file.", Writes: true, Args: []Arg{
		{Name: "path", Type: String, Required: true},
		{Name: "old_text", Type: String, Required: true},
		{Name: "new_text", Type: String, Required: true},
	}},
}

// longReply is a reply of about 8 KB: prose, a fenced call and a call.
func longReply() string {
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "Line %d of my reasoning about the code, which goes on for a while.\n", i)
	}
	b.WriteString("```\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"main.go\"}}\n```\n")
	b.WriteString("TOOL_CALL {\"name\":\"list_files\",\"arguments\":{\"path\":\"src\"}}\n")
	return b.String()
}

// blockReply writes a 2 KB file through a block.
func blockReply() string {
	var b strings.Builder
	b.WriteString("I will write the file.\nTOOL_CALL {\"name\":\"write_file\",\"arguments\":{\"path\":\"main.go\",\"content\":\"<<EOF\"}}\n")
	for i := range 60 {
		fmt.Fprintf(&b, "func f%d() int { return %d }\n", i, i)
	}
	b.WriteString("EOF\n")
	return b.String()
}

func BenchmarkParse(b *testing.B) {
	cases := []struct{ name, reply string }{
		{"short", "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"README.md\"}}"},
		{"answer", "The project is a small command that greets the user. It has one file."},
		{"long", longReply()},
		{"block", blockReply()},
	}
	r := NewReader(benchSpecs)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.reply)))
			for b.Loop() {
				r.Parse(c.reply)
			}
		})
	}
}

// BenchmarkParseRepeated reads replies of 10,000 lines that each start
// like a call, to hold that no shape costs the square of a reply's
// length.
func BenchmarkParseRepeated(b *testing.B) {
	r := NewReader(benchSpecs)
	for _, line := range []string{
		`{"a": 1, "b": [1, 2, 3]},`,
		`TOOL_CALL {`,
		`<tool_call>`,
		`{"name": "read_file", "x": `,
		`[read_file(`,
		"```\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}\n```\nthen",
	} {
		reply := strings.Repeat(line+"\n", 10000)
		b.Run(strings.Trim(line[:min(len(line), 10)], `{"[<( `), func(b *testing.B) {
			b.SetBytes(int64(len(reply)))
			for b.Loop() {
				r.Parse(reply)
			}
		})
	}
}

func BenchmarkCheck(b *testing.B) {
	p := Parse("TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"README.md\",\"offset\":3}}")
	b.ReportAllocs()
	for b.Loop() {
		call := p.Calls[0]
		call.Args = map[string]any{"path": "README.md", "offset": p.Calls[0].Args["offset"]}
		if err := Check(benchSpecs, &call); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSystemPrompt(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		SystemPrompt("/home/user/project", benchSpecs)
	}
}

func BenchmarkResultMessage(b *testing.B) {
	body := strings.Repeat("func f(a, b int) int { return a + b }\n", 64) // about 2.5 KB
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Result{CallID: CallID(i + 1), Tool: "read_file", OK: true, Body: body}.Message()
	}
}

// BenchmarkStreamLongLine streams a reply of one long line in small
// pieces, as a model writes a minified file: the time per byte stays the
// same whatever the line's length (compare the sizes).
func BenchmarkStreamLongLine(b *testing.B) {
	for _, size := range []int{16 << 10, 256 << 10} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			piece := strings.Repeat("x", 8)
			b.SetBytes(int64(size))
			for b.Loop() {
				var s Stream
				for range size / len(piece) {
					s.Add(piece)
				}
				s.Add("\n")
			}
		})
	}
}
