package chat

import (
	"context"
	"errors"
	"harness/loop"
	"harness/protocol"
	"time"
)

// Backend is a model that says what it is and which settings it honours.
type Backend interface {
	loop.Model
	Describe() protocol.Backend
}

// Models is where a chat finds models other than its own: the providers
// of the settings, for /model and for a resumed session's model.
type Models interface {
	// Spec is the model in use as -m names it: PROVIDER/MODEL.
	Spec() string
	// Provider is the provider in use.
	Provider() string
	// Address is the address of the provider in use, as its backend
	// reads it ("" when it has none).
	Address() string
	// Pick returns the model spec names (PROVIDER/MODEL, or a MODEL of
	// the provider in use), and what makes it the one in use.
	Pick(spec string) (b Backend, use func(), err error)
	// Offers asks the providers the user chose (the one in use, those of
	// the settings file, those the environment gives) which models they
	// offer, in the order of their names.
	Offers(ctx context.Context) []Offer
}

// Offer is what one provider offers: its models, or why they could not be
// listed.
type Offer struct {
	Provider string
	Models   []string
	Err      error
}

// What backends differ in, each a small interface a backend satisfies
// when it can. Nothing here asks which backend a model is: a model that
// cannot do a thing is simply not asked to.

// Checker is a backend that can ask its server, before the first
// request, whether it has the model. An error that is a MissingModel
// says the server lacks it; any other, why the server could not say.
type Checker interface {
	Check(ctx context.Context) error
}

// Sizer is a backend that can ask its server for the context length of
// the model: the most tokens its window can hold, whatever it is asked
// for (0 when the server does not say).
type Sizer interface {
	ContextLength(ctx context.Context) (int, error)
}

// Lister is a backend that can list the models its server offers.
type Lister interface {
	Models(ctx context.Context) ([]string, error)
}

// MissingModel is the error of a check that did not find the model on
// its server. Certain is false for a server whose list leaves the name
// out but that may answer to it all the same: that is only a warning.
type MissingModel interface {
	error
	Certain() bool
}

// Pullable is a MissingModel of a server that can get the model: Remedy
// says how, and Offered lists the models it has, with the family of each.
type Pullable interface {
	Remedy() string
	Offered() (names, families []string)
}

// CertainlyMissing reports whether err says the server does not have the
// model, for certain.
func CertainlyMissing(err error) bool {
	var m MissingModel
	return errors.As(err, &m) && m.Certain()
}

// DoubtfullyMissing reports whether err says the server does not list the
// model, which it may serve all the same.
func DoubtfullyMissing(err error) bool {
	var m MissingModel
	return errors.As(err, &m) && !m.Certain()
}

// checkTimeout bounds the check of the server, at the REPL's start and
// at /model.
const checkTimeout = 10 * time.Second

// Check asks b's server whether it has b's model, when b is a Checker:
// an Ollama server, or an OpenAI-compatible one (whose missing model is
// only a warning: some answer whatever the name). A scripted model is not
// asked.
func Check(ctx context.Context, b loop.Model) error {
	c, ok := b.(Checker)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	return c.Check(ctx)
}
