package chat

import (
	"errors"
	"fmt"
	"harness/ollama"
	"net/url"
	"testing"
)

// The advice for a model the server does not have is the same in the
// REPL and with -p, each naming what it can do: /model, or --model.
func TestModelAdvice(t *testing.T) {
	host, _ := url.Parse("http://127.0.0.1:9")
	const missing = `model not found: "qwen3" is not on the Ollama server at http://127.0.0.1:9`
	real := &ollama.MissingError{Model: "qwen3", Host: host, Have: []ollama.Available{{Name: "llama3", Family: "llama"}, {Name: "gemma3", Family: "gemma3"}}}
	empty := &ollama.MissingError{Model: "qwen3", Host: host}
	fake := &ollama.MissingError{Model: "qwen3", Host: host, Have: []ollama.Available{{Name: "fake", Family: "fake"}}}
	tests := []struct {
		name string
		err  error
		repl bool
		want string
	}{
		{"real server", real, true, missing + "; get it with: ollama pull qwen3, or type /model NAME with one it has: llama3, gemma3"},
		{"real server, -p", real, false, missing + "; get it with: ollama pull qwen3, or start again with --model NAME with one it has: llama3, gemma3"},
		{"empty server", empty, true, missing + "; get it with: ollama pull qwen3"},
		{"empty server, -p", empty, false, missing + "; get it with: ollama pull qwen3"},
		{"fake server", fake, true, missing + "; that server is a harness fake-ollama serving fake: start again with --model fake, or type /model fake"},
		{"fake server, -p", fake, false, missing + "; that server is a harness fake-ollama serving fake: start again with --model fake"},
		{"wrapped", fmt.Errorf("turn 1: %w", fake), false, "turn 1: " + missing + "; that server is a harness fake-ollama serving fake: start again with --model fake"},
		{"other error", errors.New("cannot reach it"), true, "cannot reach it"},
	}
	for _, tt := range tests {
		if got := Advice(tt.err, tt.repl); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
	if err := Advised(fake); err.Error() != Advice(fake, false) || !errors.Is(err, ollama.ErrModelNotFound) {
		t.Errorf("Advised(%v) = %v", fake, err)
	}
}
