package fence

import (
	"math/rand/v2"
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
		{`"api_key": "0123456789abcdef"`, "a password or token assignment"},
		{"password hunter2hunter2", ""},
		{"-mod=mod -trimpath", ""},
		{"https://proxy.golang.org,direct", ""},
		{"*.corp.example.com,github.com/acme", ""},
		{"/usr/local/bin:/usr/bin:/bin", ""},
	}
	for _, tt := range tests {
		if got := Leak(tt.text); got != tt.want {
			t.Errorf("Leak(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if got := LeakBytes([]byte(tt.text)); got != tt.want {
			t.Errorf("LeakBytes(%q) = %q, want %q", tt.text, got, tt.want)
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
		if got := LeakBytes([]byte(tt.text)); got != tt.want {
			t.Errorf("LeakBytes(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if got := leakIn([]byte(tt.text)); got != tt.want {
			t.Errorf("leakIn of the bytes of %q = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// hinted finds what looking for each hint in the whole text finds.
func TestHinted(t *testing.T) {
	if len(leaks()) > 64 {
		t.Fatalf("%d leaks do not fit the set hinted returns", len(leaks()))
	}
	naive := func(text string) uint64 {
		lower := []byte(text)
		for i, c := range lower {
			if 'A' <= c && c <= 'Z' {
				lower[i] = c + 'a' - 'A'
			}
		}
		var found uint64
		for i, l := range leaks() {
			for _, h := range l.hints {
				if !l.fold && strings.Contains(text, h) || l.fold && strings.Contains(string(lower), h) {
					found |= 1 << i
				}
			}
			if l.fold && (strings.Contains(text, "\u212a") || strings.Contains(text, "\u017f")) {
				found |= 1 << i
			}
		}
		return found
	}
	texts := []string{
		"", "a", "-----BEGIN ", "x-----BEGIN", "AKIA", "ASIA", "AIza", "gh", "github_pat_", "glpat-",
		"xox", "sk-", "rk-", "eyJ", "://", "PassWord", "SECRET", "tOkEn", "Credential", "AUTH", "cookie",
		"Session", "KEY", "ke", "passw", "pass w", "\u212aEY", "\u017fecret", "monkey business", "the Auth key://x",
		"-k-", "rk", "s-k-", "e", "E", "aAaA", "autH", "-----BEGIN-----BEGIN ",
	}
	// And texts made of the bytes the hints are found through, and their
	// neighbours.
	alphabet := "-:AaEegxyJksrhutoKIZ \n"
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rnd.IntN(12))
		for i := range b {
			b[i] = alphabet[rnd.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, text := range texts {
		want := naive(text)
		if got := hinted(text, 0); got != want {
			t.Errorf("hinted(%q) = %b, want %b", text, got, want)
		}
		if got := hinted([]byte(text), 0); got != want {
			t.Errorf("hinted of the bytes of %q = %b, want %b", text, got, want)
		}
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// A text without any of the bytes a leak needs is not looked at for it:
// what Leak finds is what it finds looking at every leak.
func TestLeakNeeds(t *testing.T) {
	every := func(text string) string {
		for _, l := range leaks() {
			if l.match(text) {
				return l.what
			}
		}
		return ""
	}
	texts := []string{
		"DB_PASSWORD=hunter2hunter2", "DB_PASSWORD: hunter2hunter2", "db_password hunter2hunter2",
		"token = 'abcdefgh12345678'", "\u212aEY=abcdefgh12345678", "\u017fecret: abcdefgh12345678",
		"line 01 of a file used to time the loop. xxxx\n", "https://u:pass@proxy.example", "session cookie auth key",
	}
	for _, l := range leaks() {
		if l.needs != "" {
			texts = append(texts, l.needs, strings.Repeat(l.needs, 3))
		}
	}
	for _, text := range texts {
		if got, want := Leak(text), every(text); got != want {
			t.Errorf("Leak(%q) = %q, want %q", text, got, want)
		}
	}
}
