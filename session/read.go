package session

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"harness/loop"
	"harness/protocol"
	"harness/record"
)

var (
	// ErrInvalid is wrapped by the errors about a line that does not fit
	// in a session.
	ErrInvalid = errors.New("not a valid session")
	// ErrEmpty is wrapped when a session holds no complete step: there is
	// nothing to continue.
	ErrEmpty = errors.New("the session holds no complete step")
)

// Saved is a session read back.
type Saved struct {
	// Start is its start line: Session is its id; Workspace, Model and
	// Backend what it was started with.
	Start   record.Start
	Started time.Time
	// State is the conversation as of the last complete step. Its first
	// message is a system prompt.
	State loop.State
	// Cut is set when the last line was cut off (the harness was stopped
	// while writing it); it was skipped.
	Cut bool
	// Dropped counts the lines after the last complete step, which were
	// not restored.
	Dropped int
	// Unfinished are the main conversation's messages of the step that
	// never completed, as far as they were saved: the reply whose calls
	// were running, and the results of those that had ended. They are not
	// restored; CutCalls reads them.
	Unfinished []protocol.Message
	// Model is the model named last: the start line's, or that of the
	// last model line (the REPL's /model).
	Model string
	// Note is what the model is to be told with the next input and was
	// not told yet: the text of the note lines made after the last turn
	// that counts (a turn taken back tells nothing), a line each.
	Note string
	// Children are the conversations of the helpers that calls of the
	// main conversation started, by the id of the call (their origin), as
	// each stood when its turn was over. Only those saved before the last
	// complete step are here.
	Children map[string]loop.State

	end int64 // offset just past the last complete step's line
}

// ID is the session's id.
func (s *Saved) ID() string { return s.Start.Session }

// read reads a session.
func read(r io.Reader) (*Saved, error) {
	sc := record.NewScanner(r)
	var (
		sv        Saved
		started   bool
		committed bool
		msgs      []protocol.Message
		pending   int
		model     string
		kids      children
		notes     []note
		replaced  bool // a replace line since the last complete step
	)
	bad := func(format string, args ...any) error {
		return fmt.Errorf("line %d: %w: %s", sc.Number(), ErrInvalid, fmt.Sprintf(format, args...))
	}
	for sc.Scan() {
		l := sc.Line()
		if !started {
			switch {
			case l.Type != "start" || l.Start == nil || l.Session == "":
				return nil, bad("a session begins with a start line that names it, not a %q line", l.Type)
			case l.Format != record.Format:
				return nil, &record.FormatError{Line: sc.Number(), Format: l.Format}
			}
			sv.Start, sv.Started, started = *l.Start, l.Time, true
			sv.Model, model = l.Model, l.Model
			continue
		}
		if l.Origin != "" {
			kids.line(l) // a nested conversation's, saved beside the main one
			continue
		}
		switch l.Type {
		case "model":
			if l.To == "" {
				return nil, bad("a model line names no model")
			}
			model = l.To
			if pending == 0 { // between steps: it is complete in itself
				sv.Model, sv.end = model, sc.End()
			} else {
				pending++
			}
		case "note":
			if pending == 0 { // between steps: it is complete in itself
				notes = append(notes, note{l.Turn, l.Text})
				sv.end = sc.End()
			} else {
				pending++
			}
		case "message":
			switch protocol.Role(l.Role) {
			case protocol.System, protocol.User, protocol.Assistant:
			default:
				return nil, bad("unknown role %q", l.Role)
			}
			msgs = append(msgs, protocol.Message{Role: protocol.Role(l.Role), Content: l.Content})
			pending++
		case "replace":
			if l.Keep == nil || *l.Keep < 0 || *l.Keep > len(msgs) {
				return nil, bad("replace keeps %s of %d messages", show(l.Keep), len(msgs))
			}
			// Clipped, so that the next append copies: a state already
			// taken keeps its messages.
			msgs = slices.Clip(msgs[:*l.Keep])
			pending++
			replaced = true
		case "request", "turn_end":
			switch {
			case l.Messages != len(msgs):
				return nil, bad("%s line counts %d messages, but %d come before it", l.Type, l.Messages, len(msgs))
			case l.CallsSoFar == nil:
				return nil, bad("%s line lacks calls_so_far", l.Type)
			case len(msgs) == 0 || msgs[0].Role != protocol.System:
				return nil, bad("the conversation does not begin with a system prompt")
			case l.Turn < 0 || *l.CallsSoFar < 0:
				return nil, bad("%s line counts %d turns and %d calls", l.Type, l.Turn, *l.CallsSoFar)
			}
			sv.State = loop.State{Messages: slices.Clip(msgs), Turn: l.Turn, Calls: *l.CallsSoFar, Usage: l.Usage.Protocol()}
			sv.end, committed, pending, replaced = sc.End(), true, 0, false
			sv.Model = model
			sv.Children = kids.commit(sv.Children)
		default:
			return nil, bad("a session has no %q lines", l.Type)
		}
	}
	err := sc.Err()
	switch {
	case errors.Is(err, record.ErrCutLine):
		sv.Cut = true
	case err != nil:
		return nil, err
	case !started:
		return nil, fmt.Errorf("%w: the file is empty", ErrEmpty)
	}
	if !committed {
		return nil, ErrEmpty
	}
	sv.Dropped = pending
	if n := len(sv.State.Messages); !replaced && len(msgs) > n {
		sv.Unfinished = slices.Clone(msgs[n:])
	}
	var told []string
	for _, n := range notes {
		if n.turn >= sv.State.Turn { // made after the last turn that counts
			told = append(told, n.text)
		}
	}
	sv.Note = strings.Join(told, "\n")
	return &sv, nil
}

