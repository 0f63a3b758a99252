package protocol

import "strings"

// ParseStrict reads a reply the way the simplest harness does: a reply
// that is one call and nothing else is that call; any other reply is all
// text. A call after a sentence is therefore text, never run, and a call
// with text after its JSON object is malformed. Thinking, blocks and
// forged results get no special treatment. It exists to show what the
// forgiving Parse is for; see "The strict variant" in the package
// documentation.
func ParseStrict(reply string) Parsed {
	p := Parsed{Content: reply}
	t := strings.TrimSpace(reply)
	if !isCall(t) {
		p.Text = t
		return p
	}
	line := 1 + strings.Count(reply[:strings.Index(reply, callPrefix)], "\n")
	payload := strings.TrimSpace(strings.TrimPrefix(t, callPrefix))
	call := Call{Line: line, Text: callPrefix + " " + payload}
	obj, err := decodeCall(payload)
	if err != nil {
		call.Err = &CallError{Line: line, Reason: "the reply is not one TOOL_CALL line and nothing else: " + jsonReason(err),
			Hint: `Reply with only the line TOOL_CALL {"name":"TOOL","arguments":{...}}`}
	} else {
		call.Name, call.Args = obj.name, obj.args
	}
	p.Calls = []Call{call}
	return p
}
