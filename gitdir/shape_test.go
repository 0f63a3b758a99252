package gitdir

import (
	"path/filepath"
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
