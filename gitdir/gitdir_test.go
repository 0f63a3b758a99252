package gitdir

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tree makes files under a new resolved temporary folder: a name ending in
// / is a folder, a content starting with "-> " a symlink.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, files)
	return root
}

func write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if target, ok := strings.CutPrefix(content, "-> "); ok {
			err = os.Symlink(target, p)
		} else {
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestFind(t *testing.T) {
	tests := []struct {
		name        string
		files       map[string]string
		git, common string // relative to the root; "" for none
	}{
		{"folder", map[string]string{"ws/.git/config": ""}, "ws/.git", "ws/.git"},
		{"none", map[string]string{"ws/a": ""}, "", ""},
		{"pointer", map[string]string{"ws/.git": "gitdir: gd\n", "ws/gd/config": ""}, "ws/gd", "ws/gd"},
		{"pointer with spaces", map[string]string{"ws/.git": "gitdir: gd  \r\n"}, "ws/gd", "ws/gd"},
		{"pointer outside", map[string]string{"ws/.git": "gitdir: ../main/.git/worktrees/w\n", "main/.git/worktrees/w/commondir": "../..\n"}, "main/.git/worktrees/w", "main/.git"},
		{"pointer to nothing yet", map[string]string{"ws/.git": "gitdir: later"}, "ws/later", "ws/later"},
		{"not a pointer", map[string]string{"ws/.git": "hello"}, "", ""},
		{"commondir", map[string]string{"ws/.git/commondir": "../evil\n", "ws/evil/config": ""}, "ws/.git", "ws/evil"},
		{"link", map[string]string{"ws/.git": "-> ../real", "real/config": ""}, "real", "real"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := tree(t, tt.files)
			root := filepath.Join(base, "ws")
			l := Find(root)
			abs := func(rel string) string {
				if rel == "" {
					return ""
				}
				return filepath.Join(base, rel)
			}
			if l.Dot != filepath.Join(root, ".git") || l.Git != abs(tt.git) || l.Common != abs(tt.common) {
				t.Errorf("Find = %+v, want git %q common %q", l, abs(tt.git), abs(tt.common))
			}
		})
	}
}

func TestHolds(t *testing.T) {
	base := tree(t, map[string]string{"ws/.git": "gitdir: gd\n", "ws/gd/commondir": "../../common\n", "common/config": ""})
	root := filepath.Join(base, "ws")
	l := Find(root)
	for p, want := range map[string]bool{
		root + "/.git":              true,
		root + "/gd":                true,
		root + "/gd/config":         true,
		root + "/gd/hooks/x":        true,
		base + "/common/hooks/x":    true,
		root + "/gdx":               false,
		root + "/src/.git.go":       false,
		root:                        false,
		base + "/commonplace/hooks": false,
	} {
		if got := l.Holds(p); got != want {
			t.Errorf("Holds(%s) = %v, want %v", p, got, want)
		}
	}
	if got := Find(filepath.Join(base, "none")); got.Holds(filepath.Join(base, "none", ".git", "config")) != true {
		t.Error("where .git would be made is not held")
	}
}

func TestConfigs(t *testing.T) {
	base := tree(t, map[string]string{"ws/.git": "gitdir: gd\n", "ws/gd/commondir": "../../common\n", "ws/gd/config.worktree": "", "common/config": ""})
	got := Find(filepath.Join(base, "ws")).Configs()
	want := []string{filepath.Join(base, "common", "config"), filepath.Join(base, "ws", "gd", "config.worktree")}
	if !slices.Equal(got, want) {
		t.Errorf("Configs = %q, want %q", got, want)
	}
}

// repo is a workspace with a git directory as git init leaves it, in
// short.
func repo(t testing.TB) string {
	return filepath.Join(tree(t, map[string]string{
		"ws/.git/config":              "[core]\n\tbare = false\n",
		"ws/.git/HEAD":                "ref: refs/heads/main\n",
		"ws/.git/hooks/pre-commit":    "#!/bin/sh\nexit 0\n",
		"ws/.git/hooks/update.sample": "#!/bin/sh\n",
		"ws/.git/objects/":            "",
		"ws/main.go":                  "package main\n",
	}), "ws")
}

