package record

import (
	"fmt"

	"harness/protocol"
)

// Exchange is one model call of a run: the last message of the request the
// harness sent, and the reply that came back.
type Exchange struct {
	Turn, Step int
	Sent       protocol.Message
	Reply      protocol.Reply // content, thinking and done reason
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

// Exchanges returns the model calls of one run, in order. The record keeps
// no request's messages, but the last one is always known: the turn's
// input before a turn's first step, and before any later step the message
// of the last result, which the record holds whole. A model call that
// brought no reply (it failed, or was interrupted) is no exchange.
func Exchanges(run []Line) ([]Exchange, error) {
	var (
		out     []Exchange
		last    protocol.Message // the conversation's last message so far
		sent    protocol.Message // the last message of the pending request
		pending bool
	)
	for i, l := range run {
		switch l.Type {
		case "turn":
			last = protocol.Message{Role: protocol.User, Content: l.Input}
		case "result":
			if l.Body == nil || l.OK == nil {
				return nil, fmt.Errorf("line %d: a result without its body or status", i+1)
			}
			last = protocol.Result{CallID: l.ID, Tool: l.Tool, OK: *l.OK, Body: *l.Body}.Message()
		case "request":
			sent, pending = last, true
		case "interrupted":
			pending = false
		case "reply":
			if !pending {
				return nil, fmt.Errorf("line %d: a reply without a request before it", i+1)
			}
			out = append(out, Exchange{Turn: l.Turn, Step: l.Step, Sent: sent, Reply: protocol.Reply{
				Content: l.Content, Thinking: l.Thinking, DoneReason: deref(l.DoneReason),
			}})
			pending = false
			last = protocol.Message{Role: protocol.Assistant, Content: l.Content}
		}
	}
	return out, nil
}

// Inputs returns what was typed in one run, in order: each turn's input,
// and the answer to each approval question ("y", "n" or "a"), as the REPL
// reads them, a line each.
func Inputs(run []Line) []string {
	var in []string
	for _, l := range run {
		switch {
		case l.Type == "turn":
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
