package mcp_test

import (
	"os"

	"harness/mcp"
	"harness/protocol"
)

func ExampleStatus_Write() {
	st := mcp.Status{
		Server: mcp.Server{Name: "calc", Command: "mcp-calc", Args: []string{"--fast"}, Tools: []string{"add", "pow"}},
		Tools: []protocol.ToolSpec{{Name: "calc.add", Description: "Add two numbers.", Args: []protocol.Arg{
			{Name: "a", Type: protocol.Number, Required: true, Description: "the first number"},
			{Name: "b", Type: protocol.Number, Required: true},
		}}},
		Left:    []string{"sub"},
		Missing: []string{"pow"},
	}
	st.Write(os.Stdout)
	// Output:
	// calc: started (stdio, mcp-calc --fast, outside the sandbox), 1 tools
	//   calc.add: Add two numbers.
	//     a (number, required): the first number
	//     b (number, required)
	//   left out by its tools setting: sub
	//   named by its tools setting but not offered: pow
}
