package main

import (
	"errors"
	"fmt"
	"os"

	"harness/record"
)

type replayCmd struct {
	File string `arg:"" placeholder:"FILE" help:"A record written with --record."`
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
	if err := record.Replay(std.out, lines); err != nil {
		return err
	}
	if cut {
		fmt.Fprintf(std.err, "note: %s: %v; the run was stopped while writing it\n", c.File, err)
	}
	return nil
}
