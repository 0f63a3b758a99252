package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"harness/loop"
	"harness/plural"
	"harness/record"
	"harness/session"
	"harness/xdg"
)

// sessionFlags say whether the conversation is saved, and which saved one
// it continues.
type sessionFlags struct {
	Continue  bool   `short:"c" xor:"resume" group:"Sessions" help:"Continue the most recent session of this workspace (in the REPL, or for one turn with -p)."`
	Resume    string `placeholder:"ID" xor:"resume" group:"Sessions" help:"Continue the session ID, or the one saved under that name (harness sessions lists them)."`
	NoSession bool   `group:"Sessions" help:"Save nothing of this conversation; with -c or --resume, continue a session without adding to it."`
}

// conversation is where a chat's conversation comes from and where it is
// saved.
type conversation struct {
	store   *session.Store  // nil with --no-session alone
	writer  *session.Writer // nil with --no-session
	resumed *loop.State     // nil for a new conversation
	start   record.Start    // what a new session of this chat starts with
	notes   []string        // said once, when the agent is built
	// note is told to the model with the next input: what a command
	// changed behind its back, such as files put back by /undo. It is
	// saved in the session as it is made, and a resumed conversation
	// gets the note it had not been told yet.
	note string
	// built is the system prompt this harness builds, kept once a
	// resumed conversation's replaces it in the runner's config: a new
	// conversation (/clear) starts with it again.
	built string
}

// openSession sets up r.conv from the flags: a new session described by
// start, or the saved one it continues, whose system prompt then replaces
// r.cfg.System so that the conversation starts with the bytes it started
// with.
func (c *chatCmd) openSession(ctx context.Context, r *runner, start func() record.Start) error {
	resume := c.Continue || c.Resume != ""
	if c.NoSession && !resume {
		return nil
	}
	dir, err := sessionDir(r.dirs)
	if err != nil {
		return err
	}
	store, err := session.Open(dir)
	if err != nil {
		return fmt.Errorf("%w; to run without saving the conversation, use --no-session", err)
	}
	r.conv.store = store
	if !resume {
		r.conv.start = start()
		r.conv.writer = store.Create(r.conv.start)
		return nil
	}
	var info session.Info
	if c.Continue {
		info, err = store.Latest(r.root)
	} else {
		info, err = store.Find(r.root, c.Resume)
	}
	switch {
	case errors.Is(err, session.ErrNotFound) && c.Continue:
		return &exitCodeError{code: exitUsage, err: fmt.Errorf("-c: no saved session of %s to continue (harness sessions --all lists every workspace's)", r.root)}
	case errors.Is(err, session.ErrNotFound):
		return &exitCodeError{code: exitUsage, err: fmt.Errorf("--resume: %w", err)}
	case err != nil:
		return err
	case info.Workspace != r.root && info.Err == nil:
		return &exitCodeError{code: exitUsage, err: fmt.Errorf("session %s is of workspace %s, not %s: continue it with -w %s", info.ID, info.Workspace, r.root, info.Workspace)}
	}
	var sv *session.Saved
	if c.NoSession {
		sv, err = store.Load(info.ID)
	} else {
		r.conv.writer, sv, err = store.Continue(info.ID)
	}
	if err != nil {
		return err
	}
	r.resume(sv)
	r.adoptModel(ctx, sv)
	r.conv.start = start()
	if err := r.recordModel(sv); err != nil {
		r.conv.close()
		return err
	}
	r.conv.notes = append(r.conv.notes, fmt.Sprintf("resumed session %s: %s, %s", sv.ID(), plural.Count(sv.State.Turn, "turn"), plural.Count(len(sv.State.Messages), "message")))
	return nil
}

// resume makes the saved conversation sv the one the next agent built
// continues, with the system prompt it was saved with, and notes what the
// user should know of it.
func (r *runner) resume(sv *session.Saved) {
	st := sv.State
	if r.conv.built == "" {
		r.conv.built = r.cfg.System
	}
	if saved := st.Messages[0].Content; saved != r.conv.built {
		r.conv.notes = append(r.conv.notes, fmt.Sprintf("note: the system prompt has changed since session %s was saved (the tools or the harness changed); it goes on with the saved one, so that the conversation starts as it did", sv.ID()))
	}
	r.cfg.System = st.Messages[0].Content
	if sv.Cut {
		r.conv.notes = append(r.conv.notes, fmt.Sprintf("note: the last line of session %s was cut off (the harness was stopped while writing it); it is skipped", sv.ID()))
	}
	if sv.Dropped > 0 {
		r.conv.notes = append(r.conv.notes, fmt.Sprintf("note: session %s ends in a step that never completed; it goes on from the last complete one", sv.ID()))
	}
	r.conv.resumed = &st
	r.conv.note = sv.Note
}

