package record

import (
	"fmt"

	"harness/protocol"
	"harness/window"
)

// Exchange is one model call of a run: the last message of the request the
// harness sent, and the reply that came back.
type Exchange struct {
	Turn, Step int
	// Origin is the conversation: "" for the main one, or the call that
	// started a helper (see loop.Config.Origin).
	Origin string
	// Task is the first user message of a helper's conversation, which
	// tells its requests apart; "" for the main conversation.
	Task  string
	Sent  protocol.Message
	Reply protocol.Reply // content, thinking and done reason
}

// Runs splits a record into its runs: a file written by several runs with
// the same --record holds one after the other, each from its start line.
// Lines before the first start line form a run of their own.
func Runs(lines []Line) [][]Line {
	var runs [][]Line
	for i, l := range lines {
		if i == 0 || l.Type == "start" {
			runs = append(runs, nil)
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], l)
	}
	return runs
}

// Exchanges returns the model calls of one run, in the order they ended,
// those of helpers' conversations and of summaries included. The record
// keeps no request's messages, but the last one is always known: the
// turn's input (a helper's task) before a turn's first step, before any
// later step the message of the conversation's last result, which the
// record holds whole, and window.SummaryRequest at the end of a summary's
// request. A model call that brought no reply (it failed, or was
// interrupted) is no exchange.
func Exchanges(run []Line) ([]Exchange, error) {
	type conv struct {
		task    string
		last    protocol.Message // the conversation's last message so far
		sent    protocol.Message // the last message of the pending request
		pending bool
	}
	convs := map[string]*conv{}
	var out []Exchange
	for i, l := range run {
		c := convs[l.Origin]
		if c == nil {
			c = &conv{}
			convs[l.Origin] = c
		}
		switch l.Type {
		case "turn":
			c.last = protocol.Message{Role: protocol.User, Content: l.Input}
			if l.Origin != "" && c.task == "" {
				c.task = l.Input
			}
		case "result":
			if l.Body == nil || l.OK == nil {
				return nil, fmt.Errorf("line %d: a result without its body or status", i+1)
			}
			c.last = protocol.Result{CallID: l.ID, Tool: l.Tool, OK: *l.OK, Body: *l.Body}.Message()
		case "request":
			c.sent, c.pending = c.last, true
			if l.Origin == window.SummaryOrigin {
				// A summary's request is the conversation so far and the
				// instruction, which the record does not hold: it is always
				// the same.
				c.sent = protocol.Message{Role: protocol.User, Content: window.SummaryRequest}
			}
		case "interrupted":
			c.pending = false
		case "reply":
			if !c.pending {
				return nil, fmt.Errorf("line %d: a reply without a request before it", i+1)
			}
			out = append(out, Exchange{Turn: l.Turn, Step: l.Step, Origin: l.Origin, Task: c.task, Sent: c.sent, Reply: protocol.Reply{
				Content: l.Content, Thinking: l.Thinking, DoneReason: deref(l.DoneReason),
			}})
			c.pending = false
			c.last = protocol.Message{Role: protocol.Assistant, Content: l.Content}
		}
	}
	return out, nil
}

// Inputs returns what was typed in one run, in order: each turn's input as
// typed (before its @tags were attached), and the answer to each approval question ("y", "n" or "a"), as the REPL
// reads them, a line each.
func Inputs(run []Line) []string {
	var in []string
	for _, l := range run {
		switch {
		case l.Type == "turn" && l.Origin == "" && l.Typed != "":
			in = append(in, l.Typed)
		case l.Type == "turn" && l.Origin == "":
			in = append(in, l.Input)
		case l.Type == "approval" && l.Decision == "yes":
			in = append(in, "y")
		case l.Type == "approval" && l.Decision == "no":
			in = append(in, "n")
		case l.Type == "approval" && l.Decision == "always":
			in = append(in, "a")
		}
	}
	return in
}
