// Package mcp gives the model the tools of MCP (Model Context Protocol)
// servers through the harness's own text protocol, so that a model with no
// tool-calling API can use them. It speaks MCP with the official Go SDK,
// github.com/modelcontextprotocol/go-sdk, over a program's standard input
// and output or over streamable HTTP.
//
// # Tools
//
// [Start] connects to each server, lists its tools and makes each one a
// tools.Tool named SERVER.TOOL, which no built-in tool's name can be. Its
// arguments are the properties of its input schema, required ones first in
// the order the schema lists them, then the others by name, so that the
// same server always gives the same system prompt. A property's JSON type
// is its protocol.Type: of a list of types, the one that is not "null";
// with no one type, protocol.Any. Its enum, the type of an array's items
// and its default are added to its description. White space in
// descriptions is folded into single spaces and long ones are cut, so that
// no server can lay out the prompt. Server.Tools, when set, chooses the
// tools offered; a tool whose name a result header could not carry is
// left out.
//
// A call is checked twice before it is sent: by protocol.Validate, against
// the JSON type of each argument, as every call is, and by [Servers.Check],
// against the whole input schema (an enum, an array's items, a minimum),
// before anyone is asked to approve it. A call that fails either is never
// sent.
//
// # Results
//
// A result's text content is the body as it is; any other content is
// described in one line ("[image: image/png, 1234 bytes]"); a result with
// only structured content gets its JSON. A result the server marks isError
// is an ERROR result. A server that does not answer within its timeout has
// the call given up; a server that stopped is reported in the result of
// the call it stopped in and of every later call of its tools, with the
// last lines it wrote to stderr. A call that was sent and then failed so
// may have acted: its error wraps tools.ErrMayHaveChanged.
//
// # Safety
//
// Every tool of a server counts as one that writes (ToolSpec.Writes), as
// the harness cannot see what it does: the approval gate asks before each
// call in modes auto, edits and ask, and [Servers.Subject] shows the
// call's arguments in the question. A server's program runs outside the
// harness's sandbox, started in the workspace with the environment its
// settings name and nothing else, in a session of its own: the Ctrl-C
// that stops a turn does not stop it. What a tool returns passes the
// gate's secret check, as a command's output does.
package mcp
