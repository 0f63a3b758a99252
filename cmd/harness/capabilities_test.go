package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"

	"harness/config"
	"harness/fakemodel"
	"harness/ollama"
	"harness/openai"
)

// TestBackends: every backend of the table is made from its settings,
// names itself by its type, and has the capabilities it claims; a model
// is asked for nothing it cannot do.
func TestBackends(t *testing.T) {
	script, err := fakemodel.Parse("empty.fake", nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                   string
		model                  backend // nil: the table's backend of that name
		checker, sizer, lister bool
	}{
		{name: "ollama", checker: true, sizer: true, lister: true},
		{name: "openai", checker: true, lister: true},
		{name: "fake", model: fakemodel.New(script)},
	}
	if len(backends) != len(tests)-1 {
		t.Fatalf("%d backends in the table, %d in the test", len(backends), len(tests)-1)
	}
	types := backendTypes()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.model
			if b == nil {
				s, err := types.Resolve(config.Input{Flags: config.Flags{Model: tt.name + "/m"}})
				if err != nil {
					t.Fatal(err)
				}
				kind, ok := backendOf(s.Type.Value)
				if !ok {
					t.Fatalf("no backend of type %s", s.Type.Value)
				}
				if b, err = kind.open(s, sampling{}); err != nil {
					t.Fatal(err)
				}
			}
			if d := b.Describe(); d.Name != tt.name {
				t.Errorf("Describe().Name = %q, want the type's name %q", d.Name, tt.name)
			}
			_, isChecker := b.(checker)
			_, isSizer := b.(sizer)
			_, isLister := b.(lister)
			if isChecker != tt.checker || isSizer != tt.sizer || isLister != tt.lister {
				t.Errorf("checker %v, sizer %v, lister %v; want %v, %v, %v", isChecker, isSizer, isLister, tt.checker, tt.sizer, tt.lister)
			}
			if !tt.checker {
				if err := checkBackend(context.Background(), b); err != nil {
					t.Errorf("checkBackend of a model that cannot check: %v", err)
				}
			}
		})
	}
	if types[0].Name != "ollama" {
		t.Errorf("the default backend is %s, want ollama", types[0].Name)
	}
}

// TestMissing: a check's error says whether the model is missing, and
// whether for certain, whichever backend made it and however it is
// wrapped; only a server that can get the model has a remedy.
func TestMissing(t *testing.T) {
	host, _ := url.Parse("http://127.0.0.1:11434")
	base, _ := url.Parse("http://127.0.0.1:1234/v1")
	tests := []struct {
		name                string
		err                 error
		certainly, doubtful bool
		pullable            bool
	}{
		{"none", nil, false, false, false},
		{"another error", ollama.ErrUnreachable, false, false, false},
		{"ollama's", &ollama.MissingError{Model: "m", Host: host}, true, false, true},
		{"ollama's, wrapped", fmt.Errorf("check: %w", &ollama.MissingError{Model: "m", Host: host}), true, false, true},
		{"openai's", &openai.UnlistedError{Model: "m", Base: base}, false, true, false},
		{"a sentinel alone", openai.ErrModelNotFound, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p pullable
			if got := certainlyMissing(tt.err); got != tt.certainly {
				t.Errorf("certainlyMissing = %v", got)
			}
			if got := doubtfullyMissing(tt.err); got != tt.doubtful {
				t.Errorf("doubtfullyMissing = %v", got)
			}
			if got := errors.As(tt.err, &p); got != tt.pullable {
				t.Errorf("pullable = %v", got)
			}
		})
	}
}
