package main

import (
	"harness/approve"
	"harness/chat"
	"harness/journal"
	"harness/loop"
	"harness/tools"
)

// chained is the tools a chat runs its calls through, and the layers of
// them that the chat uses on its own.
type chained struct {
	set     loop.Tools     // the tool set: what the model is told of
	out     *tools.Outputs // where long results are kept; nil when they are not
	journal *journal.Journal
	gate    *sandboxNotice // the outermost layer
}

// chain builds the tools of tb into what a chat runs its calls through,
// in one place and in order: each layer wraps those before it, so that a
// call passes them from the last to the first on its way to its tool, and
// its result passes them back. The journal's copies go under keep ("":
// none), long results in the folder outputs ("": a temporary one);
// questions go to asker (nil: nobody can answer), decisions to approvals,
// and a sandbox that turns out not to work to fb. pages says, at each
// call, how many bytes a page of a file or an output may hold (0: as
// many as the tools show at most).
func (c *chatCmd) chain(tb *toolbox, outputs, keep string, asker approve.Asker, approvals *chat.Approvals, fb *fallback, pages func() int) (*chained, error) {
	ts := tb.lie()                          // lie: the tools tell the lies --lie asks for
	set, out, err := c.toolSet(ts, outputs) // outputs: long results are cut, and kept for read_output
	if err != nil {
		return nil, err
	}
	set = tools.WithPages(set, pages)  // pages: a page of a file fits the context window
	j := journal.New(set, tb.ws, keep) // journal: what the file tools change, for /undo and /diff
	g, err := c.gate(j, set, tools.NewSources(tb.ws, out), asker, func(d approve.Decision) {
		approvals.Decided(d)
		j.Decided(d) // the diff a question showed is not shown again
	}) // approve: the user is asked as --approve says
	if err != nil {
		return nil, err
	}
	n := &sandboxNotice{Gate: g, box: tb.box, fallback: fb} // notices: the user is told once that commands run without the preferred sandbox
	return &chained{set: set, out: out, journal: j, gate: n}, nil
}
