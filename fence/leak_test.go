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

// The hints are looked for in any case of their letters, and a name the
// expression matches only through Unicode case folding is checked too.
func TestLeakFoldedHints(t *testing.T) {
	tests := []struct {
		text string
		want string
	}{
		{"Db_PassWord = hunter2hunter2", "a password or token assignment"},
		{"AUTH_HEADER: abcdefgh1234", "a password or token assignment"},
		{"api_\u212aey=abcdefgh12", "a password or token assignment"}, // the Kelvin sign K
		{"pa\u017f\u017fword=abcdefgh12", "a password or token assignment"},
		{"Tok: abcdefgh12", ""},
		{"the keyboard is here", ""},
	}
	for _, tt := range tests {
		if got := Leak(tt.text); got != tt.want {
			t.Errorf("Leak(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if got := leakIn([]byte(tt.text)); got != tt.want {
			t.Errorf("leakIn of the bytes of %q = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestIndexFold(t *testing.T) {
	tests := []struct {
		text, lower string
		want        int
	}{
		{"a Secret here", "secret", 2},
		{"SECRET", "secret", 0},
		{"sEcReT and secret", "secret", 0},
		{"sec secret", "secret", 4},
		{"Sec sEcret", "secret", 4},
		{"secre", "secret", -1},
		{"", "key", -1},
		{"monkey", "key", 3},
		{"x-----BEGIN ", "-----begin ", 1},
	}
	for _, tt := range tests {
		if got := indexFold(tt.text, tt.lower); got != tt.want {
			t.Errorf("indexFold(%q, %q) = %d, want %d", tt.text, tt.lower, got, tt.want)
		}
		if got := indexFold([]byte(tt.text), tt.lower); got != tt.want {
			t.Errorf("indexFold of the bytes of %q, %q = %d, want %d", tt.text, tt.lower, got, tt.want)
		}
	}
}
