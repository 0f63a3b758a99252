package main

import (
	"context"
	"errors"
	"fmt"

	"harness/tour"
)

type tourCmd struct {
	Stage int `arg:"" optional:"" placeholder:"N" help:"The stage to run; without it, the list of stages."`
}

// Run lists the stages, or runs one with harness, this one.
func (c *tourCmd) Run(ctx context.Context, std stdio, harness tour.Harness) error {
	t, err := tour.Load()
	if err != nil {
		return err
	}
	if c.Stage == 0 {
		t.List(std.out)
		return nil
	}
	code, err := t.Run(ctx, std.out, c.Stage, harness)
	switch {
	case errors.Is(err, tour.ErrNoStage):
		return &exitCodeError{code: exitUsage, err: err}
	case err != nil:
		return err
	case code != exitOK:
		return &exitCodeError{code: code, err: fmt.Errorf("stage %d ended with exit code %d", c.Stage, code)}
	}
	return nil
}
