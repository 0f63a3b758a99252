package ollama

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/ollama/ollama/api"
)

// MissingError is the error of Check, Chat and ContextLength for a server
// that does not have the model. It wraps ErrModelNotFound.
// It says what is missing, not what to do: pulling the model, or picking
// one the server has (a harness fake-ollama cannot pull any).
type MissingError struct {
	Model string
	Host  *url.URL // as the model was given it, password and all
	// Have lists the models the server has.
	Have []Available
}

// Available is a model a server has.
type Available struct {
	Name   string
	Family string // the family of its architecture, as the server reports it
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("%v: %q is not on the Ollama server at %s", ErrModelNotFound, e.Model, e.Host.Redacted())
}

func (e *MissingError) Unwrap() error { return ErrModelNotFound }

// Certain reports that the model is missing for certain: an Ollama
// server answers for every model it has, and for no other.
func (e *MissingError) Certain() bool { return true }

// Offered lists the models the server has, and the family of each.
func (e *MissingError) Offered() (names, families []string) {
	for _, a := range e.Have {
		names = append(names, a.Name)
		families = append(families, a.Family)
	}
	return names, families
}

// Remedy says how to get the model onto the server.
func (e *MissingError) Remedy() string { return "get it with: ollama pull " + e.Model }

// Check asks the server whether it has the model, without loading it. It
// returns nil when it does, a *MissingError when it does not, and an
// error wrapping ErrUnreachable when no server answers.
func (m *Model) Check(ctx context.Context) error {
	_, err := m.show(ctx)
	var status api.StatusError
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &status) || status.StatusCode != http.StatusNotFound:
		return m.explain(ctx, err)
	}
	return m.missing(ctx)
}

// missing is the error for a server that does not have the model, with
// the models it has when it says.
func (m *Model) missing(ctx context.Context) *MissingError {
	missing := &MissingError{Model: m.name, Host: m.host}
	if have, err := m.tags(ctx); err == nil {
		missing.Have = have
	}
	return missing
}
