package view

import (
	"strings"
	"testing"
)

func TestDiffText(t *testing.T) {
	diff := "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new\x1b[2J\n same\n"
	if got, want := Style(false).Diff(diff), "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new\\u001b[2J\n same\n"; got != want {
		t.Errorf("plain:\n%q\nwant\n%q", got, want)
	}
	got := Style(true).Diff(diff)
	for _, want := range []string{"\x1b[1m--- a/f\x1b[0m\n", "\x1b[36m@@ -1 +1 @@\x1b[0m\n", "\x1b[31m-old\x1b[0m\n", "\x1b[32m+new\\u001b[2J\x1b[0m\n", "\n same\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("coloured diff %q lacks %q", got, want)
		}
	}
}
