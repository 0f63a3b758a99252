package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// homeTree makes a home folder, under a folder of its own, holding
// settings, a dotfiles folder they link to, a folder of PATH and a
// project, and makes it $HOME; it returns the folder and the home.
func homeTree(t *testing.T) (base, home string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home = filepath.Join(base, "home")
	writeFiles(t, home, map[string]string{
		".config/go/":                   "",
		".vimrc-old":                    "set nu\n",
		"dotfiles/nvim/init.lua":        "-- nvim\n",
		"dotfiles/vimrc":                "set nu\n",
		"dotfiles/README":               "mine\n",
		"tools/bin/tool":                "#!/bin/sh\n",
		"project/.config/settings.json": "{}\n",
		"project/main.go":               "package main\n",
	})
	for link, to := range map[string]string{
		".config/nvim":   "../dotfiles/nvim", // a link in a setting folder
		".vimrc":         "dotfiles/vimrc",   // a setting that is a link
		"link-to-config": ".config",          // a plain name leading into a setting
		"project/cfg":    "../.cargo",        // a link into a setting not there yet
		".dangling":      "nowhere",          // a setting that leads nowhere yet
		".config/up":     "..",               // a link to the home folder itself
		".root":          "/",
	} {
		if err := os.Symlink(to, filepath.Join(home, link)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("PATH", filepath.Join(home, "tools", "bin")+string(filepath.ListSeparator)+home+string(filepath.ListSeparator)+"/usr/bin")
	return base, home
}

// homeWorkspace is a workspace of the home folder homeTree makes.
func homeWorkspace(t *testing.T) (home string, ws *Workspace) {
	t.Helper()
	_, home = homeTree(t)
	ws, err := NewWorkspace(home)
	if err != nil {
		t.Fatal(err)
	}
	return home, ws
}

// A workspace that holds the home folder holds the settings programs act
// on when they start: whatever their names, existing or not, the file
// tools write none of them, nor the folders of PATH in it, nor what the
// settings link to. A workspace that does not hold the home folder keeps
// its own .config writable.
func TestHomeSettingsRefused(t *testing.T) {
	base, home := homeTree(t)
	tests := []struct {
		root, path string
		want       error
	}{
		{home, ".config/go/env", ErrProtected},
		{home, ".cargo/config.toml", ErrProtected}, // not there yet
		{home, ".config/autostart/x.desktop", ErrProtected},
		{home, ".local/lib/python3.12/site-packages/usercustomize.py", ErrProtected},
		{home, ".local/bin/git", ErrProtected},
		{home, "bin/git", ErrProtected},
		{home, ".new", ErrProtected},
		{home, "./x/../.cargo/config.toml", ErrProtected},
		{home, "project/../.config/go/env", ErrProtected},
		{home, home + "/.cargo/env", ErrProtected},
		{home, "link-to-config/autostart/x.desktop", ErrProtected}, // a link into a setting
		{home, "project/cfg/config.toml", ErrProtected},            // a link into a setting not there
		{home, "dotfiles/nvim/init.lua", ErrProtected},             // where .config/nvim leads
		{home, "dotfiles/vimrc", ErrProtected},                     // where .vimrc leads
		{home, "nowhere", ErrProtected},                            // where .dangling leads
		{home, "tools/bin/git", ErrProtected},                      // a folder of PATH
		{home, "tools/lib/python3/site.py", ErrProtected},          // and the toolchain of its bin
		{home, "project/.config/settings.json", nil},               // a project's own settings
		{home, "project/main.go", nil},
		{home, "dotfiles/README", nil},
		{home, "notes.txt", nil}, // home itself is in PATH, and is still written
		{base, "home/.cargo/config.toml", ErrProtected},
		{base, "home/bin/git", ErrProtected},
		{base, "home/project/../.config/go/env", ErrProtected},
		{base, "home/link-to-config/go/env", ErrProtected},
		{base, "home/dotfiles/nvim/init.lua", ErrProtected},
		{base, "home/tools/bin/git", ErrProtected},
		{base, "home/project/cfg/config.toml", ErrProtected},
		{base, ".cargo/config.toml", nil}, // a dot folder beside home is no setting of it
		{base, "bin/x", nil},
		{base, "home/project/.config/settings.json", nil},
		{filepath.Join(home, "project"), ".config/settings.json", nil}, // the rule is off
		{filepath.Join(home, "project"), ".cargo/config.toml", nil},
		{filepath.Join(home, "project"), "bin/x", nil},
		{filepath.Join(home, "project"), "cfg/config.toml", ErrOutsideWorkspace},
		{filepath.Join(home, "dotfiles"), "nvim/init.lua", nil},
	}
	for _, tt := range tests {
		ws, err := NewWorkspace(tt.root)
		if err != nil {
			t.Fatal(err)
		}
		_, err = WriteFile(ws).run(context.Background(), map[string]any{"path": tt.path, "content": "x\n"})
		if (err == nil) != (tt.want == nil) || tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("in %s, writing %s: error %v, want %v", tt.root, tt.path, err, tt.want)
		}
	}
	for _, p := range []string{".cargo", "bin", ".local", "home/.cargo"} {
		if _, err := os.Lstat(filepath.Join(home, p)); err == nil {
			t.Errorf("%s was made", p)
		}
	}
	if b := readString(t, filepath.Join(home, "dotfiles", "vimrc")); b != "set nu\n" {
		t.Errorf("dotfiles/vimrc = %q", b)
	}
}

// The rule keeps writes out; reads of the settings are decided as they
// were (secrets elsewhere), and so are commands' writes the guard sees.
func TestHomeSettingsRead(t *testing.T) {
	home, ws := homeWorkspace(t)
	ctx := context.Background()
	for _, p := range []string{".vimrc", ".vimrc-old", "link-to-config/nvim/init.lua", "dotfiles/nvim/init.lua"} {
		if _, err := ReadFile(ws).run(ctx, map[string]any{"path": p}); err != nil {
			t.Errorf("reading %s: %v", p, err)
		}
	}
	root, err := os.OpenRoot(home)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	paths := commandPaths{ws: ws, ig: ws.ignores(root)}
	for _, tt := range []struct {
		path  string
		write bool
		want  error
	}{
		{".vimrc", false, nil},
		{".config/go/env", true, ErrProtected},
		{"bin/git", true, ErrProtected},
		{"tools/bin/git", true, ErrProtected},
		{"project/main.go", true, nil},
	} {
		err := paths.CheckPath(tt.path, tt.write)
		if (err == nil) != (tt.want == nil) || tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("CheckPath(%s, %v) = %v, want %v", tt.path, tt.write, err, tt.want)
		}
	}
}

