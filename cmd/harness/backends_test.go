package main

import (
	"context"
	"testing"

	"harness/chat"
	"harness/config"
	"harness/fakemodel"
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
		model                  chat.Backend // nil: the table's backend of that name
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
			_, isChecker := b.(chat.Checker)
			_, isSizer := b.(chat.Sizer)
			_, isLister := b.(chat.Lister)
			if isChecker != tt.checker || isSizer != tt.sizer || isLister != tt.lister {
				t.Errorf("checker %v, sizer %v, lister %v; want %v, %v, %v", isChecker, isSizer, isLister, tt.checker, tt.sizer, tt.lister)
			}
			if !tt.checker {
				if err := chat.Check(context.Background(), b); err != nil {
					t.Errorf("checkBackend of a model that cannot check: %v", err)
				}
			}
		})
	}
	if types[0].Name != "ollama" {
		t.Errorf("the default backend is %s, want ollama", types[0].Name)
	}
}