func TestRestore(t *testing.T) {
	tests := []struct {
		name    string
		attack  func(t *testing.T, root string)
		changes []string
	}{
		{"nothing", func(*testing.T, string) {}, nil},
		{"commondir to a bare repository", func(t *testing.T, root string) {
			write(t, root, map[string]string{".git/commondir": "../evil\n", "evil/config": "[core]\n\tfsmonitor = ./pwn\n"})
		}, []string{".git/commondir (created)"}},
		{"config", func(t *testing.T, root string) {
			write(t, root, map[string]string{".git/config": "[core]\n\tfsmonitor = ./pwn\n"})
		}, []string{".git/config (changed)"}},
		{"config swapped for a link", func(t *testing.T, root string) {
			os.Remove(filepath.Join(root, ".git", "config"))
			write(t, root, map[string]string{".git/config": "-> ../evil.cfg"})
		}, []string{".git/config (changed)"}},
		{"worktree config", func(t *testing.T, root string) {
			write(t, root, map[string]string{".git/config.worktree": "[alias]\n\tst = !id\n"})
		}, []string{".git/config.worktree (created)"}},
		{"a new hook", func(t *testing.T, root string) {
			write(t, root, map[string]string{".git/hooks/post-checkout": "#!/bin/sh\nid\n"})
		}, []string{".git/hooks/post-checkout (created)"}},
		{"a changed hook", func(t *testing.T, root string) {
			write(t, root, map[string]string{".git/hooks/pre-commit": "#!/bin/sh\nid\n"})
		}, []string{".git/hooks/pre-commit (changed)"}},
		{"a hook made executable", func(t *testing.T, root string) {
			os.Chmod(filepath.Join(root, ".git", "hooks", "update.sample"), 0o755)
		}, []string{".git/hooks/update.sample (changed)"}},
		{"hooks swapped for a link", func(t *testing.T, root string) {
			os.RemoveAll(filepath.Join(root, ".git", "hooks"))
			write(t, root, map[string]string{"myhooks/post-checkout": "#!/bin/sh\nid\n", ".git/hooks": "-> ../myhooks"})
		}, []string{".git/hooks (changed)"}},
		{"git init --separate-git-dir", func(t *testing.T, root string) {
			if err := os.Rename(filepath.Join(root, ".git"), filepath.Join(root, "gd")); err != nil {
				t.Fatal(err)
			}
			write(t, root, map[string]string{".git": "gitdir: gd\n", "gd/hooks/post-checkout": "#!/bin/sh\nid\n"})
		}, []string{".git (moved)", ".git/hooks/post-checkout (created)"}},
		{"moved beside and replaced", func(t *testing.T, root string) {
			os.Rename(filepath.Join(root, ".git"), filepath.Join(root, "old"))
			write(t, root, map[string]string{".git/config": "[core]\n\tfsmonitor = ./pwn\n"})
		}, []string{".git (moved)"}},
		{".git made private", func(t *testing.T, root string) {
			os.Chmod(filepath.Join(root, ".git"), 0o700)
		}, []string{".git (changed)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := repo(t)
			before := listing(t, root)
			snap := Snap(root)
			tt.attack(t, root)
			changes, err := snap.Restore()
			if err != nil {
				t.Fatalf("Restore: %v", err)
			}
			var got []string
			for _, c := range changes {
				got = append(got, c.String())
			}
			if !slices.Equal(got, tt.changes) {
				t.Errorf("changes %q, want %q", got, tt.changes)
			}
			if after := listing(t, root); after != before {
				t.Errorf(".git is not as it was:\n%s\nwant:\n%s", after, before)
			}
			if again, _ := Snap(root).Restore(); len(again) != 0 {
				t.Errorf("a second look finds %v", again)
			}
		})
	}
}

// listing describes every file under root/.git: path, mode and content.
func listing(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(filepath.Join(root, ".git"), func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			b.WriteString("error " + err.Error() + "\n")
			return nil
		}
		data := ""
		if fi.Mode().IsRegular() {
			d, _ := os.ReadFile(p)
			data = string(d)
		}
		b.WriteString(strings.TrimPrefix(p, root) + " " + fi.Mode().String() + " " + data + "\n")
		return nil
	})
	return b.String()
}

// A .git made where there was none is a repository the model made, whose
// configuration the user's git would run: it goes.
func TestRestoreRemovesANewRepository(t *testing.T) {
	root := filepath.Join(tree(t, map[string]string{"ws/a.txt": "x"}), "ws")
	snap := Snap(root)
	write(t, root, map[string]string{".git/config": "[core]\n\tfsmonitor = ./pwn\n", ".git/HEAD": "ref: refs/heads/main\n"})
	changes, err := snap.Restore()
	if err != nil || len(changes) != 1 || changes[0] != (Change{Path: ".git", Kind: Created}) {
		t.Errorf("changes %v, err %v", changes, err)
	}
	if _, err := os.Lstat(filepath.Join(root, ".git")); err == nil {
		t.Error(".git is still there")
	}
}