// CutCalls reads the step that never completed (Unfinished) with parse,
// the reader of replies: the calls of its reply that had ended, whose
// results are lost with the step, and those that had not (they were cut
// off when the harness stopped, so their effects, if any, are unknown).
// Each has the id it had. Both are empty when the step was not running
// calls.
func (s *Saved) CutCalls(parse func(string) protocol.Parsed) (ended, cut []protocol.Call) {
	reply := slices.IndexFunc(s.Unfinished, func(m protocol.Message) bool { return m.Role == protocol.Assistant })
	if reply < 0 {
		return nil, nil
	}
	done := map[string]bool{}
	for _, m := range s.Unfinished[reply+1:] {
		if r, ok := protocol.ReadResult(m); ok {
			done[r.CallID] = true
		}
	}
	for i, c := range parse(s.Unfinished[reply].Content).Calls {
		c.ID = protocol.CallID(s.State.Calls + i + 1)
		if done[c.ID] {
			ended = append(ended, c)
		} else {
			cut = append(cut, c)
		}
	}
	return ended, cut
}

// note is what a note line says, and after which turn.
type note struct {
	turn int
	text string
}

func show(p *int) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}

// children gathers the conversations of helpers from the lines that carry
// their origin. One that does not read as a conversation is left out: it
// never keeps the main conversation from being read.
type children struct {
	open map[string][]protocol.Message // message lines so far, by origin
	done []child                       // ended since the last main commit
}

type child struct {
	origin string
	st     loop.State
}

func (c *children) line(l record.Line) {
	switch l.Type {
	case "message":
		if c.open == nil {
			c.open = map[string][]protocol.Message{}
		}
		c.open[l.Origin] = append(c.open[l.Origin], protocol.Message{Role: protocol.Role(l.Role), Content: l.Content})
	case "turn_end":
		msgs := c.open[l.Origin]
		delete(c.open, l.Origin)
		if l.Messages == len(msgs) && l.CallsSoFar != nil && *l.CallsSoFar >= 0 && l.Turn >= 0 &&
			len(msgs) > 0 && msgs[0].Role == protocol.System {
			c.done = append(c.done, child{l.Origin, loop.State{Messages: slices.Clip(msgs), Turn: l.Turn, Calls: *l.CallsSoFar, Usage: l.Usage.Protocol()}})
		}
	}
}

// commit adds the conversations ended since the last commit to m, and
// returns it.
func (c *children) commit(m map[string]loop.State) map[string]loop.State {
	for _, k := range c.done {
		if m == nil {
			m = map[string]loop.State{}
		}
		m[k.origin] = k.st
	}
	c.done = nil
	return m
}
