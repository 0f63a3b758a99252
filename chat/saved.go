package chat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"harness/plural"
	"harness/session"
	"harness/view"
	"harness/xdg"
)

// What the REPL's commands about saved conversations do: /save, /load,
// /sessions, and /clear, which starts a new one.

// Save keeps a copy of the conversation as a session of its own, named
// name, which stays as it is (loading it goes on in a new session); the
// conversation goes on being saved where it was. A name already
// taken in this workspace is refused, with what to do instead. What it
// did, or why not, is said on out.
func (c *Chat) Save(name string, out io.Writer) error {
	if name == "" {
		fmt.Fprintln(out, "/save NAME keeps a copy of the conversation under NAME; /load NAME goes back to it.")
		return nil
	}
	if c.conv.writer == nil {
		fmt.Fprintln(out, "Nothing is saved in this run (--no-session).")
		return nil
	}
	st := c.agent.State()
	if st.Turn == 0 {
		fmt.Fprintln(out, "Nothing to save yet: the conversation has had no turn.")
		return nil
	}
	start := c.conv.start
	start.SystemPromptBytes = len(st.Messages[0].Content)
	info, err := c.conv.store.Save(name, start, st)
	var taken *session.TakenError
	switch {
	case errors.Is(err, session.ErrName):
		fmt.Fprintf(out, "%v; a name is at most %d bytes of text, without slashes, and does not start with a dot.\n", err, session.MaxName)
		return nil
	case errors.As(err, &taken) && taken.ID == c.conv.writer.ID():
		fmt.Fprintf(out, "This conversation is %q already: it is saved as it goes.\n", name)
		return nil
	case errors.As(err, &taken):
		fmt.Fprintf(out, "%v: /load %s goes on with it; to keep this conversation too, /save it under another name.\n", err, name)
		return nil
	case err != nil:
		return err
	}
	fmt.Fprintf(out, "saved %s (session %s): %s, %s; /load %s goes on with it.\n", name, info.ID,
		plural.Count(st.Turn, "turn"), plural.Count(len(st.Messages), "message"), name)
	return nil
}

// Load goes on with a saved conversation: a session named with /save, or
// any session of this workspace by its id. Its next request begins with
// exactly the bytes it sent before, and it goes on being saved in its own
// session, or, when it was saved under a name, in a new one: a named save
// is a snapshot that stays as it was, to go back to again. The
// conversation that was here stays saved in its own. Its
// model is the one it used last, by the rule of -c. What it did, or why
// not, is said on out.
func (c *Chat) Load(ctx context.Context, ref string, out io.Writer, st view.Style) error {
	if ref == "" {
		fmt.Fprintln(out, "/load NAME goes on with the conversation saved as NAME (/save), or with the session of id NAME; /sessions lists them.")
		return nil
	}
	store, err := c.conv.openStore(c.Dirs)
	if err != nil {
		return err
	}
	info, err := store.Find(c.Root(), ref)
	switch {
	case errors.Is(err, session.ErrNotFound):
		fmt.Fprintf(out, "%v; /sessions lists this workspace's.\n", err)
		return nil
	case err != nil:
		return err
	case info.Workspace != c.Root() && info.Err == nil:
		fmt.Fprintf(out, "Session %s is of workspace %s, not this one: continue it with harness -w %s --resume %s\n", info.ID, info.Workspace, info.Workspace, info.ID)
		return nil
	case c.conv.writer != nil && c.conv.writer.ID() == info.ID:
		fmt.Fprintf(out, "%s is the conversation in this REPL already.\n", ref)
		return nil
	}
	save := c.conv.writer != nil
	w, sv, err := continueSaved(store, info, save)
	if err != nil {
		return err
	}
	loaded := fmt.Sprintf("loaded %s: %s, %s", ref, plural.Count(sv.State.Turn, "turn"), plural.Count(len(sv.State.Messages), "message"))
	if name := c.savedModel(sv); name != "" {
		b, use, err := c.Models.Pick(name)
		if err == nil {
			if err = Check(ctx, b); DoubtfullyMissing(err) {
				fmt.Fprintf(out, "%s %s\n", st.Bad("warning:"), Advice(err, true))
				err = nil // the server may answer whatever the name
			}
		}
		size := 0
		if err == nil {
			size, err = c.WindowFor(ctx, out, b)
		}
		if err != nil {
			fmt.Fprintf(out, "%s; it goes on with %s.\n", Advice(err, true), c.ModelSpec())
		} else if err := c.useModel(b, use, size, out); err != nil {
			if w != nil {
				w.Close()
			}
			return err
		} else {
			loaded += "; the model is " + name + ", the one it used last"
		}
	}
	if old := c.conv.writer; old != nil {
		if err := old.Close(); err != nil {
			fmt.Fprintf(out, "%s %v\n", st.Bad("warning:"), err)
		}
	}
	c.conv.writer = w
	b := c.Backend()
	c.conv.start.Model, c.conv.start.Backend, c.conv.start.Options = b.Model, b.Name, b.Options
	if save && w == nil { // a snapshot: it goes on in a new session
		c.conv.writer = store.Create(c.conv.start)
		loaded += fmt.Sprintf("; %q stays as it was saved, and this goes on in a new session", info.Name)
	}
	if err := c.resume(sv); err != nil {
		fmt.Fprintf(out, "%s %v\n", st.Bad("warning:"), err)
	}
	if w != nil {
		if err := c.recordModel(sv); err != nil {
			fmt.Fprintf(out, "%s %v\n", st.Bad("warning:"), err)
		}
	}
	c.conv.notes = append(c.conv.notes, loaded)
	c.Start(c.turn)
	c.Journal.Reset()
	return nil
}

// Clear starts a new conversation with the same model, tools and
// settings, saved as a new session (the last one stays saved), and
// forgets the changes /diff and /undo knew of.
func (c *Chat) Clear(out io.Writer, st view.Style) {
	if c.conv.writer != nil {
		if err := c.conv.writer.Close(); err != nil {
			fmt.Fprintf(out, "%s %v\n", st.Bad("warning:"), err)
		}
		c.conv.writer = c.conv.store.Create(c.conv.start)
	}
	c.conv.resumed = nil
	c.conv.note = ""
	c.Start(c.turn)
	c.Journal.Reset()
	fmt.Fprintln(out, "A new conversation: the model remembers nothing of the last one.")
}

// Sessions writes to out the saved sessions of the workspace, or of every
// workspace with all, as a table; when there are none, it says so to
// note. `harness sessions` and the REPL's /sessions both list with it.
func Sessions(dirs xdg.Dirs, out, note io.Writer, ws string) error {
	all := ws == ""
	dir, err := SessionDir(dirs)
	if err != nil {
		return err
	}
	var infos []session.Info
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		store, err := session.Open(dir)
		if err != nil {
			return err
		}
		if infos, err = store.List(ws); err != nil {
			return err
		}
	}
	if len(infos) == 0 {
		if all {
			fmt.Fprintf(note, "no saved sessions in %s\n", dir)
		} else {
			fmt.Fprintf(note, "no saved sessions of %s (--all lists every workspace's)\n", ws)
		}
		return nil
	}
	return view.Sessions(out, infos, all)
}
