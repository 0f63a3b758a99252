package chat

import (
	"errors"
	"fmt"
	"net/url"
	"testing"

	"harness/ollama"
	"harness/openai"
)

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
			var p Pullable
			if got := CertainlyMissing(tt.err); got != tt.certainly {
				t.Errorf("certainlyMissing = %v", got)
			}
			if got := DoubtfullyMissing(tt.err); got != tt.doubtful {
				t.Errorf("doubtfullyMissing = %v", got)
			}
			if got := errors.As(tt.err, &p); got != tt.pullable {
				t.Errorf("pullable = %v", got)
			}
		})
	}
}
