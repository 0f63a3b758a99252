package approve

import (
	"regexp"
	"strings"
	"sync"
)

// leak is the shape of one kind of secret. Every match contains one of
// hints (compared without case when fold is set), so text without any is
// passed over before the regular expression runs: most output holds no
// secret, and the hints make checking it nearly free.
type leak struct {
	what  string
	hints []string
	fold  bool
	re    func() *regexp.Regexp
}

// compile returns expr compiled when it is first needed. Most output holds
// none of the hints, so most runs need few of the expressions or none, and
// compiling them all before main was the largest part of the harness's
// package initialization.
func compile(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// leaks are the shapes of secrets in text.
var leaks = []leak{
	{"a private key", []string{"-----BEGIN "}, false, compile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`)},
	{"an AWS access key", []string{"AKIA", "ASIA"}, false, compile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"a GitHub token", []string{"gh", "github_pat_"}, false, compile(`\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)},
	{"a GitLab token", []string{"glpat-"}, false, compile(`\bglpat-[A-Za-z0-9_-]{20,}`)},
	{"a Slack token", []string{"xox"}, false, compile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{"an API key", []string{"sk-", "rk-"}, false, compile(`\b(sk|rk)-(live-|test-|proj-|ant-)?[A-Za-z0-9_-]{20,}`)},
	{"a Google API key", []string{"AIza"}, false, compile(`\bAIza[0-9A-Za-z_-]{35}\b`)},
	{"a JSON web token", []string{"eyJ"}, false, compile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`)},
	{"a password or token assignment", []string{"password", "passwd", "secret", "token", "key"}, true,
		compile(`(?i)\b[A-Z0-9_]*(PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY)[A-Z0-9_]*["']?\s*[:=]\s*["']?[^\s"'$<>{}]{8,}`)},
	{"a URL with a password", []string{"://"}, false, compile(`[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]{3,}@`)},
}

// Leak returns what secret text seems to hold, such as "a private key", or
// "" when it holds none that Leak knows the shape of.
func Leak(text string) string {
	lower := ""
	for _, l := range leaks {
		in := text
		if l.fold {
			if lower == "" {
				lower = strings.ToLower(text)
			}
			in = lower
		}
		if containsAny(in, l.hints) && l.re().MatchString(text) {
			return l.what
		}
	}
	return ""
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
