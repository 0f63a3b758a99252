package main

import (
	"context"
	"errors"
	"fmt"

	"harness/plural"
	"harness/session"
)

// The REPL's commands about saved conversations: /save, /load, /sessions.

// save keeps a copy of the conversation as a session of its own, named
// name; the conversation goes on being saved where it was. A name already
// taken in this workspace is refused, with what to do instead.
func (c *console) save(_ context.Context, name string) error {
	r := c.r
	if name == "" {
		fmt.Fprintln(c.out, "/save NAME keeps a copy of the conversation under NAME; /load NAME goes back to it.")
		return nil
	}
	if r.conv.writer == nil {
		fmt.Fprintln(c.out, "Nothing is saved in this run (--no-session).")
		return nil
	}
	st := c.agent.State()
	if st.Turn == 0 {
		fmt.Fprintln(c.out, "Nothing to save yet: the conversation has had no turn.")
		return nil
	}
	start := r.conv.start
	start.SystemPromptBytes = len(st.Messages[0].Content)
	info, err := r.conv.store.Save(name, start, st)
	var taken *session.TakenError
	switch {
	case errors.Is(err, session.ErrName):
		fmt.Fprintf(c.out, "%v; a name is at most %d bytes of text, without slashes, and does not start with a dot.\n", err, session.MaxName)
		return nil
	case errors.As(err, &taken) && taken.ID == r.conv.writer.ID():
		fmt.Fprintf(c.out, "This conversation is %q already: it is saved as it goes.\n", name)
		return nil
	case errors.As(err, &taken):
		fmt.Fprintf(c.out, "%v: /load %s goes on with it; to keep this conversation too, /save it under another name.\n", err, name)
		return nil
	case err != nil:
		return err
	}
	fmt.Fprintf(c.out, "saved %s (session %s): %s, %s; /load %s goes on with it.\n", name, info.ID,
		plural.Count(st.Turn, "turn"), plural.Count(len(st.Messages), "message"), name)
	return nil
}

// load goes on with a saved conversation in this REPL: a session named
// with /save, or any session of this workspace by its id. Its next request
// begins with exactly the bytes it sent before, and it goes on being saved
// in its own session; the conversation that was here stays saved in its
// own. Its model is the one it used last, by the rule of -c.
func (c *console) load(ctx context.Context, ref string) error {
	r := c.r
	if ref == "" {
		fmt.Fprintln(c.out, "/load NAME goes on with the conversation saved as NAME (/save), or with the session of id NAME; /sessions lists them.")
		return nil
	}
	store, err := r.conv.openStore(r.dirs)
	if err != nil {
		return err
	}
	info, err := store.Find(r.root, ref)
	switch {
	case errors.Is(err, session.ErrNotFound):
		fmt.Fprintf(c.out, "%v; /sessions lists this workspace's.\n", err)
		return nil
	case err != nil:
		return err
	case info.Workspace != r.root && info.Err == nil:
		fmt.Fprintf(c.out, "Session %s is of workspace %s, not this one: continue it with harness -w %s --resume %s\n", info.ID, info.Workspace, info.Workspace, info.ID)
		return nil
	case r.conv.writer != nil && r.conv.writer.ID() == info.ID:
		fmt.Fprintf(c.out, "%s is the conversation in this REPL already.\n", ref)
		return nil
	}
	var (
		w  *session.Writer
		sv *session.Saved
	)
	if r.conv.writer != nil {
		w, sv, err = store.Continue(info.ID)
	} else {
		sv, err = store.Load(info.ID)
	}
	if err != nil {
		return err
	}
	loaded := fmt.Sprintf("loaded %s: %s, %s", ref, plural.Count(sv.State.Turn, "turn"), plural.Count(len(sv.State.Messages), "message"))
	if name := r.savedModel(sv); name != "" {
		b, s, err := r.providers.pick(name)
		if err == nil {
			if err = checkBackend(ctx, b); doubtfullyMissing(err) {
				fmt.Fprintf(c.out, "%s %s\n", c.st.Bad("warning:"), modelAdvice(err, true))
				err = nil // the server may answer whatever the name
			}
		}
		size := 0
		if err == nil {
			size, err = r.windowFor(ctx, c.out, b)
		}
		if err != nil {
			fmt.Fprintf(c.out, "%s; it goes on with %s.\n", modelAdvice(err, true), r.modelSpec())
		} else if err := r.useModel(b, s, size, c.out); err != nil {
			if w != nil {
				w.Close()
			}
			return err
		} else {
			loaded += "; the model is " + name + ", the one it used last"
		}
	}
	if old := r.conv.writer; old != nil {
		if err := old.Close(); err != nil {
			fmt.Fprintf(c.out, "%s %v\n", c.st.Bad("warning:"), err)
		}
	}
	r.conv.writer = w
	r.conv.start.Model, r.conv.start.Backend, r.conv.start.Options = r.backend.Model, r.backend.Name, r.backend.Options
	r.resume(sv)
	if err := r.recordModel(sv); err != nil {
		fmt.Fprintf(c.out, "%s %v\n", c.st.Bad("warning:"), err)
	}
	r.conv.notes = append(r.conv.notes, loaded)
	c.agent = r.agent(c.view)
	c.turn = sv.State.Turn + 1
	r.journal.Reset()
	return nil
}

// sessions lists this workspace's sessions as `harness sessions` does;
// with --all, every workspace's.
func (c *console) sessions(_ context.Context, arg string) error {
	switch arg {
	case "":
		return listSessions(c.r.dirs, c.out, c.out, c.r.root)
	case "--all":
		return listSessions(c.r.dirs, c.out, c.out, "")
	}
	fmt.Fprintln(c.out, "/sessions lists this workspace's sessions; /sessions --all every workspace's.")
	return nil
}
