package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// gitIn runs git with args in dir, failing the test on an error.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=dev", "GIT_COMMITTER_EMAIL=dev@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %q: %v\n%s", args, err, out)
	}
}

// History's protected paths are those it holds that the workspace
// protects now, by name or by an ignore rule, whether or not the working
// tree still has them; a pathspec limits them, and a change of the
// references is seen.
func TestHistorySecrets(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	ws := newWorkspace(t, map[string]string{
		".env": "TOKEN=x\n", "config.local": "password = x\n", "main.go": "package main\n", "sub/id_rsa": "key\n",
	})
	gitIn(t, ws.root, "init", "-q")
	gitIn(t, ws.root, "add", ".env", "config.local", "main.go", "sub/id_rsa")
	gitIn(t, ws.root, "commit", "-qm", "first")
	gitIn(t, ws.root, "rm", "-q", "--cached", "config.local")
	gitIn(t, ws.root, "commit", "-qm", "second")
	if err := os.Remove(filepath.Join(ws.root, "config.local")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		specs, want []string
	}{
		{[]string{"."}, []string{".env", "sub/id_rsa"}},
		{[]string{"sub"}, []string{"sub/id_rsa"}},
		{[]string{"main.go"}, nil},
		{nil, nil},
	} {
		got, err := ws.HistorySecrets(t.Context(), tt.specs)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("HistorySecrets(%q) = %q, %v; want %q", tt.specs, got, err, tt.want)
		}
	}
	// Ignored now, and gone from the working tree: still in history.
	writeFiles(t, ws.root, map[string]string{".gitignore": "config.local\n"})
	got, err := ws.HistorySecrets(t.Context(), []string{"."})
	if want := []string{".env", "config.local", "sub/id_rsa"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("after ignoring config.local: %q, %v; want %q", got, err, want)
	}
	// A branch made since holds a new secret.
	writeFiles(t, ws.root, map[string]string{"deploy.pem": "pem\n"})
	gitIn(t, ws.root, "switch", "-qc", "other")
	gitIn(t, ws.root, "add", "deploy.pem")
	gitIn(t, ws.root, "commit", "-qm", "third")
	got, err = ws.HistorySecrets(t.Context(), []string{"deploy.pem"})
	if want := []string{"deploy.pem"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("after a commit: %q, %v; want %q", got, err, want)
	}
}

// A workspace with no repository, or one with no commit, has no
// history.
func TestHistorySecretsNone(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	ws := newWorkspace(t, map[string]string{".env": "TOKEN=x\n"})
	if got, err := ws.HistorySecrets(t.Context(), []string{"."}); err != nil || len(got) > 0 {
		t.Errorf("no repository: %q, %v", got, err)
	}
	gitIn(t, ws.root, "init", "-q")
	if got, err := ws.HistorySecrets(t.Context(), []string{"."}); err != nil || len(got) > 0 {
		t.Errorf("no commit: %q, %v", got, err)
	}
}
