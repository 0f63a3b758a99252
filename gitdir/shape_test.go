package gitdir

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestPlanted(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		write string // relative to the root
		want  string // the folder found, relative to the root; "" for none
	}{
		{"HEAD beside objects", map[string]string{"docs/objects/info/packs": ""}, "docs/HEAD", "docs"},
		{"HEAD beside refs", map[string]string{"docs/refs/heads/x": ""}, "docs/HEAD", "docs"},
		{"HEAD beside commondir", map[string]string{"docs/commondir": "../.git\n"}, "docs/HEAD", "docs"},
		{"objects beside HEAD", map[string]string{"HEAD": "ref: refs/heads/main\n"}, "objects/info/packs", "."},
		{"refs beside HEAD", map[string]string{"docs/HEAD": "ref: refs/heads/main\n"}, "docs/refs/heads/x", "docs"},
		{"into a shaped folder", map[string]string{"d/HEAD": "", "d/refs/": ""}, "d/config", "d"},
		{"deep into a shaped folder", map[string]string{"d/HEAD": "", "d/objects/": ""}, "d/hooks/pre-commit", "d"},
		{"case", map[string]string{"d/HEAD": ""}, "d/Objects/x", "d"},
		{"HEAD alone", nil, "docs/HEAD", ""},
		{"refs alone", map[string]string{"docs/objects/": ""}, "docs/refs/x", ""},
		{"a config alone", nil, "config", ""},
		{"beside, not in", map[string]string{"d/HEAD": "", "d/refs/": ""}, "e/config", ""},
		{"ordinary", map[string]string{"src/main.go": ""}, "src/util.go", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, tt.files)
			dir, ok := Planted(root, filepath.Join(root, filepath.FromSlash(tt.write)))
			got := ""
			if ok {
				rel, err := filepath.Rel(root, dir)
				if err != nil {
					t.Fatal(err)
				}
				got = filepath.ToSlash(rel)
			}
			if got != tt.want {
				t.Errorf("Planted(%s) = %q, want %q", tt.write, got, tt.want)
			}
		})
	}
}

func TestPlantedOutside(t *testing.T) {
	root := tree(t, map[string]string{"ws/": "", "HEAD": "", "refs/": ""})
	if dir, ok := Planted(filepath.Join(root, "ws"), filepath.Join(root, "x")); ok {
		t.Errorf("Planted of a path outside the root = %q", dir)
	}
}

// A command that gives a folder the shape of a git directory, or a .git,
// has what it added taken out; a folder that was a repository before is
// left as it is.
func TestRestoreTakesOutAPlantedRepository(t *testing.T) {
	root := tree(t, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n", ".git/objects/": "", ".git/refs/": "",
		"docs/objects/info/packs": "",
		"fixture/HEAD":            "ref: refs/heads/main\n", "fixture/refs/": "",
		"kept/.git/HEAD": "ref: refs/heads/main\n",
	})
	s := Snap(root)
	write(t, root, map[string]string{
		"docs/HEAD":        "ref: refs/heads/main\n",
		"docs/refs/heads/": "",
		"docs/config":      "[core]\n\tfsmonitor = id\n",
		"a/b/HEAD":         "ref: refs/heads/main\n",
		"a/b/commondir":    "../../.git\n",
		"fixture/objects/": "",
		"other/HEAD":       "",
		"nested/.git/HEAD": "ref: refs/heads/main\n",
		"pointer/.git":     "gitdir: ../docs\n",
		"kept/.git/":       "",
	})
	got := restored(t, s)
	want := []string{"a/b/HEAD (made a repository)", "a/b/commondir (made a repository)", "docs/HEAD (made a repository)", "docs/refs (made a repository)",
		"nested/.git (made a repository)", "pointer/.git (made a repository)"}
	if !slices.Equal(got, want) {
		t.Errorf("changes = %q, want %q", got, want)
	}
	for _, p := range []string{"docs/HEAD", "docs/refs", "a/b/HEAD", "a/b/commondir", "nested/.git", "pointer/.git"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	for _, p := range []string{"docs/objects/info/packs", "docs/config", "fixture/HEAD", "fixture/objects", "other/HEAD", ".git/HEAD", "kept/.git/HEAD"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err != nil {
			t.Errorf("%s was taken out: %v", p, err)
		}
	}
}

// A path under a file is no shape: the write fails for what it is.
func TestPlantedUnderAFile(t *testing.T) {
	root := tree(t, map[string]string{"a": "x"})
	if dir, ok := Planted(root, filepath.Join(root, "a", "HEAD")); ok {
		t.Errorf("Planted(a/HEAD) under a file = %q", dir)
	}
}

// restored restores s and returns its changes as they read.
func restored(t *testing.T, s *Snapshot) []string {
	t.Helper()
	changes, err := s.Restore()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.String())
	}
	return got
}
