package approve_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"harness/approve"
)

func TestVisible(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\n\twith a tab", "plain text\n\twith a tab"},
		{"héllo, 世界", "héllo, 世界"},
		{"\x1b[2Jcleared", `\u001b[2Jcleared`},
		{"\x1b]52;c;cHduZWQ=\x07", `\u001b]52;c;cHduZWQ=\u0007`},
		{"title\x1b]0;PWNED\a", `title\u001b]0;PWNED\u0007`},
		{"back\rspace\x7f", `back\u000dspace\u007f`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bidi \u202egnp.exe", `bidi \u202egnp.exe`},
		{"not utf-8 \xff here", "not utf-8 \ufffd here"},
	}
	for _, tt := range tests {
		if got := approve.Visible(tt.in); got != tt.want {
			t.Errorf("Visible(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Whatever goes in, nothing a terminal acts on comes out, and text with
// nothing to escape comes out as it went in.
func FuzzVisible(f *testing.F) {
	for _, s := range []string{"", "plain\n", "\x1b[31mred", "\u202e\xff\u0085", "é\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := approve.Visible(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Visible(%q) = %q is not UTF-8", s, got)
		}
		clean := true
		for _, r := range got {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f {
				t.Fatalf("Visible(%q) = %q holds %U", s, got, r)
			}
		}
		for _, r := range s {
			if r == utf8.RuneError || r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 || strings.ContainsRune("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f", r) {
				clean = false
			}
		}
		if clean && got != s {
			t.Fatalf("Visible(%q) = %q changed text with nothing to escape", s, got)
		}
	})
}
