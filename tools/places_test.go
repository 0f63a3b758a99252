package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A workspace that holds the home folder (-w ~) holds the harness's own
// settings and state, git's user configuration and the shells' start-up
// files: the file tools write none of them and keep them from the model
// (hole 9 of the third security round).
func TestOwnPlacesRefused(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	writeFiles(t, home, map[string]string{
		".bashrc":                            "# rc\n",
		".gitconfig":                         "[user]\n",
		".config/git/config":                 "[core]\n",
		".config/harness/config.toml":        "model = \"x\"\n",
		".local/state/harness/sessions/a.md": "hi\n",
		"dotfiles/zshrc":                     "# zsh\n",
		"project/main.go":                    "package main\n",
	})
	if err := os.Symlink("dotfiles/zshrc", filepath.Join(home, ".zshrc")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	ws, err := NewWorkspace(home)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range []string{".bashrc", ".profile", ".gitconfig", ".config/git/config", ".config/git/attributes",
		".config/harness/config.toml", ".config/harness/SYSTEM.md", ".local/state/harness/sessions/b.md",
		".zshrc", "dotfiles/zshrc", "./.bash_profile"} {
		_, err := WriteFile(ws).run(ctx, map[string]any{"path": p, "content": "x\n"})
		checkErr(t, err, ErrProtected)
	}
	_, err = EditFile(ws).run(WithSecrets(ctx), map[string]any{"path": ".bashrc", "old_text": "# rc", "new_text": "id"})
	checkErr(t, err, ErrProtected)
	for _, p := range []string{".bashrc", ".gitconfig", ".local/state/harness/sessions/a.md"} {
		_, err := ReadFile(ws).run(ctx, map[string]any{"path": p})
		checkErr(t, err, ErrProtected)
		_, err = ReadFile(ws).run(WithSecrets(ctx), map[string]any{"path": p})
		checkErr(t, err, ErrProtected)
	}
	_, err = ListFiles(ws).run(WithSecrets(ctx), map[string]any{"path": ".local/state/harness/sessions"})
	checkErr(t, err, ErrProtected)
	if b := readString(t, filepath.Join(home, ".bashrc")); b != "# rc\n" {
		t.Errorf(".bashrc = %q", b)
	}
	if _, err := WriteFile(ws).run(ctx, map[string]any{"path": "project/main.go", "content": "package main\n\n"}); err != nil {
		t.Errorf("writing a project file in the home folder: %v", err)
	}
}

// $XDG_CONFIG_HOME and $XDG_STATE_HOME move the places, wherever they are.
func TestOwnPlacesFollowXDG(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"cfg/harness/config.toml": "", "cfg/git/config": "", "st/harness/x": ""})
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(ws.Root(), "cfg"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(ws.Root(), "st"))
	ws, err := NewWorkspace(ws.Root())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"cfg/harness/config.toml", "cfg/git/config", "st/harness/x"} {
		_, err := WriteFile(ws).run(context.Background(), map[string]any{"path": p, "content": "x\n"})
		checkErr(t, err, ErrProtected)
	}
}
