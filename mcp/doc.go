// Package mcp gives the model the tools of MCP (Model Context Protocol)
// servers through the harness's own text protocol, so that a model with no
// tool-calling API can use them.
//
// # The protocol
//
// The package speaks MCP itself, in JSON-RPC 2.0 messages of its own
// making, over one of two transports: a program's standard input and
// output, one message a line each way, or streamable HTTP, where each
// message is POSTed to the server's address and the answer to a request
// comes back as the response's body, one JSON message or a stream of
// server-sent events that carries it. The session id the server gives at
// initialize (Mcp-Session-Id) goes with every later message, and a 404
// then means the server ended the session; the harness opens no stream of
// its own (GET), and does not resume a stream that breaks.
//
// It asks for MCP 2025-06-18 at initialize, and takes the server's answer
// when it is that version, 2025-03-26 or 2024-11-05 (not 2025-11-25,
// whose servers may close a stream for the client to resume), then
// sends notifications/initialized. After that it sends tools/list, page
// after page while the server gives a nextCursor, and tools/call;
// answers are matched with their requests by id. A request the server
// makes of the harness (roots, sampling, elicitation) gets a JSON-RPC
// error, "method not found", but for ping, which gets its empty answer;
// a notification the server sends is read and dropped. A call the
// harness gives up on is followed by notifications/cancelled, but for
// initialize, which the protocol says must not be cancelled. The
// package's tests check both sides against the official Go SDK: this
// client against a server it makes, and the test server (mcptest)
// against its client.
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
// descriptions is folded into single spaces, control characters and bidi
// marks are dropped, and long ones are cut, so that no server can lay out
// the prompt; the same goes for a server's errors and the lines of its
// stderr the harness shows. Server.Tools, when set, chooses the
// tools offered; a tool whose name a result header could not carry is
// left out.
//
// A call is checked twice before it is sent: by protocol.Validate, against
// the JSON type of each argument, as every call is, and by [Servers.Check],
// against the whole input schema (an enum, an array's items, a minimum),
// before anyone is asked to approve it. A call that fails either is never
// sent. Check knows the keywords tool schemas use: type (one or a list;
// a whole number is an integer), enum, const, properties, required,
// patternProperties, additionalProperties (false or a schema, for the
// properties neither of those names), prefixItems, items (one schema, for
// the items after prefixItems), minItems, maxItems, minimum, maximum,
// exclusiveMinimum, exclusiveMaximum (numbers), minLength, maxLength,
// pattern (as Go's regexp reads it: a pattern it cannot compile is not
// checked, and one of patternProperties may match any name), anyOf,
// oneOf, allOf, and $ref to a place in the same schema ("#/$defs/NAME",
// "#/definitions/NAME"), read as draft 2020-12 reads them whatever
// draft the schema names (draft 4's boolean exclusiveMinimum and a list
// of items are skipped). It ignores every other keyword: the server
// checks the arguments again, so a keyword skipped only lets through a
// call the server may then refuse. Its error names the keyword that
// says no and where in the arguments, an item by its index ("at words/1:
// type: 2 has type "integer", want "string""); of an anyOf or oneOf, it
// gives the reasons of the first three schemas. A check applies at most
// 20000 schemas: past that, the rest are taken as fitting, and a oneOf
// cut short so passes.
//
// # Results
//
// A result's text content is the body as it is; any other content is
// described in one line ("[image: image/png, 1234 bytes]"); a result with
// only structured content gets its JSON; text past 4 MiB is cut, with a
// line that says so. A result the server marks isError
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
// settings name and nothing else, in a process group of its own (on
// Linux, in the harness's session, where the sandbox kills what commands
// left in other sessions; elsewhere in a session of its own): the Ctrl-C
// that stops a turn does not stop it. [Servers.Close] closes the
// program's standard input, which tells it to end, and kills it, with the
// programs it started (its process group, on unix), when it has not
// ended 2 seconds later; it closes all the servers at once. On Linux,
// what is left of the group is killed whenever the program ends. A program
// that stops reading its input holds up nothing: messages to it are
// written by one goroutine of their own, so a call still ends at its
// timeout, the server's output is still read, and Close still kills it.
// What a tool returns passes the gate's secret check, as a command's
// output does.
package mcp
