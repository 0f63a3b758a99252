package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"harness/record"
)

type replayCmd struct {
	File   string `arg:"" placeholder:"FILE" help:"A record written with --record."`
	ToFake bool   `name:"to-fake" help:"Print, instead of a transcript, a fake-model script that replays the run: the model's real replies, each expecting the last message the harness sent before it. Rerun it with --fake in the same workspace state: it passes while the harness sends the same, and names the first step where it does not."`
	Expect int    `default:"2000" placeholder:"BYTES" help:"With --to-fake, the most bytes of a message one expect holds: longer ones are expected by their last lines only (0: no limit)."`
}

// Run prints a record as a transcript. A record whose last line was cut by
// a killed run is shown up to that line, with a note.
func (c *replayCmd) Run(std stdio) error {
	f, err := os.Open(c.File)
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
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

// toFake prints the script of the record's last run.
func (c *replayCmd) toFake(std stdio, lines []record.Line) error {
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
	_, err = std.out.Write(fakeScript(filepath.Base(c.File), run[0].Start, xs, record.Inputs(run), c.Expect))
	return err
}
