package fakemodel

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"harness/plural"
	"harness/protocol"
	"harness/record"
	"harness/window"

	"mvdan.cc/sh/v3/syntax"
)

// A run becomes a test: its model calls (exchanges) become a fake-model
// script whose replies are the model's real replies and whose expects are
// what the harness sent before each. Replayed with --fake in the same
// workspace state, the script reproduces the run, or stops at the first
// step where the harness now sends something else.
//
// Exchanges come from a run record today (record.Exchanges). A saved
// session (package session) is one more source: each assistant message of
// its conversation, with the message before it, is an exchange, lacking
// only the thinking and the done reason, which a session does not keep.
// A function that turns a session into exchanges is all --to-fake needs
// to take one; FromRun does the rest.

// FromRun writes the script of the exchanges of a run, read from source
// (a file name, for the comments), which began with start (nil when not
// known) and was typed inputs. Each expect is the whole last
// message sent (match=whole), or, when that is longer than limit bytes
// (limit > 0), its end from the first line that starts in its last limit
// bytes (match=end); the comments at the top say which replies expect an
// end only, and how to run the script.
func FromRun(source string, start *record.Start, xs []record.Exchange, inputs []string, limit int) []byte {
	s := &Script{}
	var notes []string
	turns := map[int]bool{}
	for i, x := range xs {
		expect, trimmed := expectTail(x.Sent.Content, limit)
		r := Reply{Expect: expect, Match: MatchWhole, Role: x.Sent.Role, Body: x.Reply.Content, Think: x.Reply.Thinking}
		if trimmed {
			r.Match = MatchEnd
		}
		r.When = x.Task // a helper's replies go to the conversation of its task
		if x.Reply.DoneReason == protocol.DoneLength {
			r.Done = protocol.DoneLength
		}
		s.Replies = append(s.Replies, r)
		note := fmt.Sprintf("# reply %d: turn %d, step %d", i+1, x.Turn, x.Step)
		switch x.Origin {
		case "":
		case window.SummaryOrigin:
			note = fmt.Sprintf("# reply %d: a summary, before turn %d, step %d", i+1, x.Turn, x.Step)
		default:
			note = fmt.Sprintf("# reply %d: the helper started by %s, step %d", i+1, x.Origin, x.Step)
		}
		if trimmed {
			note += fmt.Sprintf("; expects only the last %d of the %d bytes sent", len(expect), len(x.Sent.Content))
		}
		notes = append(notes, note)
		if x.Origin == "" {
			turns[x.Turn] = true
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "# Made from %s by harness replay --to-fake: %s in %s.\n", source, plural.Count(len(xs), "model call"), plural.Count(len(turns), "turn"))
	if helpers := helperCalls(xs); helpers > 0 {
		fmt.Fprintf(&b, "# %s of helpers are told apart by their tasks (when=).\n", plural.Count(helpers, "model call"))
	}
	b.WriteString("# Each reply is the model's own; each expect is the last message the harness\n")
	b.WriteString("# sent before it, whole, so a rerun stops at the first step where the\n")
	b.WriteString("# harness now sends something else.\n#\n")
	if start != nil {
		fmt.Fprintf(&b, "# Rerun it in the workspace as it was when the run began (%s),\n", start.Workspace)
		fmt.Fprintf(&b, "# with the flags of the run, whose tools were %s:\n", strings.Join(start.Tools, ", "))
	} else {
		b.WriteString("# Rerun it in the workspace as it was when the run began, with the flags\n# of the run:\n")
	}
	switch {
	case len(inputs) == 1:
		prompt, err := syntax.Quote(inputs[0], syntax.LangBash)
		if err != nil { // a NUL, which no command line can hold
			prompt = strconv.Quote(inputs[0])
		}
		comment(&b, "harness --fake FILE -p "+prompt)
	case len(inputs) > 1:
		b.WriteString("#   harness --fake FILE < input\n# where input holds what was typed, approval answers included:\n")
		for _, in := range inputs {
			comment(&b, typedLine(in))
		}
	}
	b.WriteString("#\n")
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	b.Write(s.Format())
	return []byte(b.String())
}

// comment writes text as comment lines, each indented under a "#".
func comment(b *strings.Builder, text string) {
	for line := range strings.Lines(text) {
		b.WriteString("#   " + strings.TrimSuffix(line, "\n") + "\n")
	}
}

// typedLine is an input as the REPL reads it: a text of several lines
// between """ lines.
func typedLine(input string) string {
	if !strings.Contains(input, "\n") {
		return input
	}
	return "\"\"\"\n" + input + "\n\"\"\""
}

// expectTail returns text, or, when it is longer than limit bytes, its end: from
// the first line that starts within its last limit bytes (or from the
// first whole character there, when no line does).
func expectTail(text string, limit int) (string, bool) {
	if limit <= 0 || len(text) <= limit {
		return text, false
	}
	t := text[len(text)-limit:]
	if i := strings.IndexByte(t, '\n'); i >= 0 && i+1 < len(t) {
		return t[i+1:], true
	}
	for len(t) > 0 && !utf8.RuneStart(t[0]) {
		t = t[1:]
	}
	return t, true
}

// helperCalls counts the exchanges of helpers' conversations.
func helperCalls(xs []record.Exchange) int {
	n := 0
	for _, x := range xs {
		if x.Origin != "" && x.Origin != window.SummaryOrigin {
			n++
		}
	}
	return n
}