// Commands see the settings that exist, what they link to and the
// folders of PATH in the home folder read-only; nothing of a project.
func TestHomeSettingsReadOnly(t *testing.T) {
	home, ws := homeWorkspace(t)
	got := ws.ownPaths()
	for _, p := range []string{".config", ".vimrc", ".vimrc-old", "dotfiles/nvim", "dotfiles/vimrc", "tools"} {
		if !slices.Contains(got, filepath.Join(home, p)) {
			t.Errorf("%s is not read-only to commands: %q", p, got)
		}
	}
	for _, p := range got {
		for _, free := range []string{"project", "dotfiles/README", "link-to-config", ".dangling", "nowhere", ".root"} {
			if p == filepath.Join(home, free) {
				t.Errorf("%s is read-only to commands", free)
			}
		}
	}
	ws, err := NewWorkspace(filepath.Join(home, "project"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ws.ownPaths(); len(got) > 0 {
		t.Errorf("a project in the home folder has read-only paths %q", got)
	}
}

// What a command makes among the home folder's settings, or where a
// folder of PATH was missing, is taken out after it; what was there
// before, what is not a setting, and the harness's own state made
// meanwhile stay.
func TestHomeSettingsUndo(t *testing.T) {
	_, home := homeTree(t)
	t.Setenv("PATH", os.Getenv("PATH")+string(filepath.ListSeparator)+filepath.Join(home, "go", "bin")+string(filepath.ListSeparator)+filepath.Join(home, "scripts"))
	ws, err := NewWorkspace(home)
	if err != nil {
		t.Fatal(err)
	}
	ctx, n := withNotes(context.Background())
	snap := ws.snapHome()
	writeFiles(t, home, map[string]string{
		".cargo/config.toml":                  "[build]\n",
		".local/lib/python3/usercustomize.py": "print()\n",
		".local/state/harness/undo/1":         "kept\n", // the harness's own, made meanwhile
		"bin/git":                             "#!/bin/sh\n",
		"go/pkg/mod/x.com/y@v1/y.go":          "package y\n",
		"scripts/tool":                        "#!/bin/sh\n",
		".config/go/env":                      "GOFLAGS=\n", // in a setting that was there
		"project/new.go":                      "package main\n",
		"notes.txt":                           "mine\n",
		"nowhere":                             "through .dangling\n",
		".profile":                            "id\n", // a start-up file that was not there
	})
	if err := os.Symlink("/usr/bin", filepath.Join(home, ".bin")); err != nil {
		t.Fatal(err)
	}
	made, err := snap.undo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".bin", ".cargo", ".local", ".profile", "bin", "go", "scripts", "nowhere"}; !slices.Equal(made, want) {
		t.Errorf("undo took out %q, want %q", made, want)
	}
	for _, p := range []string{".cargo", ".local/lib", ".profile", "bin", "go", "scripts", ".bin", "nowhere"} {
		if _, err := os.Lstat(filepath.Join(home, p)); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	for _, p := range []string{".local/state/harness/undo/1", ".config/go/env", "project/new.go", "notes.txt"} {
		if _, err := os.Lstat(filepath.Join(home, p)); err != nil {
			t.Errorf("%s was taken out: %v", p, err)
		}
	}
	if _, err := os.Stat("/usr/bin"); err != nil { // a link is taken out, not where it leads
		t.Errorf("/usr/bin: %v", err)
	}
	// What was taken out is kept where nothing runs it: another program
	// may have made it.
	kept, _ := filepath.Glob(filepath.Join(home, ".local/state/harness/set-aside/*/.cargo/config.toml"))
	if len(kept) != 1 || readString(t, kept[0]) != "[build]\n" {
		t.Errorf("the .cargo the command made was not kept aside: %q", kept)
	}
	if !strings.Contains(n.String(), "is kept in "+filepath.Join(home, ".local/state/harness/set-aside")) {
		t.Errorf("notes %q do not say where it was kept", n.String())
	}
	if n.String() == "" || !slices.Equal(n.Changed(), made) {
		t.Errorf("notes %q, changed %q", n.String(), n.Changed())
	}
	if made, _ := ws.snapHome().undo(ctx); made != nil {
		t.Errorf("nothing new, yet undo took out %q", made)
	}
}

// A command that replaces a setting that is a link (a dotfile manager's),
// takes one away, or moves an entry of the home folder to a setting's
// name, has it put back as it was, nothing of the user's lost.
func TestHomeSettingsUndoLinks(t *testing.T) {
	home, ws := homeWorkspace(t)
	snap := ws.snapHome()
	at := func(p string) string { return filepath.Join(home, p) }
	for _, step := range []error{
		os.Remove(at(".vimrc")),
		os.WriteFile(at(".vimrc"), []byte("planted\n"), 0o644),
		os.Remove(at(".dangling")),
		os.Rename(at("project"), at(".project")),
		os.Rename(at(".vimrc-old"), at(".vimrc-new")),
	} {
		if step != nil {
			t.Fatal(step)
		}
	}
	made, err := snap.undo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".dangling", ".project", ".vimrc", ".vimrc-new"}; !slices.Equal(made, want) {
		t.Errorf("undo put back %q, want %q", made, want)
	}
	for link, to := range map[string]string{".vimrc": "dotfiles/vimrc", ".dangling": "nowhere"} {
		if got, err := os.Readlink(at(link)); err != nil || got != to {
			t.Errorf("%s links to %q (%v), want %q", link, got, err, to)
		}
	}
	for p, want := range map[string]string{".vimrc": "set nu\n", ".vimrc-old": "set nu\n", "project/main.go": "package main\n"} {
		if got := readString(t, at(p)); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	for _, p := range []string{".project", ".vimrc-new"} {
		if _, err := os.Lstat(at(p)); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
}

// BenchmarkHomeCommand is what a command pays, with the home folder as the
// workspace, for its settings: the paths shown read-only, and the
// snapshot and the check after it (homeSnap), in a home of 60 settings
// and 20 other entries.
func BenchmarkHomeCommand(b *testing.B) {
	home := b.TempDir()
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf(".setting%d/config", i)] = "x\n"
	}
	for i := range 20 {
		files[fmt.Sprintf("folder%d/file", i)] = "x\n"
	}
	for name, content := range files {
		p := filepath.Join(home, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Setenv("HOME", home)
	ws, err := NewWorkspace(home)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		if len(ws.ownPaths()) < 60 {
			b.Fatal("settings missing")
		}
		if made, err := ws.snapHome().undo(ctx); made != nil || err != nil {
			b.Fatal(made, err)
		}
	}
}

// An entry moved over a setting that was a link goes back where it came
// from, and the link is made again: neither is lost.
func TestHomeSettingsUndoMoveOverLink(t *testing.T) {
	home, ws := homeWorkspace(t)
	snap := ws.snapHome()
	at := func(p string) string { return filepath.Join(home, p) }
	if err := os.Rename(at(".vimrc-old"), at(".vimrc")); err != nil {
		t.Fatal(err)
	}
	if _, err := snap.undo(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, err := os.Readlink(at(".vimrc")); err != nil || got != "dotfiles/vimrc" {
		t.Errorf(".vimrc links to %q (%v), want dotfiles/vimrc", got, err)
	}
	if got := readString(t, at(".vimrc-old")); got != "set nu\n" {
		t.Errorf(".vimrc-old = %q", got)
	}
}
