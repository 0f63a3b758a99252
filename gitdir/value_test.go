package gitdir

import "testing"

func TestValue(t *testing.T) {
	for _, tt := range []struct {
		config, want string
		found        bool
	}{
		{"[core]\n\texcludesFile = ~/.gitignore_global\n", "~/.gitignore_global", true},
		{"[Core]\n\tEXCLUDESFILE=/etc/ignore # the team's\n", "/etc/ignore", true},
		{"[core]\n\texcludesfile = \"/a b/#x\" ; note\n", "/a b/#x", true},
		{"[core]\n\texcludesfile = /one\n[user]\n\tname = x\n[core]\n\texcludesfile = /two\n", "/two", true},
		{"[core \"x\"]\n\texcludesfile = /one\n", "", false},
		{"[user]\n\texcludesfile = /one\n", "", false},
		{"[core] excludesfile = /inline\n", "/inline", true},
		{"[core]\n\t# excludesfile = /commented\n", "", false},
		{"", "", false},
	} {
		got, found := Value(tt.config, "core", "excludesfile")
		if got != tt.want || found != tt.found {
			t.Errorf("Value(%q) = %q, %v; want %q, %v", tt.config, got, found, tt.want, tt.found)
		}
	}
}
