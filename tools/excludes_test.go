package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hole 11 of the third security round: a file ignored only through git's
// global excludes (core.excludesFile, ~/.config/git/ignore) is as secret
// as one the workspace's .gitignore names.
func TestGlobalExcludes(t *testing.T) {
	write := func(t *testing.T, p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name  string
		files map[string]string // in the home folder, or the workspace for "ws/"
		xdg   bool              // XDG_CONFIG_HOME set to home/xdg
	}{
		{"default", map[string]string{".config/git/ignore": "private.txt\n"}, false},
		{"XDG_CONFIG_HOME", map[string]string{"xdg/git/ignore": "private.txt\n"}, true},
		{"core.excludesFile in ~/.gitconfig", map[string]string{
			".gitconfig": "[core]\n\texcludesFile = ~/.gitignore_global\n", ".gitignore_global": "*.txt\n!main.txt\n"}, false},
		{"core.excludesFile in the XDG config", map[string]string{
			".config/git/config": "[core]\n\texcludesfile = \"/ABS/global ignore\"\n", "global ignore": "private.*\n"}, false},
		{"core.excludesFile in the repository", map[string]string{
			"ws/.git/config": "[core]\n\texcludesfile = ~/repo-ignore\n", "repo-ignore": "private.txt\n"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", "")
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			t.Setenv("GIT_CONFIG_GLOBAL", "")
			if tt.xdg {
				t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
			}
			root := filepath.Join(home, "ws")
			write(t, filepath.Join(root, "private.txt"), "key\n")
			write(t, filepath.Join(root, "main.txt"), "main\n")
			for name, text := range tt.files {
				write(t, filepath.Join(home, name), strings.ReplaceAll(text, "/ABS", home))
			}
			ws, err := NewWorkspace(root)
			if err != nil {
				t.Fatal(err)
			}
			for name, secret := range map[string]bool{"private.txt": true, "main.txt": false} {
				abs, err := ws.Resolve(name)
				if err != nil {
					t.Fatal(err)
				}
				if why := ws.Secret(abs); (why != "") != secret {
					t.Errorf("Secret(%s) = %q, want secret %v", name, why, secret)
				}
			}
			// Rules read at the start of the run (before a command) hold it too.
			ws.begin()
			abs, _ := ws.Resolve("private.txt")
			if ws.Secret(abs) == "" {
				t.Error("after the start: private.txt is not secret")
			}
		})
	}
	// The workspace's own .gitignore comes after the global file, as in git.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	write(t, filepath.Join(home, ".config/git/ignore"), "*.txt\n")
	write(t, filepath.Join(home, "ws/.gitignore"), "!notes.txt\n")
	write(t, filepath.Join(home, "ws/notes.txt"), "notes\n")
	ws, err := NewWorkspace(filepath.Join(home, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := ws.Resolve("notes.txt")
	if why := ws.Secret(abs); why != "" {
		t.Errorf("notes.txt, unignored by .gitignore: %q", why)
	}
}
