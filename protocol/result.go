package protocol

import (
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
func Rejected(call Call, err error) Result {
	return Result{
		CallID: call.ID,
		Tool:   call.Name,
		Body:   "Nothing was run: " + err.Error() + ".\nReply again with either a valid TOOL_CALL line or a normal answer.",
	}
}
