package repl

import (
	"slices"
	"strings"
	"testing"
)

func TestTags(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"no tags", nil},
		{"@a.go", []string{"a.go"}},
		{"see @a.go and @b/c.md.", []string{"a.go", "b/c.md."}},
		{"mail ada@example.com", nil},
		{"@property\ndef f(): @x", []string{"property", "x"}},
		{"twice @a @a", []string{"a"}},
		{"a lone @ sign", nil},
		{"tab\t@t", []string{"t"}},
	}
	for _, tt := range tests {
		if got := tags(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("tags(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzTags: every tag found is a word of the input that starts with @.
func FuzzTags(f *testing.F) {
	for _, s := range []string{"@a.go", "x@y @z", "@@", "@ \n@b\t@c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tag := range tags(s) {
			if tag == "" || !slices.Contains(strings.Fields(s), "@"+tag) {
				t.Errorf("tags(%q) gave %q, which is no word of it", s, tag)
			}
		}
	})
}

func TestSplitLine(t *testing.T) {
	tests := []struct {
		in   string
		path string
		line int
	}{
		{"a.go", "a.go", 0},
		{"a.go:12", "a.go", 12},
		{"src/a.go:1", "src/a.go", 1},
		{"a.go:0", "a.go:0", 0},
		{"a.go:-3", "a.go:-3", 0},
		{"a.go:+3", "a.go:+3", 0},
		{"a.go:x", "a.go:x", 0},
		{":12", ":12", 0},
		{"a:b:7", "a:b", 7},
	}
	for _, tt := range tests {
		if path, line := splitLine(tt.in); path != tt.path || line != tt.line {
			t.Errorf("splitLine(%q) = %q, %d; want %q, %d", tt.in, path, line, tt.path, tt.line)
		}
	}
}
