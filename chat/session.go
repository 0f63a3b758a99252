package chat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"harness/loop"
	"harness/plural"
	"harness/protocol"
	"harness/record"
	"harness/session"
	"harness/tools"
	"harness/xdg"
)

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

// Resume says which saved conversation a chat continues, and whether it
// saves its own: the flags -c, --resume and --no-session.
type Resume struct {
	Latest    bool   // the workspace's latest session (-c)
	ID        string // the session of this id or name (--resume)
	NoSession bool   // save nothing; continue a session without adding to it
}

// UsageError is an error of the chat's options, such as a session to
// continue that is not there: the command line was wrong.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// OpenSession sets up the conversation as res says: a new session
// described by start, or the saved one it continues, whose system prompt
// then replaces Config.System so that the conversation starts with the
// bytes it started with, and whose model the chat goes on with (by the
// rule of savedModel).
func (c *Chat) OpenSession(ctx context.Context, res Resume, start func() record.Start) error {
	resume := res.Latest || res.ID != ""
	if res.NoSession && !resume {
		return nil
	}
	dir, err := SessionDir(c.Dirs)
	if err != nil {
		return err
	}
	store, err := session.Open(dir)
	if err != nil {
		return fmt.Errorf("%w; to run without saving the conversation, use --no-session", err)
	}
	c.conv.store = store
	if !resume {
		c.conv.start = start()
		c.conv.writer = store.Create(c.conv.start)
		return nil
	}
	var info session.Info
	if res.Latest {
		info, err = store.Latest(c.Root())
	} else {
		info, err = store.Find(c.Root(), res.ID)
	}
	switch {
	case errors.Is(err, session.ErrNotFound) && res.Latest:
		return &UsageError{fmt.Errorf("-c: no saved session of %s to continue (harness sessions --all lists every workspace's)", c.Root())}
	case errors.Is(err, session.ErrNotFound):
		return &UsageError{fmt.Errorf("--resume: %w", err)}
	case err != nil:
		return err
	case info.Workspace != c.Root() && info.Err == nil:
		return &UsageError{fmt.Errorf("session %s is of workspace %s, not %s: continue it with -w %s", info.ID, info.Workspace, c.Root(), info.Workspace)}
	}
	var sv *session.Saved
	c.conv.writer, sv, err = continueSaved(store, info, !res.NoSession)
	if err != nil {
		return err
	}
	if err := c.resume(sv); err != nil {
		c.conv.close()
		return err
	}
	c.adoptModel(ctx, sv)
	c.conv.start = start()
	resumed := fmt.Sprintf("resumed session %s: %s, %s", sv.ID(), plural.Count(sv.State.Turn, "turn"), plural.Count(len(sv.State.Messages), "message"))
	if info.Name != "" && !res.NoSession {
		c.conv.writer = store.Create(c.conv.start)
		resumed += fmt.Sprintf("; %q stays as it was saved, and this goes on in a new session", info.Name)
	} else if err := c.recordModel(sv); err != nil {
		c.conv.close()
		return err
	}
	c.conv.notes = append(c.conv.notes, resumed)
	return nil
}

// continueSaved opens the saved session info to go on with it, saving
// into it when save is set. A session saved under a name (/save) is a
// snapshot, never changed: it is only read, and w is nil, so that the
// caller saves the conversation in a new session. Otherwise w appends to
// the session's own file (session.Store.Continue).
func continueSaved(store *session.Store, info session.Info, save bool) (w *session.Writer, sv *session.Saved, err error) {
	if !save || info.Name != "" {
		sv, err = store.Load(info.ID)
		return nil, sv, err
	}
	return store.Continue(info.ID)
}

// resume makes the saved conversation sv the one the next agent built
// continues, with the system prompt it was saved with, and notes what the
// user should know of it. Calls that a stop cut off are told to the model
// too, with the next input (the note is saved in the session).
func (c *Chat) resume(sv *session.Saved) error {
	st := sv.State
	if c.conv.built == "" {
		c.conv.built = c.Config.System
	}
	if saved := st.Messages[0].Content; saved != c.conv.built {
		c.conv.notes = append(c.conv.notes, fmt.Sprintf("note: the system prompt has changed since session %s was saved (the tools or the harness changed); it goes on with the saved one, so that the conversation starts as it did", sv.ID()))
	}
	c.Config.System = st.Messages[0].Content
	if sv.Cut {
		c.conv.notes = append(c.conv.notes, fmt.Sprintf("note: the last line of session %s was cut off (the harness was stopped while writing it); it is skipped", sv.ID()))
	}
	if sv.Dropped > 0 {
		c.conv.notes = append(c.conv.notes, fmt.Sprintf("note: session %s ends in a step that never completed; it goes on from the last complete one", sv.ID()))
	}
	c.conv.resumed = &st
	c.conv.note = sv.Note
	parse := c.Config.Parse
	if parse == nil {
		parse = protocol.Parse
	}
	ended, cut := sv.CutCalls(parse)
	if len(cut) == 0 {
		return nil
	}
	say := fmt.Sprintf("note: the harness was stopped while calls of session %s ran; cut off, with effects unknown: %s", sv.ID(), callList(cut))
	tell := fmt.Sprintf("[The harness was stopped while it ran the calls of your last reply; that reply and its results are lost. Cut off before they ended, so their effects, if any, are unknown: %s.", callList(cut))
	if len(ended) > 0 {
		say += "; ended, results lost: " + callList(ended)
		tell += " Ended, but their results are lost: " + callList(ended) + "."
	}
	c.conv.notes = append(c.conv.notes, say+" (the model is told with the next input)")
	if err := c.AddNote(sv.State.Turn, tell+" Check what you need before you go on.]"); err != nil {
		return fmt.Errorf("session %s: %w", sv.ID(), err)
	}
	return nil
}

