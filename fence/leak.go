package fence

import (
	"bytes"
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
func Leak(text string) string { return leakIn(text) }

// leakIn is Leak of text held as a string or as bytes, so that a reader's
// buffer is checked where it lies: the text is copied into a string only
// for a shape whose hints it holds.
func leakIn[T string | []byte](text T) string {
	folds := -1 // whether text has a rune whose case folds to ASCII; -1 before it is asked
	for _, l := range leaks {
		hinted := false
		for _, h := range l.hints {
			if l.fold {
				hinted = indexFold(text, h) >= 0
			} else {
				hinted = index(text, h) >= 0
			}
			if hinted {
				break
			}
		}
		if !hinted && l.fold {
			// (?i) lets K (the Kelvin sign) stand for k, and ſ (long s)
			// for s, in a name the expression matches; text with either
			// is checked as if it held a hint.
			if folds < 0 {
				folds = 0
				if index(text, "\u212a") >= 0 || index(text, "\u017f") >= 0 {
					folds = 1
				}
			}
			hinted = folds == 1
		}
		if hinted && l.match(string(text)) {
			return l.what
		}
	}
	return ""
}

// index is strings.Index or bytes.Index, as text is held.
func index[T string | []byte](text T, sub string) int {
	switch t := any(text).(type) {
	case string:
		return strings.Index(t, sub)
	case []byte:
		return bytes.Index(t, []byte(sub))
	}
	return -1
}

// indexByte is strings.IndexByte or bytes.IndexByte, as text is held.
func indexByte[T string | []byte](text T, c byte) int {
	switch t := any(text).(type) {
	case string:
		return strings.IndexByte(t, c)
	case []byte:
		return bytes.IndexByte(t, c)
	}
	return -1
}

// indexFold returns the index of the first place text holds lower, a
// lower-case ASCII word, in any case of its ASCII letters, or -1. It
// makes no lower-case copy of text: it looks for each case of lower's
// first letter, then compares the rest in place.
func indexFold[T string | []byte](text T, lower string) int {
	first := -1
	for _, c := range caseOf(lower[0]) {
		for from := 0; ; {
			i := indexByte(text[from:], c)
			if i < 0 {
				break
			}
			at := from + i
			if first >= 0 && at >= first {
				break
			}
			if equalFoldASCII(text[at+1:], lower[1:]) {
				first = at
				break
			}
			from = at + 1
		}
	}
	return first
}

// caseOf returns the cases of the ASCII byte c: both for a letter, c
// alone for anything else.
func caseOf(c byte) []byte {
	switch {
	case 'a' <= c && c <= 'z':
		return []byte{c, c - 'a' + 'A'}
	case 'A' <= c && c <= 'Z':
		return []byte{c - 'A' + 'a', c}
	}
	return []byte{c}
}

// equalFoldASCII reports whether text starts with lower, a lower-case
// ASCII word, in any case of its letters.
func equalFoldASCII[T string | []byte](text T, lower string) bool {
	if len(text) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		c := text[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
