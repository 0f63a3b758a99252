package tools

import (
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

// unifiedCases are pairs of texts whose diffs have the shapes that matter:
// hunks that merge or stay apart by their gap, changes at either end,
// missing final newlines, files made empty or from nothing.
var unifiedCases = [][2]string{
	{"a\nb\nc\n", "a\nB\nc\n"},
	{"", "new\n"},
	{"old\n", ""},
	{"a\nb", "a\nc"},
	{"a\nb\n", "a\nb"},
	{"a", "a\nb"},
	{"x\n", "x\ny\n"},
	{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n", "1\nTWO\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\nFIFTEEN\n16\n"},
	{"1\n2\n3\n4\n5\n6\n7\n8\n9\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"},
	{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\nX\n4\n5\n6\n7\n8\n9\nY\n"},
	{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n", "1\n2\nX\n4\n5\n6\n7\n8\n9\n10\nY\n"},
	{"a\na\na\nb\na\na\n", "a\nb\na\nb\na\n"},
	{"héllo\nwörld\n", "héllo\nwörld!\n"},
	{"\n\n\n", "\n"},
	{"one line without newline", "another"},
}

// The diff the tools show is go-udiff's Unified, hunk for hunk.
func TestUnifiedAsUdiff(t *testing.T) {
	for _, c := range unifiedCases {
		if got, want := unified("a/f", "b/f", c[0], c[1]), udiff.Unified("a/f", "b/f", c[0], c[1]); got != want {
			t.Errorf("unified(%q, %q) =\n%s\nwant\n%s", c[0], c[1], got, want)
		}
	}
}

// FuzzUnified holds unified to go-udiff's Unified on texts of lines from a
// small set, where lines repeat and hunks meet, as in source files.
func FuzzUnified(f *testing.F) {
	for _, c := range unifiedCases {
		f.Add(c[0], c[1])
	}
	f.Add("abcabcabc", "bcaacbbca")
	f.Fuzz(func(t *testing.T, x, y string) {
		for _, pair := range [][2]string{{x, y}, {linesOf(x), linesOf(y)}} {
			a, b := pair[0], pair[1]
			if got, want := unified("a/f", "b/f", a, b), udiff.Unified("a/f", "b/f", a, b); got != want {
				t.Fatalf("unified(%q, %q) =\n%s\nwant\n%s", a, b, got, want)
			}
		}
	})
}

// linesOf makes a line of each byte of s, from a few distinct lines, so
// that a short input is a file of many lines that often match.
func linesOf(s string) string {
	var b strings.Builder
	for i := range len(s) {
		switch c := s[i] % 8; c {
		case 7:
			b.WriteString("\n") // an empty line
		case 6:
			if i == len(s)-1 {
				b.WriteString("last") // no final newline
			}
		default:
			b.WriteString(string(rune('a' + c)))
			b.WriteString("\n")
		}
	}
	return b.String()
}
