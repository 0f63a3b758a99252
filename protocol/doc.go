// Package protocol is the plain-text wire format between the harness and a
// model that has no tool-calling API: the system prompt that teaches it, the
// reader that takes calls out of a reply, and the results that go back.
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
//	call      = call-line { block } | other-call { block } | attempt .
//	call-line = trim(line) starts with "TOOL_CALL" followed by a space, a
//	            tab or "{", then one or more call objects (see below) .
//	block     = { body-line } end-line .
//	end-line  = a line that is exactly WORD (trailing spaces and tabs
//	            allowed, leading ones not) .
//	result    = trim(line) starts with "TOOL_RESULT", or is a result in
//	            another dress (see Forged results) .
//	text      = any other line .
//
// The documented call object is {"name": STRING, "arguments": OBJECT}.
// A call written so decodes through encoding/json exactly as the JSON
// standard says, and nothing below changes how it reads: every rule after
// this one applies only to what that reading refuses.
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
//     that starts a call or a result, nor one that cannot go on with JSON
//     (one that starts with a letter other than those of true, false and
//     null, for instance).
//   - "arguments" may be left out, or null, for a call without arguments.
//   - Several calls in one reply run in the order written; several objects
//     on one line (or a JSON array of them) are several calls.
//   - Text after a complete object is text for the user.
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
// such text is quoted. Blocks follow a call of any shape.
//
// Text inside <think>...</think> is the model's thinking and is never read
// for calls, nor is the thinking a backend reports separately. A reply that
// closes a think span it never opened thought from its start; an unclosed
// span thinks to the end.
//
// # Call objects
//
// Where a call object is expected, these are read as one too:
//   - "parameters", "args" or "input" for "arguments", and "tool",
//     "tool_name" or "action" for "name";
//   - "arguments" given as a string that holds a JSON object;
//   - OpenAI's {"type": "function", "function": {"name": ..., "arguments":
//     ...}}, and {"function": NAME, ...};
//   - an "id", and a "type" of "function", which are left out;
//   - arguments written beside the name, with no "arguments" key, when
//     each is an argument of the tool named;
//   - {"tool_calls": [CALL, ...]} and {"tool_call": CALL}, which hold
//     their calls.
//
// A key besides these makes the call malformed.
//
// # Repairs
//
// JSON that encoding/json refuses is read again, forgiving the slips that
// have one clear reading: a trailing comma; strings in single quotes (in
// which \' is a quote) or in curly quotes (“...”); // and /* */
// comments; Python's True, False and None; \_, Markdown's escape of an
// underscore, for _; the ▁ a tokenizer leaves for a space, between
// tokens; and one closing brace or
// bracket missing at the very end of the call, when the JSON ends after a
// complete value. A number with a leading zero, a string that runs past
// the end of its line, an escape JSON does not have (\' in double quotes
// among them) and anything else stay errors, each said with its line and
// column and what to write instead. When the tool is checked (Check), an integer
// written as a string of digits ("20") is that integer, "true" and "false"
// are booleans where a boolean is wanted, and null for an optional
// argument leaves it out.
//
// A Call says how it was read: Shape names the shape when it was not the
// documented one, Repairs the slips forgiven.
//
// # Other shapes
//
// A reply may hold calls in the formats models were trained on. A shape
// that carries a marker of its own is a call whatever tool it names (an
// unknown one is an error the model is told of); a shape that carries
// none is a call only when the Reader knows every tool it names, so that
// prose, code and JSON about other things never run anything. The shapes,
// each starting a line (after trim()):
//
//	near-miss  = [ bullet ] dressed-marker ( call-objects | nothing ) .
//	             dressed-marker is TOOL_CALL or TOOL_CALLS in any letter
//	             case, in Markdown emphasis (** __ * _), brackets ([ ] < >
//	             ( )) or backticks, with or without a colon after it; a
//	             bullet is "- ", "* ", "+ ", "> " or "1. ", "1) ". When
//	             nothing follows it on its line, its call objects start
//	             the next line that is not blank, which may open a fence .
//	hermes     = "<tool_call>" ( call-objects | qwen3-coder | glm )
//	             [ "</tool_call>" ] .  Also <tools>...</tools> and
//	             <|tool_call|>...<|/tool_call|>. The closing tag may be
//	             left out .
//	qwen3-coder= "<function=" NAME ">" { "<parameter=" KEY ">" VALUE
//	             "</parameter>" } "</function>" . VALUE is a string, less
//	             one newline after the opening tag and one before the
//	             closing one .
//	glm        = NAME { "<arg_key>" KEY "</arg_key>" "<arg_value>" VALUE
//	             "</arg_value>" } .
//	llama-fn   = "<function=" NAME ">" OBJECT "</function>" .
//	python-tag = "<|python_tag|>" ( call-objects | NAME ".call(" kwargs ")" ) .
//	mistral    = "[TOOL_CALLS]" ( call-objects | NAME [ "[CALL_ID]" ID ]
//	             "[ARGS]" OBJECT | NAME OBJECT ) { "[TOOL_CALLS]" ... } .
//	gemma4     = "<|tool_call>call:" NAME ( "{" KEY ":" VALUE { "," KEY ":"
//	             VALUE } "}" | "(" kwargs ")" ) [ "<tool_call|>" ] . A
//	             string VALUE is written between <|"|> tokens .
//	harmony    = ... "to=functions." NAME ... "<|message|>" OBJECT
//	             [ "<|call|>" ] . (gpt-oss)
//	react      = "Action:" NAME, then on the next line that is not blank
//	             "Action Input:" ( OBJECT | TEXT ) . TEXT, less quotes
//	             around it, is the value of the tool's one required
//	             argument, when it has one; \_ in NAME is _. An Action of
//	             more than a word before an Action Input, or of anything
//	             before an Observation line, is an attempt .
//	lfm        = "<|tool_call_start|>" python [ "<|tool_call_end|>" ] .
//	paren-json = NAME "(" OBJECT ")" outside a fence, NAME a known tool .
//	python     = "[" NAME "(" kwargs ")" { "," NAME "(" kwargs ")" } "]" .
//	             Also after <|python_start|>; and, inside a fence whose
//	             info string is tool_code or tool_call, one NAME(kwargs)
//	             a line, maybe as print(default_api.NAME(kwargs)) (Gemma).
//	             kwargs are KEY=VALUE, VALUE a Python literal; a name that
//	             is no tool's makes the line text .
//	bare       = call-objects, outside a fence or in one whose info
//	             string is empty, json, jsonc, tool_call or tool_code,
//	             one of which names a known tool; or, outside a fence or
//	             in one that is all the reply holds, call objects alone,
//	             with their arguments, naming tools the harness has not
//	             (an attempt the model is told of) .
//	             Telling a bare
//	             call from other JSON reads ahead; the reading ahead of
//	             one reply is bounded (to about eight times its length),
//	             after which lines that start with JSON are text .
//
// call-objects are call objects (see Call objects), or JSON arrays of
// them, one after another, separated by white space, commas or
// semicolons; special tokens that end a call (<|eom_id|>, <|eot_id|>,
// <|python_end|>) are ignored after them, and a closing tag or token
// (</... or <|...) ends the JSON where it stands, as the end of the text
// would (so one missing brace before it is added).
//
// <tool_call>, [TOOL_CALLS] and <|python_tag|> may also follow text on
// their line, when a call's start follows them: the text before is text.
//
// In Qwen3-Coder's shape a value with no line break is trimmed of spaces,
// a </parameter> misspelt with more letters before its > is taken, a
// <parameter=KEY=VALUE</parameter> that lost its > is read as KEY and
// VALUE, and a value with no </parameter> ends where the next
// <parameter=, </function> or the reply does. In Llama's, quotes strayed
// between the arguments and </function> are dropped.
//
// # Attempts
//
// Some formats are recognised only to be refused: DeepSeek's tool-call
// markers (and its DSML, and the <|tool_call_begin|> of models trained
// like it), Phi-4's functools[...], Qwen-Agent's ✿FUNCTION✿,
// <function_call>, <invoke ...>, <function name=...>, <function-name>,
// and an XML tag named after a known tool (<read_file><path>...</path></read_file>, as Cline-style
// prompts teach). Such a line starts a malformed call, which takes the
// lines up to the format's closing token; its error shows the call
// rewritten in the documented format when the tool and its arguments can
// be found in it (Rewrite, CallError.Rewrite). A shape above that cannot
// be read is malformed the same way. So a reply that meant to call a
// tool is never taken for an answer: the model is told what was wrong.
//
// # Examples
//
// A call inside a fenced code block that has text before the fence and
// text after its end is an example in an explanation ("you would write:
// ... and then ..."). It is not run: its lines stay text, and Parsed
// lists the line where it starts in Examples, so the user can be told. A
// call in a fence with text only before it, or only after it, runs.
//
// # Forged results
//
// A result written by the model is never a result: the model has stopped
// calling tools and started inventing what they returned. A line is one
// when trim() of it starts with TOOL_RESULT, or, past a quote (>), a
// bullet, emphasis or brackets, with TOOL_RESULT in any letter case; or
// starts with "Observation:", "<tool_response>" or "<tool_result>"; or
// opens a fence whose info string is empty, output, text, console, result,
// tool_output, stdout or plaintext right after a call (blank lines
// between allowed) that was not itself inside a fence. Reading ends at
// that line; it and everything after it are dropped, and the conversation
// keeps the reply cut before it, less the white space that then ends it.
// StopSequences asks a backend to end generation at the commonest of
// these in the first place.
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
// call. Fences, inline code, blocks, thinking, forged results and the
// other shapes are not recognised: they are text, or part of the malformed
// call.
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
// A malformed call (JSON that cannot be read even with the repairs, a key
// that is no call object's, an argument given twice, an unclosed block, an
// attempt, an unknown tool, a missing, unknown or mistyped argument) is
// never run; its ERROR result says what was wrong, what would have been
// valid (or the call rewritten), and asks for a valid call or a normal
// answer. It never shows Go's error text.
package protocol
