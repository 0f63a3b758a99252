package chat

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

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

// TestWriteOffers: one model a line, the one in use starred, and one line
// for a provider that listed none, however long or many-lined its error.
func TestWriteOffers(t *testing.T) {
	long := errors.New("cannot reach the server at http://127.0.0.1:1/v1: " + strings.Repeat("é", 300) + "\nand a second line")
	offers := []Offer{
		{Provider: "lms", Err: long},
		{Provider: "local", Models: []string{}},
		{Provider: "ollama", Models: []string{"fake", "qwen3"}},
	}
	var out strings.Builder
	if err := writeOffers(&out, offers, "ollama/qwen3"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("wrote:\n%s", out.String())
	}
	if l := lines[0]; !strings.HasPrefix(l, "  lms: cannot list its models: cannot reach the server at http://127.0.0.1:1/v1: éé") ||
		!strings.HasSuffix(l, "é…") || len(l) > 300 || !utf8.ValidString(l) {
		t.Errorf("error line: %q", l)
	}
	if want := "  local: no models\n  ollama/fake\n* ollama/qwen3"; strings.Join(lines[1:], "\n") != want {
		t.Errorf("wrote\n%s\nwant\n%s", strings.Join(lines[1:], "\n"), want)
	}
}
