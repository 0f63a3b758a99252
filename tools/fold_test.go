package tools

import (
	"context"
	"strings"
	"testing"
)

// Names are taken as file systems that ignore case take them (macOS and
// Windows by default), on every system: a write to .GIT/config is a write
// to .git/config there, and .ENV is .env, so both are refused everywhere.
// The paths need not exist: on Linux .GIT is only a name, and refusing it
// costs nothing.
func TestNamesWithoutCase(t *testing.T) {
	ws := secretWorkspace(t)
	for _, tt := range []struct{ path, want string }{
		{".ENV", ".env*"},
		{"certs/SERVER.PEM", "*.pem"},
		{".GIT/config", ".git"},
		{"sub/.Git/hooks/pre-commit", ".git"},
		{".git./config", ".git"}, // what Windows opens
	} {
		abs, err := ws.Resolve(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := ws.Secret(abs); !strings.Contains(got, tt.want) {
			t.Errorf("Secret(%s) = %q, want it to name %s", tt.path, got, tt.want)
		}
	}
	for _, path := range []string{".GIT/config", "sub/.Git/hooks/pre-commit", ".git./config"} {
		_, err := WriteFile(ws).run(WithSecrets(context.Background()), map[string]any{"path": path, "content": "x"})
		checkErr(t, err, ErrProtected)
	}
}
