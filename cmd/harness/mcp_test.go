package main

import (
	"net/http"
	"net/http/httptest"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
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
	server := mcptest.New(mcptest.Options{})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL+"/mcp")
}
