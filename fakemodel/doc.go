// Package fakemodel is a scripted language model for deterministic tests and
// demos. A script lists the replies the model gives, in order, and what each
// reply expects to have been sent. The same script can be served two ways:
// in process by [Model], which satisfies the harness's model interface, or
// over HTTP by [Server], which speaks enough of Ollama's API, native and
// OpenAI-compatible, for the official clients.
//
// # Scripts
//
// A script is UTF-8 text made of lines ending in "\n" (a final line may lack
// it). Its grammar:
//
//	script   = { preamble-line } { reply }
//	preamble-line = comment | blank
//	comment  = "#" text
//	blank    = { " " | "\t" }
//	reply    = header { body-line }
//	header   = ">>>" { sep attr } [ sep ]
//	sep      = ( " " | "\t" ) { " " | "\t" }
//	attr     = key "=" value
//	value    = quoted | bare
//	quoted   = a Go double-quoted string literal, as read by strconv.Unquote
//	bare     = one or more bytes, none a space or tab, not starting with `"`
//	body-line = any line that does not start with ">>>"
//
// Before the first header only comments and blank lines may appear. After
// it, every line belongs to a reply body: a "#" there is text, not a
// comment.
//
// Header attributes, each allowed at most once:
//
//	expect=TEXT      the last message the model receives must contain TEXT
//	match=HOW        how expect is matched: contains (the default), whole
//	                 (the message must be TEXT exactly) or end (the message
//	                 must end with TEXT)
//	role=ROLE        the last message must have role user, assistant or system
//	done=REASON      the done reason reported: stop (the default) or length
//	think=TEXT       thinking text, reported apart from the content
//	delay=DURATION   wait this long before replying (time.ParseDuration syntax)
//	pace=DURATION    stream the reply a word at a time, waiting this long
//	                 before each word after the first
//	when=TEXT        the reply belongs to the conversation whose first user
//	                 message contains TEXT (see Conversations)
//
// The body of a reply is its lines taken verbatim and joined with "\n"; the
// newline ending the last body line is not part of the body. A one-line body
// is therefore that line alone, a header followed directly by another header
// (or by the end of the script) has an empty body, and a body that must end
// in a newline ends with an empty line.
//
// Escape: a body line starting with a backslash has that one backslash
// removed. This is how a body line starting with ">>>" is written ("\>>>"),
// and why a body line that really starts with a backslash is written with
// two.
//
// An example:
//
//	# The model reads a file, then answers.
//	>>> expect="fix the typo" role=user think="I should look first."
//	Let me read it.
//	TOOL_CALL {"name":"read","arguments":{"path":"README.md"}}
//	>>> expect="TOOL_RESULT call_1 read SUCCESS" delay=10ms
//	Done: the typo is on line 3.
//	\>>> this line starts with three angle brackets
//
// A malformed script is reported as a [*ParseError] giving the script's
// name, the line and the reason, as in "demo.txt:4: unknown attribute
// "expct"". [Script.Format] prints a script back in this form.
//
// # Conversations
//
// A script can play several conversations at once, such as an agent's and
// those of the sub-agents it starts, whose requests may arrive in any
// order, even together. A conversation is known by its first user message
// (the user's first input, or the task a sub-agent was given), and a reply
// with when=TEXT belongs to the conversations whose first user message
// contains TEXT. A request belongs to the conversation of the first when
// value, in the order the script first uses them, that its first user
// message contains; when it contains none, to the conversation of the
// replies without when. Each conversation takes its own replies in script
// order, whatever the others do:
//
//	>>> expect="look at a.txt and b.txt"
//	TOOL_CALL {"name":"agent","arguments":{"task":"summarize a.txt"}}
//	TOOL_CALL {"name":"agent","arguments":{"task":"summarize b.txt"}}
//	>>> when="summarize a.txt"
//	TOOL_CALL {"name":"read_file","arguments":{"path":"a.txt"}}
//	>>> when="summarize b.txt"
//	TOOL_CALL {"name":"read_file","arguments":{"path":"b.txt"}}
//	>>> when="summarize a.txt" expect="TOOL_RESULT call_1 read_file SUCCESS"
//	a.txt is a greeting.
//	>>> when="summarize b.txt" expect="TOOL_RESULT call_1 read_file SUCCESS"
//	b.txt is a farewell.
//	>>> expect="TOOL_RESULT call_2 agent SUCCESS"
//	One greets, the other says goodbye.
//
// A script without when is one conversation: its replies are served in
// order to every request.
//
// # Replying
//
// Each call to [Model.Chat] takes the next reply of its conversation,
// whatever happens afterwards: a reply whose expectation fails, or whose
// delay is cut short by the context, is used up. A conversation that runs
// out of replies gets an error wrapping [ErrExhausted]; an unmet expect or
// role is an error wrapping [ErrExpectation]. Both describe the last
// message received, so that a test failure shows what the harness actually
// sent.
//
// A reply is streamed before it is returned: first its thinking, then its
// content, each line in two pieces, so that consumers see partial lines the
// way they do from a real server. When the request lists stop sequences and
// the body contains one, the content ends just before the earliest of them
// and the done reason is stop, as a real server does; a script can use this
// to prove that the harness passes its stop sequences on. Thinking is never
// cut.
//
// Usage is reported as known, with token counts that are approximations: a
// quarter of the bytes of the request's message contents for the prompt, and
// a quarter of the bytes of the thinking and content for the output, rounded
// up. Durations are reported as zero.
//
// A model can be held to a context window, as Ollama holds a request to its
// num_ctx ([Model.SetWindow]): a request whose prompt, by that estimate, is
// longer than the window is refused with a [*WindowError] (wrapping
// [ErrWindow]) and uses up no reply, and a reply that would run past the
// window is cut where it fills, with done reason length.
//
// # Serving
//
// [Server] serves the script over HTTP to any client: the Ollama Go client
// and the `ollama run` command line, and OpenAI clients.
//
//	GET|HEAD /                  "Ollama is running"
//	GET /api/version            a fixed version
//	GET /api/tags               the one model the server serves
//	GET /api/ps                 that model, as loaded
//	POST /api/show              details of that model; 404 for any other name
//	POST /api/chat              the next reply of the script
//	POST /api/generate          the next reply, to a system text and a prompt
//	POST /v1/chat/completions   the next reply, in OpenAI's shape
//	GET /v1/models              the one model, in OpenAI's shape
//	GET /v1/models/{model}      that model; 404 for any other name
//
// The server's model is named "fake" unless [WithModelName] says otherwise;
// like Ollama, it treats a name without a tag as having the tag "latest".
// A chat request for another model gets HTTP 404, and one that offers
// native tools gets HTTP 400, with the error texts Ollama uses. The
// request's messages and its "stop" option become the [Model]'s request, and
// a script error becomes HTTP 500 with the error's text. Replies stream as
// NDJSON chunks unless the request sets stream to false; the last chunk has
// done set, the done reason and the token counts.
//
// One script drives every endpoint: each chat or generate request takes the
// next reply, and its expect and role check the last message of the
// conversation that request carries.
//
// /api/generate makes the conversation of the request's system text, when
// there is one, and its prompt. A request without a prompt only loads the
// model, as with Ollama: the reply has done reason "load" and uses no reply
// of the script. This is what `ollama run fake` sends before its first
// prompt; `ollama run fake PROMPT` sends one generate request.
//
// /v1/chat/completions behaves as Ollama's OpenAI compatibility layer does.
// Message content may be a string or an array of text parts; "stop" a
// string or an array of strings; "max_tokens", "temperature" and "seed" are
// kept with the request (as the options num_predict, temperature and seed).
// The reply is one chat.completion object unless "stream" is true; then it is
// server-sent events, each "data: " and a chat.completion.chunk, the last
// chunk with a choice carrying finish_reason (stop or length), then, when
// stream_options.include_usage is set, a chunk with no choices and the
// usage, then "data: [DONE]". Thinking travels in the "reasoning" field, as
// Ollama sends it. Errors are {"error": {"message": ..., "type": ...}}.
//
// With [EnforceWindow] the server holds each chat request to its window as
// Ollama does: the request's num_ctx option (4096 when it sets none), at
// most the model's context length (32768, or [WithContextLength]), which
// /api/show reports as "fake.context_length". A prompt over the window gets
// HTTP 400 with Ollama's text, {"error":"the input length exceeds the
// context length"}. /v1/chat/completions has no num_ctx, so its requests
// get the 4096 of a request that sets none, and its refusal carries the
// same text in the OpenAI shape.
//
// The server keeps nothing of the requests it answers. With [WithLog] it
// writes every chat request received, native or OpenAI, as the client sent
// it, on one JSON line. Generate requests are not logged.
// [ReadLog] reads such a log back and [CheckPrefixes] checks that each
// request of a conversation starts with the messages of the one before,
// byte for byte: the property that lets a server reuse its prompt cache.
package fakemodel
