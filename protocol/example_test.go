package protocol_test

import (
	"fmt"

	"harness/protocol"
)

// A Reader takes the calls out of a reply: in our format, and in the
// formats models were trained on, when they name a tool it knows.
func ExampleReader_Parse() {
	r := protocol.NewReader([]protocol.ToolSpec{
		{Name: "read_file", Args: []protocol.Arg{{Name: "path", Type: protocol.String, Required: true}}},
	})
	p := r.Parse(`Let me read both.
TOOL_CALL {"name":"read_file","arguments":{"path":"a.txt"}}
<tool_call>
{"name": "read_file", "arguments": {"path": "b.txt",}}
</tool_call>`)
	fmt.Println("text:", p.Text)
	for _, c := range p.Calls {
		fmt.Println(c.Name, c.Args["path"], c.Shape, c.Repairs)
	}
	// Output:
	// text: Let me read both.
	// read_file a.txt  []
	// read_file b.txt Hermes <tool_call> [trailing comma]
}
