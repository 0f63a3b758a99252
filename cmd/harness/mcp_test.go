package main

import (
	"github.com/rogpeppe/go-internal/testscript"

	"harness/mcp/mcptest"
)

// cmdMCPServe starts, for the rest of the script, the tests' MCP server
// over streamable HTTP on loopback, and sets VAR to its address.
//
//	mcpserve VAR
func cmdMCPServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mcpserve VAR")
	}
	url, stop, err := mcptest.Listen(mcptest.Options{})
	ts.Check(err)
	ts.Defer(stop)
	ts.Setenv(args[0], url)
}
