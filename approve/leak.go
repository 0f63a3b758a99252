package approve

import "regexp"

// leaks are the shapes of secrets in text, each with what it is called.
var leaks = []struct {
	what string
	re   *regexp.Regexp
}{
	{"a private key", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`)},
	{"an AWS access key", regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"a GitHub token", regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)},
	{"a GitLab token", regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`)},
	{"a Slack token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{"an API key", regexp.MustCompile(`\b(sk|rk)-(live-|test-|proj-|ant-)?[A-Za-z0-9_-]{20,}`)},
	{"a Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`)},
	{"a JSON web token", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`)},
	{"a password or token assignment", regexp.MustCompile(`(?i)\b[A-Z0-9_]*(PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY)[A-Z0-9_]*["']?\s*[:=]\s*["']?[^\s"'$<>{}]{8,}`)},
	{"a URL with a password", regexp.MustCompile(`[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]{3,}@`)},
}

// Leak returns what secret text seems to hold, such as "a private key", or
// "" when it holds none that Leak knows the shape of.
func Leak(text string) string {
	for _, l := range leaks {
		if l.re.MatchString(text) {
			return l.what
		}
	}
	return ""
}
