// Package protocol is the plain-text wire format between the harness and a
// model that has no tool-calling API: the system prompt that teaches it, the
// parser that reads calls out of a reply, and the results that go back.
// It is pure code: no I/O, no clock, no state.
//
// # Replies
//
// A reply is read line by line. In the grammar below a line is the text
// between two newlines, with a trailing carriage return ignored, and trim()
// removes the white space around it (spaces, tabs and whatever else
// Unicode counts as white space), then the backticks of a line written as
// inline code (`...`, but not a fence, which starts with ```) and the white
// space inside them.
//
//	reply     = { line } .
//	line      = call | result | text .
//	call      = call-line { block } .
//	call-line = trim(line) starts with "TOOL_CALL" followed by a space, a
//	            tab or "{", then one JSON object:
//	            {"name": STRING, "arguments": OBJECT} .
//	block     = { body-line } end-line .
//	end-line  = a line that is exactly WORD (trailing spaces and tabs
//	            allowed, leading ones not) .
//	result    = trim(line) starts with "TOOL_RESULT" .
//	text      = any other line .
//
// What real models write is forgiven:
//   - Text before, between and after calls is text for the user.
//   - A call may sit inside a Markdown code fence, or be written as inline
//     code (`TOOL_CALL {...}`); fences that held only calls are dropped
//     from the text, and backticks, spaces and tabs after the object are
//     ignored.
//   - The JSON is standard, so escapes such as \/ and \u00e9 decode as JSON
//     says. When the object is not closed at the end of the line, the
//     following lines are taken as its continuation, so that one call's
//     JSON spans at most 200 lines: its own and up to 199 more, never one
//     that starts a call or a result.
//   - "arguments" may be left out, or null, for a call without arguments.
//   - Several calls in one reply run in the order written.
//
// A string argument whose JSON value is "<<WORD" (WORD made of ASCII
// letters, digits and underscores) is a block, like a shell here-document:
// its value is the lines after the call, taken verbatim (white space and
// carriage returns included), up to an end-line of that WORD. Each line of
// the value ends with a newline. When a call has
// several blocks they follow one another in the order their arguments
// appear in the JSON. A block that is never closed makes the call
// malformed, and takes the rest of the reply with it. Text that looks like
// a call or a result inside a block is part of the block: blocks are how
// such text is quoted.
//
// Text inside <think>...</think> is the model's thinking and is never read
// for calls, nor is the thinking a backend reports separately. A reply that
// closes a think span it never opened thought from its start; an unclosed
// span thinks to the end.
//
// A result line written by the model is never a result: the model has
// stopped calling tools and started inventing what they returned. Parsing
// ends at that line; it and everything after it are dropped, and the
// conversation keeps the reply cut before it, less the white space that
// then ends it. StopSequences asks a backend to end generation there in
// the first place.
//
// # The strict variant
//
// ParseStrict is the parser of a first, naive harness, kept to show what
// the forgiving one is for (harness --parser strict). It reads
//
//	reply = call-line | text .
//
// where the whole reply, trimmed of white space, must be one call-line
// whose JSON object ends the reply. A reply that starts with anything else,
// a friendly sentence before the call for instance, is text: its call is
// shown to the user and never run. A reply that starts with a call but
// goes on after the object ("... I will now read it.") holds one malformed
// call. Fences, inline code, blocks, thinking and forged results are not
// recognised: they are text, or part of the malformed call.
//
// # Results
//
// Each call gets one result, sent back as its own user message:
//
//	TOOL_RESULT <call-id> <tool> SUCCESS|ERROR
//	<body>
//
// Call ids (call_1, call_2, ...) are given by the harness, in order, unique
// in a conversation. The tool is "-" when the call named none, or a name
// with white space in it, which no tool has. The body is never empty: an
// empty one, or one of white space only, reads "(no output)". Because the
// header is always the message's first line, a body needs no quoting.
//
// A malformed call (bad JSON, text after the object, a key besides "name"
// and "arguments", an argument given twice, an unclosed block, an unknown
// tool, a missing, unknown or mistyped argument) is never run; its ERROR
// result says what was wrong, what would have been valid, and asks for a
// valid call or a normal answer.
package protocol