// addNote adds note to what the model is told with the next input, after
// turn, and saves it in the session.
func (r *runner) addNote(turn int, note string) error {
	r.conv.note = strings.TrimSpace(r.conv.note + "\n" + note)
	if r.conv.writer == nil {
		return nil
	}
	return r.conv.writer.Note(turn, note)
}

// noted returns input with the note the model has not been told yet
// before it.
func (r *runner) noted(input string) string {
	if r.conv.note == "" {
		return input
	}
	return r.conv.note + "\n\n" + input
}

// savedModel is the model a resumed conversation goes on with, by the
// rule: the model it named last, unless -m named one for this run. It is
// "" when the run's model stays: -m was given, the session names the
// model in use, or there are no providers to find it in (--fake). A model
// the session names as PROVIDER/MODEL (as /model records it) is found on
// that provider; a name alone, on the provider in use, only when that is
// an Ollama one and the session was started with an Ollama backend too.
func (r *runner) savedModel(sv *session.Saved) string {
	name := sv.Model
	switch {
	case r.pinned || r.providers == nil || name == "" || name == r.backend.Model || name == r.modelSpec():
		return ""
	case strings.Contains(name, "/"):
		return name
	case r.backend.Name != bareType || sv.Start.Backend != r.backend.Name:
		return ""
	}
	return name
}

// adoptModel makes the run's model the one a resumed conversation goes on
// with (savedModel), before the tools are built for it. A model that
// cannot be had (its provider is gone from the settings, or the flags
// leave its context window no room) leaves the run's model, with a note.
func (r *runner) adoptModel(ctx context.Context, sv *session.Saved) {
	name := r.savedModel(sv)
	if name == "" {
		return
	}
	b, s, err := r.providers.pick(name)
	if err == nil {
		_, err = r.windowFor(ctx, io.Discard, b)
	}
	if err != nil {
		r.conv.notes = append(r.conv.notes, fmt.Sprintf("note: session %s used %s last, which cannot be used: %v; it goes on with %s", sv.ID(), name, err, r.modelSpec()))
		return
	}
	r.providers.cur = s
	r.model, r.backend = b, b.Describe()
	r.conv.notes = append(r.conv.notes, fmt.Sprintf("note: session %s goes on with the model it used last, %s (-m chooses another)", sv.ID(), name))
}

// recordModel saves, in the session a resumed conversation goes on in,
// that the model from the next turn is not the one it named last.
func (r *runner) recordModel(sv *session.Saved) error {
	if r.conv.writer == nil || sv.Model == r.backend.Model || sv.Model == r.modelSpec() {
		return nil
	}
	return r.conv.writer.Model(sv.State.Turn+1, sv.Model, r.modelSpec())
}

// saveChild saves the conversation of a helper with the session, when
// its turn is over; it is the agent tool's Done. A failure to write it
// fails the session's next write, which ends the turn with the error.
func (r *runner) saveChild(origin string, st loop.State) {
	if w := r.conv.writer; w != nil {
		_ = w.Child(origin, st)
	}
}

// openStore returns the store of sessions, opening it when the run did not
// (--no-session).
func (c *conversation) openStore(dirs xdg.Dirs) (*session.Store, error) {
	if c.store == nil {
		dir, err := sessionDir(dirs)
		if err != nil {
			return nil, err
		}
		if c.store, err = session.Open(dir); err != nil {
			return nil, err
		}
	}
	return c.store, nil
}

// close lets the session go, synced.
func (c *conversation) close() {
	if c.writer != nil {
		c.writer.Close()
	}
}

// begin builds the agent of the conversation with hooks, a new one or the
// one it continues, has the session follow it, and says what log should
// know about it.
func (r *runner) begin(log io.Writer, hooks []loop.Hook) *loop.Agent {
	var a *loop.Agent
	if st := r.conv.resumed; st != nil {
		var err error
		if a, err = loop.Resume(r.model, r.tools, r.cfg, *st, hooks...); err != nil {
			// A saved state begins with a system prompt (session checks it)
			// and openSession made it cfg.System: nothing else can fail.
			panic(fmt.Sprintf("resume: %v", err))
		}
	} else {
		if r.conv.built != "" {
			r.cfg.System = r.conv.built
		}
		a = loop.New(r.model, r.tools, r.cfg, hooks...)
	}
	if r.conv.writer != nil {
		r.conv.writer.Follow(a)
	}
	for _, n := range r.conv.notes {
		fmt.Fprintln(log, n)
	}
	r.conv.notes = nil
	return a
}
