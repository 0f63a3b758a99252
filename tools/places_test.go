package tools

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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

// realDirs gives each place the paths realPath gives it and its folder,
// through links to folders, files and nowhere, in folders that are not
// there or are files, whatever it resolved before.
func TestRealDirsAsRealPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("skipped: makes symlinks")
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "d", "e"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{
		"l": filepath.Join(root, "d"), "lf": filepath.Join(root, "file"), "dangling": filepath.Join(root, "nowhere"),
		"d/rel": "../file", "d/up": "..", "loop": "loop",
	} {
		if err := os.Symlink(to, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	r := realDirs{}
	for range 2 { // the second time from what the first kept
		for _, rel := range []string{"d", "d/e", "d/missing", "l", "l/e", "l/rel", "l/up", "lf", "dangling", "dangling/x",
			"file/x", "missing/x", "loop", "loop/x", "d/up/l/e"} {
			p := filepath.Join(root, filepath.FromSlash(rel))
			var want []string
			dir, err := realPath(filepath.Dir(p), 0)
			if err == nil {
				want = []string{filepath.Join(dir, filepath.Base(p))}
				if real, err := realPath(p, 0); err == nil {
					want = append(want, real)
				}
			}
			got, ok := r.paths(p)
			if ok != (err == nil) || !slices.Equal(got, want) {
				t.Errorf("paths(%s) = %q, %v; want %q, %v", rel, got, ok, want, err == nil)
			}
		}
	}
}

// BenchmarkOwnPlaces is what finding the places a workspace must protect
// costs each start, for a workspace that does not hold the home folder.
func BenchmarkOwnPlaces(b *testing.B) {
	root := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		ownPlaces(root)
	}
}