// maxTargetLine bounds the bytes of what a call acts on in a note.
const maxTargetLine = 100

// callList names calls by their tool and what they act on (a command
// line's first line, a path), for a note.
func callList(calls []protocol.Call) string {
	names := make([]string, len(calls))
	for i, call := range calls {
		names[i] = call.Name
		if t := tools.Target(call); t != "" {
			names[i] += " (" + oneLine(t, maxTargetLine) + ")"
		}
	}
	return strings.Join(names, ", ")
}

// AddNote adds note to what the model is told with the next input, after
// turn, and saves it in the session.
func (c *Chat) AddNote(turn int, note string) error {
	c.conv.note = strings.TrimSpace(c.conv.note + "\n" + note)
	if c.conv.writer == nil {
		return nil
	}
	return c.conv.writer.Note(turn, note)
}

// noted returns input with the note the model has not been told yet
// before it.
func (c *Chat) noted(input string) string {
	if c.conv.note == "" {
		return input
	}
	return c.conv.note + "\n\n" + input
}

// savedModel is the model a resumed conversation goes on with, by the
// rule: the model it named last, unless -m named one for this run. It is
// "" when the run's model stays: -m was given, the session names the
// model in use, or there are no providers to find it in (--fake). A model
// the session names as PROVIDER/MODEL (as /model records it) is found on
// that provider; a name alone, on the provider in use, only when that is
// an Ollama one and the session was started with an Ollama backend too.
func (c *Chat) savedModel(sv *session.Saved) string {
	name := sv.Model
	switch {
	case c.Pinned || c.Models == nil || name == "" || name == c.Backend().Model || name == c.ModelSpec():
		return ""
	case strings.Contains(name, "/"):
		return name
	case c.Backend().Name != c.BareNames || sv.Start.Backend != c.Backend().Name:
		return ""
	}
	return name
}

// adoptModel makes the run's model the one a resumed conversation goes on
// with (savedModel), before the tools are built for it. A model that
// cannot be had (its provider is gone from the settings, or the flags
// leave its context window no room) leaves the run's model, with a note.
func (c *Chat) adoptModel(ctx context.Context, sv *session.Saved) {
	name := c.savedModel(sv)
	if name == "" {
		return
	}
	b, use, err := c.Models.Pick(name)
	if err == nil {
		_, err = c.WindowFor(ctx, io.Discard, b)
	}
	if err != nil {
		c.conv.notes = append(c.conv.notes, fmt.Sprintf("note: session %s used %s last, which cannot be used: %v; it goes on with %s", sv.ID(), name, err, c.ModelSpec()))
		return
	}
	use()
	c.Model = b
	c.conv.notes = append(c.conv.notes, fmt.Sprintf("note: session %s goes on with the model it used last, %s (-m chooses another)", sv.ID(), name))
}

// SessionID is the id of the session the conversation is saved in, to go
// on with later: "" when it is saved in none (--no-session).
func (c *Chat) SessionID() string {
	if c.conv.writer == nil {
		return ""
	}
	return c.conv.writer.ID()
}

// recordModel saves, in the session a resumed conversation goes on in,
// that the model from the next turn is not the one it named last.
func (c *Chat) recordModel(sv *session.Saved) error {
	if c.conv.writer == nil || sv.Model == c.Backend().Model || sv.Model == c.ModelSpec() {
		return nil
	}
	return c.conv.writer.Model(sv.State.Turn+1, sv.Model, c.ModelSpec())
}

// SaveChild saves the conversation of a helper with the session, when
// its turn is over; it is the agent tool's Done. A failure to write it
// fails the session's next write, which ends the turn with the error.
func (c *Chat) SaveChild(origin string, st loop.State) {
	if w := c.conv.writer; w != nil {
		_ = w.Child(origin, st)
	}
}

// openStore returns the store of sessions, opening it when the run did not
// (--no-session).
func (c *conversation) openStore(dirs xdg.Dirs) (*session.Store, error) {
	if c.store == nil {
		dir, err := SessionDir(dirs)
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
func (c *Chat) begin(log io.Writer, hooks []loop.Hook) *loop.Agent {
	var a *loop.Agent
	if st := c.conv.resumed; st != nil {
		var err error
		if a, err = loop.Resume(c.Model, c.tools, c.Config, *st, hooks...); err != nil {
			// A saved state begins with a system prompt (session checks it)
			// and openSession made it cfg.System: nothing else can fail.
			panic(fmt.Sprintf("resume: %v", err))
		}
	} else {
		if c.conv.built != "" {
			c.Config.System = c.conv.built
		}
		a = loop.New(c.Model, c.tools, c.Config, hooks...)
	}
	if c.conv.writer != nil {
		c.conv.writer.Follow(a)
	}
	for _, n := range c.conv.notes {
		fmt.Fprintln(log, n)
	}
	c.conv.notes = nil
	return a
}

// SessionDir is where sessions are kept: in the harness's state folder,
// $XDG_STATE_HOME/harness, or ~/.local/state/harness, never inside a
// workspace.
func SessionDir(dirs xdg.Dirs) (string, error) {
	dir, err := dirs.State()
	if err != nil {
		return "", fmt.Errorf("no folder for sessions: %w (or use --no-session)", err)
	}
	return filepath.Join(dir, "sessions"), nil
}
