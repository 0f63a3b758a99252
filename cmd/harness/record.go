package main

import (
	"fmt"
	"os"

	"harness/record"
)

// openRecord appends a run's record to path, starting it with start, and
// returns it with what closes it. A new file is made 0600: a record holds
// everything the model read, secrets the user let it read included. An
// existing file keeps its mode, which is its owner's choice.
func openRecord(path string, start record.Start) (*record.Recorder, func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("--record: %w", err)
	}
	rec := record.New(f)
	if err := rec.Start(start); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("--record: %w", err)
	}
	return rec, func() { f.Close() }, nil
}
