package gitdir

import (
	"slices"
	"strings"

	"harness/fence"
)

// removed replaces a line of configuration that held a credential.
const removed = "\t# (a line holding a credential is not shown here)"

// Redact returns a git configuration file's text without the credentials
// it may hold, and whether it took any out: the user name and password of
// every URL (fence.StripUserinfo), and each variable whose name marks a
// secret (fence.SecretVar, as in a password or token key) or is one of
// git's credentials (http.extraHeader, sendemail.smtpPass), or whose line
// still looks like it holds a key or token (fence.Leak).
// Lines continued with a backslash count as one. What remains is a
// configuration git reads the same way, credentials aside.
func Redact(config string) (string, bool) {
	lines := strings.SplitAfter(config, "\n")
	var b strings.Builder
	changed := false
	for i := 0; i < len(lines); i++ {
		// One logical line: continued while a line ends in an odd
		// number of backslashes.
		j := i
		for j < len(lines)-1 && continued(lines[j]) {
			j++
		}
		logical := strings.Join(lines[i:j+1], "")
		i = j
		out := fence.StripUserinfo(logical)
		if secretKey(out) || fence.Leak(out) != "" {
			out = removed
			if strings.HasSuffix(logical, "\n") {
				out += "\n"
			}
		}
		if out != logical {
			changed = true
		}
		b.WriteString(out)
	}
	return b.String(), changed
}

// continued reports whether line ends in a backslash that escapes the
// line's end.
func continued(line string) bool {
	line = strings.TrimRight(line, "\r\n")
	n := len(line) - len(strings.TrimRight(line, `\`))
	return n%2 == 1
}

// secretKey reports whether line sets a variable whose name marks a
// credential.
func secretKey(line string) bool {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "[") { // a variable may follow its section
		_, t, _ = strings.Cut(t, "]")
		t = strings.TrimSpace(t)
	}
	if t == "" || t[0] == '#' || t[0] == ';' {
		return false
	}
	name, _, _ := strings.Cut(t, "=")
	name = strings.TrimSpace(name)
	return fence.SecretVar(name) || slices.Contains(gitCredentials, strings.ToLower(name))
}

// gitCredentials are the variables of git's own that hold credentials
// under names fence.SecretVar does not flag, lower case: http.extraHeader
// carries authorization, sendemail.smtpPass a password.
var gitCredentials = []string{"extraheader", "smtppass"}
