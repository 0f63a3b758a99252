package gitdir

import (
	"strings"
	"testing"

	"harness/fence"
)

func TestRedact(t *testing.T) {
	tests := []struct {
		in, want string
		changed  bool
	}{
		{"[remote \"origin\"]\n\turl = https://user:hunter2@example.com/repo\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
			"[remote \"origin\"]\n\turl = https://example.com/repo\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n", true},
		{"[url \"https://x-access-token:ghp_abc@github.com/\"]\n\tinsteadOf = https://github.com/\n",
			"[url \"https://github.com/\"]\n\tinsteadOf = https://github.com/\n", true},
		{"[http]\n\textraHeader = AUTHORIZATION: bearer abc\n", "[http]\n" + removed + "\n", true},
		{"[http] extraheader = AUTHORIZATION: basic abc\n", removed + "\n", true},
		{"[sendemail]\n\tsmtpPass = hunter2\n", "[sendemail]\n" + removed + "\n", true},
		{"[github]\n\ttoken = \\\n\tabc\n[core]\n\tbare = false\n", "[github]\n" + removed + "\n[core]\n\tbare = false\n", true},
		{"[x]\n\ty = glpat-abcdefghij0123456789\n", "[x]\n" + removed + "\n", true},
		{"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n[remote \"origin\"]\n\turl = git@github.com:o/r.git\n", "", false},
		{"[core]\n\tpath = a\\\\\n\tbare = true", "", false}, // an even number of backslashes ends the line
	}
	for _, tt := range tests {
		got, changed := Redact(tt.in)
		want := tt.want
		if !tt.changed {
			want = tt.in
		}
		if got != want || changed != tt.changed {
			t.Errorf("Redact(%q) = %q, %v; want %q, %v", tt.in, got, changed, want, tt.changed)
		}
	}
}

// FuzzRedact: no line of what Redact returns holds a URL with user
// information or the shape of a secret, and a configuration without
// either comes back as it was.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"[remote \"o\"]\n\turl = https://u:p@h/r\n",
		"[http]\n\textraheader = Authorization: x\\\n y\n",
		"[core]\n\tbare = false\n",
		"token = abcdefgh12\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, changed := Redact(in)
		if !changed && out != in {
			t.Fatalf("Redact(%q) changed the text but says it did not", in)
		}
		for _, line := range strings.Split(out, "\n") {
			if user, _ := fence.URLUserinfo(line); user {
				t.Fatalf("Redact(%q) left user information in %q", in, line)
			}
			if what := fence.Leak(line); what != "" {
				t.Fatalf("Redact(%q) left %s in %q", in, what, line)
			}
		}
	})
}
