package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"harness/chat"
	"harness/fakemodel"
	"harness/record"
	"harness/session"
	"harness/tools"
	"harness/xdg"
)

type replayCmd struct {
	File      string `arg:"" placeholder:"FILE|ID|NAME" help:"A record written with --record, or a session: its file, its id, or the name /save gave it (harness sessions lists them). A file of that name comes first."`
	Workspace string `short:"w" default:"." placeholder:"DIR" help:"The workspace whose session NAME is (a file or an id needs none)."`
	ToFake    bool   `name:"to-fake" help:"Print, instead of a transcript, a fake-model script that replays the run: the model's real replies, each expecting the last message the harness sent before it. Rerun it with --fake in the same workspace state: it passes while the harness sends the same, and names the first step where it does not. It takes a record (--record), not a session, which keeps no reply's details."`
	Expect    int    `default:"2000" placeholder:"BYTES" help:"With --to-fake, the most bytes of a message one expect holds: longer ones are expected by their last lines only (0: no limit)."`
}

// Run prints a record or a session as a transcript. A record whose last
// line was cut by a killed run is shown up to that line, with a note.
func (c *replayCmd) Run(std stdio, dirs xdg.Dirs) error {
	f, err := c.open(dirs)
	if err != nil {
		return err
	}
	defer f.Close()
	lines, err := record.Read(f)
	cut := errors.Is(err, record.ErrCutLine)
	if err != nil && !cut {
		return fmt.Errorf("%s: %w", c.File, err)
	}
	if c.ToFake {
		if err := c.toFake(std, lines); err != nil {
			return err
		}
	} else if err := record.Replay(std.out, lines); err != nil {
		return err
	}
	if cut {
		fmt.Fprintf(std.err, "note: %s: %v; the run was stopped while writing it\n", c.File, err)
	}
	return nil
}

// open opens what c.File names: the file at that path, or else the
// session of that id, or of that name in c.Workspace, as --resume finds it.
func (c *replayCmd) open(dirs xdg.Dirs) (*os.File, error) {
	f, err := os.Open(c.File)
	if !errors.Is(err, fs.ErrNotExist) {
		if err != nil {
			return nil, &exitCodeError{code: exitUsage, err: err}
		}
		return f, nil
	}
	path, err := c.sessionFile(dirs)
	if errors.Is(err, session.ErrNotFound) {
		return nil, &exitCodeError{code: exitUsage, err: fmt.Errorf("%s is no file, and %w (harness sessions lists them)", c.File, err)}
	} else if err != nil {
		return nil, err
	}
	return os.Open(path)
}

// sessionFile is the file of the session c.File names.
func (c *replayCmd) sessionFile(dirs xdg.Dirs) (string, error) {
	dir, err := chat.SessionDir(dirs)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: none is saved", session.ErrNotFound)
	}
	store, err := session.Open(dir)
	if err != nil {
		return "", err
	}
	root := ""
	if !session.IsID(c.File) {
		ws, err := tools.NewWorkspace(c.Workspace)
		if err != nil {
			return "", &exitCodeError{code: exitUsage, err: err}
		}
		root = ws.Root()
	}
	info, err := store.Find(root, c.File)
	if err != nil {
		return "", err
	}
	return store.Path(info.ID), nil
}

// toFake prints the script of the record's last run. A session is
// refused: it keeps the conversation, but none of the replies' details.
func (c *replayCmd) toFake(std stdio, lines []record.Line) error {
	if len(lines) > 0 && lines[0].Start != nil && lines[0].Session != "" {
		return &exitCodeError{code: exitUsage, err: fmt.Errorf("%s is a session, which keeps the conversation but not the model's replies as they came (thinking, done reason) that --to-fake needs: record the run with --record FILE, and give that FILE", c.File)}
	}
	runs := record.Runs(lines)
	if len(runs) == 0 {
		return fmt.Errorf("%s: the record is empty", c.File)
	}
	run := runs[len(runs)-1]
	if len(runs) > 1 {
		fmt.Fprintf(std.err, "note: %s holds %d runs; the script replays the last\n", c.File, len(runs))
	}
	xs, err := record.Exchanges(run)
	if err != nil {
		return fmt.Errorf("%s: %w", c.File, err)
	}
	if len(xs) == 0 {
		return fmt.Errorf("%s: the run holds no model reply to replay", c.File)
	}
	_, err = std.out.Write(fakemodel.FromRun(filepath.Base(c.File), run[0].Start, xs, record.Inputs(run), c.Expect))
	return err
}
