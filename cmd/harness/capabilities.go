package main

import (
	"context"
	"errors"
)

// What backends differ in, each a small interface a backend satisfies
// when it can. Nothing here asks which backend a model is: a model that
// cannot do a thing is simply not asked to.

// checker is a backend that can ask its server, before the first
// request, whether it has the model. An error that is a missingModel
// says the server lacks it; any other, why the server could not say.
type checker interface {
	Check(ctx context.Context) error
}

// sizer is a backend that can ask its server for the context length of
// the model: the most tokens its window can hold, whatever it is asked
// for (0 when the server does not say).
type sizer interface {
	ContextLength(ctx context.Context) (int, error)
}

// lister is a backend that can list the models its server offers.
type lister interface {
	Models(ctx context.Context) ([]string, error)
}

// missingModel is the error of a check that did not find the model on
// its server. Certain is false for a server whose list leaves the name
// out but that may answer to it all the same: that is only a warning.
type missingModel interface {
	error
	Certain() bool
}

// pullable is a missingModel of a server that can get the model: Remedy
// says how, and Offered lists the models it has, with the family of each.
type pullable interface {
	Remedy() string
	Offered() (names, families []string)
}

// certainlyMissing reports whether err says the server does not have the
// model, for certain.
func certainlyMissing(err error) bool {
	var m missingModel
	return errors.As(err, &m) && m.Certain()
}

// doubtfullyMissing reports whether err says the server does not list the
// model, which it may serve all the same.
func doubtfullyMissing(err error) bool {
	var m missingModel
	return errors.As(err, &m) && !m.Certain()
}
