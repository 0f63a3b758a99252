package protocol

import (
	"fmt"
	"strings"
	"time"
)

// Role says who wrote a message.
type Role string

const (
	System    Role = "system"
	User      Role = "user"
	Assistant Role = "assistant"
)

// Message is one entry of the conversation as the model sees it.
// Tool results travel as User messages whose first line is a result header.
type Message struct {
	Role    Role
	Content string
}

// Request is what the harness sends to a model for one step.
type Request struct {
	Messages []Message
	// Stop lists sequences at which the backend must end generation.
	Stop []string
}

// Delta is a piece of a reply as it streams in.
type Delta struct {
	Content  string
	Thinking string
}

// Done reasons a backend may report. An empty DoneReason means unknown.
const (
	DoneStop   = "stop"
	DoneLength = "length"
)

// Reply is a complete model reply for one step.
type Reply struct {
	Content  string
	Thinking string // never parsed for calls
	// DoneReason is why generation ended: DoneStop, DoneLength, or "" when
	// the backend did not say.
	DoneReason string
	Usage      Usage
}

// Usage is what a backend reported about one reply. Known is false when the
// backend reported nothing; the counts are then unknown, not zero.
type Usage struct {
	Known          bool
	PromptTokens   int
	OutputTokens   int
	PromptDuration time.Duration
	OutputDuration time.Duration
}

// Type is the JSON type of a tool argument.
type Type string

const (
	String  Type = "string"
	Integer Type = "integer"
	Boolean Type = "boolean"
	// Number, Array, Object and Any are taken by the tools of MCP servers,
	// whose arguments are described by a JSON Schema; Validate checks them.
	Number Type = "number"
	Array  Type = "array"
	Object Type = "object"
	Any    Type = "any" // any JSON value: the schema gives no one type
)

// Arg describes one argument of a tool.
type Arg struct {
	Name        string
	Type        Type
	Required    bool
	Description string
}

// String is the argument as the model is told of it, without its
// description: "path (string, required)".
func (a Arg) String() string {
	req := "optional"
	if a.Required {
		req = "required"
	}
	return fmt.Sprintf("%s (%s, %s)", a.Name, a.Type, req)
}

// ToolSpec is what the model is told about a tool.
type ToolSpec struct {
	Name        string
	Description string
	Args        []Arg
	// Writes is true when the tool can change the workspace.
	Writes bool
}

// Arguments lists the tool's arguments as the model is told of them,
// "none" when it has none.
func (s ToolSpec) Arguments() string {
	if len(s.Args) == 0 {
		return "none"
	}
	parts := make([]string, len(s.Args))
	for i, a := range s.Args {
		parts[i] = a.String()
	}
	return strings.Join(parts, ", ")
}

// Arg returns the argument named name, or false.
func (s ToolSpec) Arg(name string) (Arg, bool) {
	for _, a := range s.Args {
		if a.Name == name {
			return a, true
		}
	}
	return Arg{}, false
}

// Call is one tool call found in a reply.
type Call struct {
	// ID is assigned by the harness (call_1, call_2, ...), never by the model.
	ID string
	// Name is the tool the model asked for; it may be empty or unknown.
	Name string
	// Args holds the decoded arguments with blocks already substituted:
	// strings, json.Number for numbers, bools, and whatever else the model
	// wrote (Check rejects what the tool does not take).
	Args map[string]any
	// Line is the 1-based line of the reply where the call starts.
	Line int
	// Text is the call as the model wrote it: the TOOL_CALL line (or lines,
	// when the JSON spans several) without its block bodies.
	Text string
	// Err is set when the call is malformed; such a call is never run.
	Err error
	// Shape says how the call was written when it was not in the
	// documented format: "Hermes <tool_call>", "near miss of TOOL_CALL".
	// Empty for a call written as documented.
	Shape string
	// Repairs names the slips forgiven in reading the call: "trailing
	// comma", "single quotes", "\"parameters\" for \"arguments\"".
	Repairs []string
}

// Result is the outcome of one call, as sent back to the model.
type Result struct {
	CallID string
	Tool   string
	OK     bool
	Body   string
	// Wrote is true when the call changed the workspace or may have: a
	// writing tool that succeeded, or one that failed after it began to
	// act (a command that ran and then failed). Never sent to the model;
	// the body says it in words.
	Wrote bool
	// Refused is true when the call never began: a check or the user
	// refused it before it could run. Never sent to the model; the body
	// says it in words.
	Refused bool
	// Note is for the user alone, never part of the message the model
	// reads: what the harness did that the body hides, such as what a
	// lying tool changed. One line a note; empty when there is none.
	Note string
	// Changed lists paths, relative to the workspace root, that the call
	// was seen to change beside what it names (a command that rewrote
	// .gitignore), for the turn's report; never sent to the model.
	Changed []string
}