// A git directory moved where Restore cannot find it is reported, and what
// took its place is removed all the same.
func TestRestoreLostRepository(t *testing.T) {
	root := repo(t)
	snap := Snap(root)
	os.MkdirAll(filepath.Join(root, "deep", "er"), 0o755)
	os.Rename(filepath.Join(root, ".git"), filepath.Join(root, "deep", "er", "git"))
	write(t, root, map[string]string{".git/config": "[core]\n\tfsmonitor = ./pwn\n"})
	changes, err := snap.Restore()
	if !errors.Is(err, ErrNotRestored) || len(changes) == 0 || changes[0].Kind != Removed {
		t.Errorf("changes %v, err %v", changes, err)
	}
	if _, err := os.Lstat(filepath.Join(root, ".git", "config")); err == nil {
		t.Error("the model's configuration is still at .git")
	}
}

// A worktree's configuration and hooks are in the common directory,
// outside the workspace: they are watched there.
func TestRestoreWorktree(t *testing.T) {
	base := tree(t, map[string]string{
		"ws/.git":                         "gitdir: ../main/.git/worktrees/w\n",
		"main/.git/worktrees/w/HEAD":      "ref: refs/heads/w\n",
		"main/.git/worktrees/w/commondir": "../..\n",
		"main/.git/config":                "[core]\n",
		"main/.git/hooks/":                "",
	})
	root := filepath.Join(base, "ws")
	snap := Snap(root)
	write(t, base, map[string]string{"main/.git/config": "[core]\n\tfsmonitor = x\n", "main/.git/hooks/pre-commit": "id"})
	changes, err := snap.Restore()
	var got []string
	for _, c := range changes {
		got = append(got, c.String())
	}
	main := filepath.Join(base, "main", ".git")
	want := []string{main + "/config (changed)", main + "/hooks/pre-commit (created)"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("changes %q, err %v; want %q", got, err, want)
	}
	if b, _ := os.ReadFile(filepath.Join(main, "config")); string(b) != "[core]\n" {
		t.Errorf("config = %q", b)
	}
}

func BenchmarkSnapRestore(b *testing.B) {
	root := repo(b)
	for b.Loop() {
		if changes, err := Snap(root).Restore(); err != nil || len(changes) != 0 {
			b.Fatal(changes, err)
		}
	}
}

// What could not be looked at is left alone: a .git that cannot be seen
// at Snap is not taken for one a command made.
func TestRestoreLeavesTheUnknownAlone(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root sees through permissions")
	}
	base := tree(t, map[string]string{"ws/.git/config": "[core]\n"})
	root := filepath.Join(base, "ws")
	os.Chmod(root, 0o600) // no search: .git cannot be looked up
	snap := Snap(root)
	os.Chmod(root, 0o755)
	if changes, err := snap.Restore(); err != nil || len(changes) != 0 {
		t.Errorf("changes %v, err %v", changes, err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "config")); err != nil {
		t.Errorf("the repository is gone: %v", err)
	}
}

func TestRemotes(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	config := "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://example.com/a.git\n" +
		"  [Remote \"up-stream\"] # comment\n[remote\"glued\"]\n[remote \"a\\\"b\"]\n[remotes \"x\"]\n[remote \"origin\"]\n"
	if err := os.WriteFile(filepath.Join(root, ".git", "config"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	got := Find(real).Remotes()
	if want := []string{"origin", "up-stream"}; !slices.Equal(got, want) {
		t.Errorf("Remotes() = %q, want %q", got, want)
	}
	if got := Find(t.TempDir()).Remotes(); len(got) != 0 {
		t.Errorf("no repository: Remotes() = %q", got)
	}
}

// Join is filepath.Join for a clean folder and an entry's name, the root
// folder included.
func TestJoin(t *testing.T) {
	for _, dir := range []string{string(filepath.Separator), filepath.Join(string(filepath.Separator), "a"), filepath.Join(string(filepath.Separator), "a", "b")} {
		if got, want := Join(dir, "c.txt"), filepath.Join(dir, "c.txt"); got != want {
			t.Errorf("Join(%q, c.txt) = %q, want %q", dir, got, want)
		}
	}
}
