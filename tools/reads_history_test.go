package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
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
		got, err := historyNames(ws, t, tt.specs)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("HistorySecrets(%q) = %q, %v; want %q", tt.specs, got, err, tt.want)
		}
	}
	// Ignored now, and gone from the working tree: still in history.
	writeFiles(t, ws.root, map[string]string{".gitignore": "config.local\n"})
	got, err := historyNames(ws, t, []string{"."})
	if want := []string{".env", "config.local", "sub/id_rsa"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("after ignoring config.local: %q, %v; want %q", got, err, want)
	}
	// A branch made since holds a new secret.
	writeFiles(t, ws.root, map[string]string{"deploy.pem": "pem\n"})
	gitIn(t, ws.root, "switch", "-qc", "other")
	gitIn(t, ws.root, "add", "deploy.pem")
	gitIn(t, ws.root, "commit", "-qm", "third")
	got, err = historyNames(ws, t, []string{"deploy.pem"})
	if want := []string{"deploy.pem"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("after a commit: %q, %v; want %q", got, err, want)
	}
}

// historyNames returns the paths of ws.HistorySecrets(specs), each with
// what its text seemed to hold when that is why.
func historyNames(ws *Workspace, t *testing.T, specs []string) ([]string, error) {
	found, err := ws.HistorySecrets(t.Context(), specs)
	var names []string
	for _, f := range found {
		if f.Leak != "" {
			names = append(names, f.Path+": "+f.Leak)
		} else {
			names = append(names, f.Path)
		}
	}
	return names, err
}

// A key committed in a file with a plain name, and removed since, is
// found by its text in history, once: the blob's answer is kept. A blob
// is listed at every path it had.
func TestHistorySecretsText(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----\n"
	ws := newWorkspace(t, map[string]string{"notes.txt": key, "id_rsa": key, "main.go": "package main\n"})
	gitIn(t, ws.root, "init", "-q")
	gitIn(t, ws.root, "add", "notes.txt", "id_rsa", "main.go")
	gitIn(t, ws.root, "commit", "-qm", "first")
	writeFiles(t, ws.root, map[string]string{"notes.txt": "nothing here\n"})
	gitIn(t, ws.root, "commit", "-qam", "second")
	for _, tt := range []struct {
		specs, want []string
	}{
		{[]string{"."}, []string{"id_rsa", "notes.txt: a private key"}},
		// The same blob at a protected path and a plain one: the
		// plain one still reaches it.
		{[]string{"notes.txt"}, []string{"notes.txt: a private key"}},
		{[]string{"main.go"}, nil},
	} {
		got, err := historyNames(ws, t, tt.specs)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("HistorySecrets(%q) = %q, %v; want %q", tt.specs, got, err, tt.want)
		}
	}
	if n := len(ws.history.leaks); n == 0 {
		t.Errorf("no blob's answer kept")
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

// The objects of a partial clone are not read, since git would fetch
// the missing ones: history counts as not checked.
func TestHistorySecretsPartialClone(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	ws := newWorkspace(t, map[string]string{"notes.txt": "plain\n"})
	gitIn(t, ws.root, "init", "-q")
	gitIn(t, ws.root, "add", "notes.txt")
	gitIn(t, ws.root, "commit", "-qm", "first")
	gitIn(t, ws.root, "config", "extensions.partialClone", "origin")
	if _, err := ws.HistorySecrets(t.Context(), []string{"."}); !errors.Is(err, errPartialClone) {
		t.Errorf("HistorySecrets = %v, want errPartialClone", err)
	}
}

// In a workspace that is a folder of a larger repository, history's
// paths are those inside the folder, from the workspace's root.
func TestHistorySecretsInFolder(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, top, map[string]string{"svc-a/.env": "A=1\n", "svc-a/main.go": "package main\n", "svc-b/.env": "B=1\n"})
	gitIn(t, top, "init", "-q")
	gitIn(t, top, "add", "svc-a/.env", "svc-a/main.go", "svc-b/.env")
	gitIn(t, top, "commit", "-qm", "first")
	ws, err := NewWorkspace(filepath.Join(top, "svc-a"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := historyNames(ws, t, []string{"."})
	if want := []string{".env"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("HistorySecrets = %q, %v; want %q", got, err, want)
	}
}

// History is listed again only when a reference, a reflog or the index
// changed: a settled state is remembered.
func TestHistoryListedOncePerState(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	ws := newWorkspace(t, map[string]string{".env": "A=1\n", "main.go": "package main\n"})
	gitIn(t, ws.root, "init", "-q")
	gitIn(t, ws.root, "add", ".env", "main.go")
	gitIn(t, ws.root, "commit", "-qm", "first")
	settle := func() {
		old := time.Now().Add(-time.Minute)
		filepath.WalkDir(filepath.Join(ws.root, ".git"), func(p string, _ fs.DirEntry, err error) error {
			if err == nil {
				os.Chtimes(p, old, old)
			}
			return nil
		})
	}
	settle()
	for range 3 {
		if got, err := historyNames(ws, t, []string{"."}); err != nil || !slices.Equal(got, []string{".env"}) {
			t.Fatalf("HistorySecrets = %q, %v", got, err)
		}
	}
	if ws.history.lists != 1 {
		t.Errorf("listed %d times for one state, want 1", ws.history.lists)
	}
	writeFiles(t, ws.root, map[string]string{"deploy.pem": "x\n"})
	gitIn(t, ws.root, "add", "deploy.pem")
	gitIn(t, ws.root, "commit", "-qm", "second")
	settle()
	got, err := historyNames(ws, t, []string{"."})
	if want := []string{".env", "deploy.pem"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("after a commit: %q, %v; want %q", got, err, want)
	}
	if ws.history.lists != 2 {
		t.Errorf("listed %d times for two states, want 2", ws.history.lists)
	}
}

// A history with more text than one call reads is read over several:
// each call says that not all could be checked, and the last finds the
// key.
func TestHistorySecretsReadOverCalls(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----\n"
	files := map[string]string{"z.txt": key}
	for i := range 4 {
		files[fmt.Sprintf("a%d.txt", i)] = strings.Repeat(fmt.Sprint(i), 100)
	}
	ws := newWorkspace(t, files)
	gitIn(t, ws.root, "init", "-q")
	gitIn(t, ws.root, "add", ".")
	gitIn(t, ws.root, "commit", "-qm", "first")
	ws.history.scanMax = 250
	calls := 0
	for ; calls < 10; calls++ {
		got, err := historyNames(ws, t, []string{"."})
		if err == nil {
			if want := []string{"z.txt: a private key"}; !slices.Equal(got, want) {
				t.Errorf("at last: %q, want %q", got, want)
			}
			break
		}
		if !errors.Is(err, errHistoryScan) {
			t.Fatalf("call %d: %v, want errHistoryScan", calls, err)
		}
	}
	if calls < 2 || calls == 10 {
		t.Errorf("read in %d calls, want several and an end", calls+1)
	}
}
