package fence

import (
	"regexp"
	"strings"
	"sync"
)

// leak is the shape of one kind of secret. Every match contains one of
// hints (compared without case when fold is set), so text without any is
// passed over before match runs: most text holds no secret, and the hints
// make checking it nearly free.
type leak struct {
	what  string
	hints []string
	fold  bool
	match func(string) bool
}

// leaks are the shapes of secrets in text.
var leaks = []leak{
	{"a private key", []string{"-----BEGIN "}, false, re(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`)},
	{"an AWS access key", []string{"AKIA", "ASIA"}, false, re(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"a GitHub token", []string{"gh", "github_pat_"}, false, re(`\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)},
	{"a GitLab token", []string{"glpat-"}, false, re(`\bglpat-[A-Za-z0-9_-]{20,}`)},
	{"a Slack token", []string{"xox"}, false, re(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{"an API key", []string{"sk-", "rk-"}, false, re(`\b(sk|rk)-(live-|test-|proj-|ant-)?[A-Za-z0-9_-]{20,}`)},
	{"a Google API key", []string{"AIza"}, false, re(`\bAIza[0-9A-Za-z_-]{35}\b`)},
	{"a JSON web token", []string{"eyJ"}, false, re(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`)},
	{"a password or token assignment", assignHints, true, assignment(secretWords)},
	{"a URL with a password", []string{"://"}, false, func(s string) bool { _, password := URLUserinfo(s); return password }},
}

// assignHints are in every word of secretWords, lower case, and so in
// every assignment; fewer and shorter than the words, they check text
// faster.
var assignHints = []string{"passw", "secret", "token", "credential", "auth", "cookie", "session", "key"}

// assignment matches a value of eight characters or more given to a name
// that holds one of words, as in DB_PASSWORD=hunter2hunter2 or
// "api_key": "0123456789abcdef"; a value that is a variable or a template
// ($TOKEN, {{ .Token }}) is not one.
func assignment(words []string) func(string) bool {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = regexp.QuoteMeta(w)
	}
	return re(`(?i)\b[A-Z0-9_]*(` + strings.Join(quoted, "|") + `)[A-Z0-9_]*["']?\s*[:=]\s*["']?[^\s"'$<>{}]{8,}`)
}

// re returns a matcher of expr, compiled when it is first needed: most text
// holds none of the hints, so most runs need few of the expressions or
// none, and compiling them all before main was the largest part of the
// harness's package initialization.
func re(expr string) func(string) bool {
	compiled := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
	return func(s string) bool { return compiled().MatchString(s) }
}

// Leak returns what secret text seems to hold, such as "a private key", or
// "" when it holds none whose shape Leak knows: private keys, access
// tokens of well-known services, JSON web tokens, a value of eight
// characters or more assigned to a name SecretVar would flag
// (DB_PASSWORD=hunter2hunter2), and URLs with a password.
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
		if containsAny(in, l.hints) && l.match(text) {
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
