package chat

import (
	"errors"
	"fmt"
	"strings"

	"harness/fakemodel"
)

// Advice says what a failed check or model call found and what to do
// about it: start the server, get the model onto a server that can
// (pullable), or pick one the server has, with /model in the REPL (repl)
// or --model. A `harness fake-ollama` cannot pull anything: for it the
// advice is the model it serves. The REPL and -p give the same advice,
// each in its own words.
func Advice(err error, repl bool) string {
	var missing Pullable
	if !errors.As(err, &missing) {
		return err.Error()
	}
	names, families := missing.Offered()
	fake := len(names) > 0
	for _, f := range families {
		fake = fake && f == fakemodel.Family
	}
	if fake {
		advice := fmt.Sprintf("%v; that server is a harness fake-ollama serving %s: start again with --model %s", err, strings.Join(names, ", "), names[0])
		if repl {
			advice += ", or type /model " + names[0]
		}
		return advice
	}
	advice := fmt.Sprintf("%v; %s", err, missing.Remedy())
	switch {
	case len(names) > 0 && repl:
		advice += fmt.Sprintf(", or type /model NAME with one it has: %s", strings.Join(names, ", "))
	case len(names) > 0:
		advice += fmt.Sprintf(", or start again with --model NAME with one it has: %s", strings.Join(names, ", "))
	}
	return advice
}

// advisedError is an error told with Advice's advice.
type advisedError struct {
	err    error
	advice string
}

func (e *advisedError) Error() string { return e.advice }
func (e *advisedError) Unwrap() error { return e.err }

// Advised is err, told with the advice of Advice for a run of one
// turn (-p) when it is about a model a server that can get it does not
// have.
func Advised(err error) error {
	var missing Pullable
	if !errors.As(err, &missing) {
		return err
	}
	return &advisedError{err: err, advice: Advice(err, false)}
}
