package chat

import (
	"errors"
	"fmt"
	"sync"

	"harness/fakemodel"
	"harness/loop"
)

// Scripted keeps the first failure of a scripted model (--fake): a
// request that did not meet what the script expects, or one made after
// its last reply. The REPL goes on after such a turn, as after any failed
// turn, and then fails the run with it, as -p does: a script replayed in
// the REPL, or a stage of the tour, fails where the harness strayed from
// it. It is a loop hook, of every conversation of the run; a nil one
// keeps nothing.
type Scripted struct {
	mu  sync.Mutex
	err error
}

func (s *Scripted) Event(e loop.Event) error {
	if s == nil || e.Kind != loop.TurnEnded || !(errors.Is(e.Err, fakemodel.ErrExpectation) || errors.Is(e.Err, fakemodel.ErrExhausted)) {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = e.Err
	}
	return nil
}

// Failure is the run's error: the first failure of the script, or nil.
func (s *Scripted) Failure() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		return nil
	}
	return fmt.Errorf("the run strayed from the model's script: %w", s.err)
}
