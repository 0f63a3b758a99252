package protocol

import (
	"errors"
	"fmt"
	"strings"
)

// Status words of a result header.
const (
	Success = "SUCCESS"
	Error   = "ERROR"
)

// CallID returns the id of the n-th call of a conversation, counting from 1.
func CallID(n int) string { return fmt.Sprintf("call_%d", n) }

// Header returns the first line of r's message.
func (r Result) Header() string {
	status := Success
	if !r.OK {
		status = Error
	}
	tool := r.Tool
	if tool == "" || strings.ContainsAny(tool, " \t\r\n") {
		tool = "-"
	}
	return fmt.Sprintf("%s %s %s %s", resultPrefix, r.CallID, tool, status)
}

// Message returns r as the user message the model reads: the header line,
// then the body. A body is never empty; an empty one reads "(no output)".
func (r Result) Message() Message {
	body := r.Body
	if strings.TrimSpace(body) == "" {
		body = "(no output)"
	}
	return Message{Role: User, Content: r.Header() + "\n" + body}
}

// Rejected returns the ERROR result for a call that could not run because
// it was malformed or not allowed; err says why.
//
// When err is a *CallError with a Rewrite, the rewrite stands on lines of
// its own, to be copied as it is.
func Rejected(call Call, err error) Result {
	var ce *CallError
	if errors.As(err, &ce) && ce.Rewrite != "" {
		plain := *ce
		plain.Rewrite = ""
		return Result{
			CallID: call.ID,
			Tool:   call.Name,
			Body:   "Nothing was run: " + plain.Error() + ". Write it as:\n" + ce.Rewrite + "\nReply again with either a valid TOOL_CALL line or a normal answer.",
		}
	}
	return Result{
		CallID: call.ID,
		Tool:   call.Name,
		Body:   "Nothing was run: " + err.Error() + ".\nReply again with either a valid TOOL_CALL line or a normal answer.",
	}
}

// ReadResult reads a message that carries a result back into its parts: the
// inverse of Result.Message. It returns false when m is not one: not a user
// message, or a first line that is not a result header. Tool is "-" for a
// result whose header says so, and Wrote is never set: the message does
// not say it.
func ReadResult(m Message) (Result, bool) {
	if m.Role != User {
		return Result{}, false
	}
	header, body, _ := strings.Cut(m.Content, "\n")
	f := strings.Split(header, " ")
	if len(f) != 4 || f[0] != resultPrefix || f[1] == "" || f[2] == "" || (f[3] != Success && f[3] != Error) {
		return Result{}, false
	}
	return Result{CallID: f[1], Tool: f[2], OK: f[3] == Success, Body: body}, true
}
