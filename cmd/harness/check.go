package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"harness/fakemodel"
	"harness/ollama"
)

// checkTimeout bounds the REPL's check of the server at start.
const checkTimeout = 10 * time.Second

// checkModel asks the Ollama server whether it has m's model.
func checkModel(ctx context.Context, m *ollama.Model) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	return m.Check(ctx)
}

// modelAdvice says what a failed check found and what to do about it:
// start the server, pull the model, or pick one the server has. A
// `harness fake-ollama` cannot pull anything: for it the advice is the
// model it serves.
func modelAdvice(err error) string {
	var missing *ollama.MissingError
	if !errors.As(err, &missing) {
		return err.Error()
	}
	var names []string
	fake := len(missing.Have) > 0
	for _, m := range missing.Have {
		names = append(names, m.Name)
		fake = fake && m.Family == fakemodel.Family
	}
	if fake {
		return fmt.Sprintf("%v; that server is a harness fake-ollama serving %s: start again with --model %s, or type /model %s",
			err, strings.Join(names, ", "), names[0], names[0])
	}
	advice := fmt.Sprintf("%v; get it with: ollama pull %s", err, missing.Model)
	if len(names) > 0 {
		advice += fmt.Sprintf(", or type /model NAME with one it has: %s", strings.Join(names, ", "))
	}
	return advice
}
