package fence

import (
	"strings"
	"testing"
)

// Every secret word holds a hint, or an assignment to a name with that
// word would be passed over unchecked.
func TestAssignHintsCoverSecretWords(t *testing.T) {
	for _, w := range SecretWords() {
		if !containsAny(strings.ToLower(w), assignHints) {
			t.Errorf("no hint of the assignment leak is in %q", w)
		}
		if !assignment(SecretWords())("X_"+w+"_Y=abcdefgh12") || Leak(strings.ToLower(w)+": abcdefgh12") == "" {
			t.Errorf("an assignment to a name holding %q is no leak", w)
		}
	}
}

func TestLeak(t *testing.T) {
	tests := []struct {
		text string
		want string // "" for none
	}{
		{"-----BEGIN OPENSSH PRIVATE KEY-----", "a private key"},
		{"-ldflags=-X=main.token=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "a GitHub token"},
		{"https://proxy.example/mod?access_token=abcdefgh12345", "a password or token assignment"},
		{"https://u:pass@proxy.example", "a URL with a password"},
		{"glpat-abcdefghij0123456789", "a GitLab token"},
		{"-mod=mod -trimpath", ""},
		{"https://proxy.golang.org,direct", ""},
		{"*.corp.example.com,github.com/acme", ""},
		{"/usr/local/bin:/usr/bin:/bin", ""},
	}
	for _, tt := range tests {
		if got := Leak(tt.text); got != tt.want {
			t.Errorf("Leak(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
