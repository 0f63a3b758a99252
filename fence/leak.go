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
	// needs, when not empty, holds bytes one of which every match holds:
	// text without any is passed over before its hints are looked for.
	needs string
}

// leaks are the shapes of secrets in text, made when first needed: a run
// that checks no text (harness --version) never makes them.
var leaks = sync.OnceValue(func() []leak {
	return []leak{
		{"a private key", []string{"-----BEGIN "}, false, re(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`), ""},
		{"an AWS access key", []string{"AKIA", "ASIA"}, false, re(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`), ""},
		{"a GitHub token", []string{"gh", "github_pat_"}, false, re(`\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`), ""},
		{"a GitLab token", []string{"glpat-"}, false, re(`\bglpat-[A-Za-z0-9_-]{20,}`), ""},
		{"a Slack token", []string{"xox"}, false, re(`\bxox[abposr]-[A-Za-z0-9-]{10,}`), ""},
		{"an API key", []string{"sk-", "rk-"}, false, re(`\b(sk|rk)-(live-|test-|proj-|ant-)?[A-Za-z0-9_-]{20,}`), ""},
		{"a Google API key", []string{"AIza"}, false, re(`\bAIza[0-9A-Za-z_-]{35}\b`), ""},
		{"a JSON web token", []string{"eyJ"}, false, re(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`), ""},
		{"a password or token assignment", assignHints, true, assignment(secretWords), ":="},
		{"a URL with a password", []string{"://"}, false, func(s string) bool { _, password := URLUserinfo(s); return password }, ""},
	}
})

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

// LeakBytes is Leak of text held as bytes, checked where it lies: it is
// copied into a string only for a shape whose hints it holds.
func LeakBytes(text []byte) string { return leakIn(text) }

// leakIn is Leak of text held as a string or as bytes, so that a reader's
// buffer is checked where it lies: the text is copied into a string only
// for a shape whose hints it holds.
func leakIn[T string | []byte](text T) string {
	var without uint64 // the leaks text cannot hold: it has none of what they need
	for i, l := range leaks() {
		if l.needs != "" && !holdsAny(text, l.needs) {
			without |= 1 << i
		}
	}
	found := hinted(text, without)
	for i, l := range leaks() {
		if found&(1<<i) != 0 && l.match(string(text)) {
			return l.what
		}
	}
	return ""
}

// anchor is one hint of leaks[leak], looked for through the byte at off
// in it.
type anchor struct {
	leak int
	hint string // lower case when fold is set
	off  int
	fold bool
}

// anchorBytes are the bytes hints are looked for through, where a hint
// has one: few bytes, each looked for once in the whole text, find every
// hint (the fold hints through e and a, in both cases). A hint without one
// is looked for through its first byte.
const anchorBytes = "-:AaEegx"

// anchored is the hints found through one byte.
type anchored struct {
	c     byte
	as    []anchor
	leaks uint64 // of the hints
}

// anchors lists, for each byte looked for, the hints found through it.
var anchors = sync.OnceValue(func() []anchored {
	at := map[byte][]anchor{}
	add := func(a anchor) {
		c := a.hint[a.off]
		if !a.fold {
			at[c] = append(at[c], a)
			return
		}
		for _, c := range []byte{c, upper(c)} {
			at[c] = append(at[c], a)
		}
	}
	for i, l := range leaks() {
		for _, h := range l.hints {
			off := max(strings.IndexAny(h, anchorBytes), 0)
			add(anchor{i, h, off, l.fold})
		}
		if l.fold {
			// (?i) lets K (the Kelvin sign) stand for k, and ſ (long s)
			// for s, in a name the expression matches: text with either
			// is checked as if it held a hint.
			add(anchor{i, "\u212a", 0, false})
			add(anchor{i, "\u017f", 0, false})
		}
	}
	var out []anchored
	for c, as := range at {
		set := anchored{c: c, as: as}
		for _, a := range as {
			set.leaks |= 1 << a.leak
		}
		out = append(out, set)
	}
	return out
})

// upper is the upper case of the ASCII letter c, or c.
func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// hinted returns the set of leaks (bit i for leaks[i]) one of whose hints
// text holds, of those not in the set without. It looks for each byte of
// anchors once, and no longer once the hints found through it are all
// found.
func hinted[T string | []byte](text T, without uint64) uint64 {
	var found uint64
	var kept [16]anchor
	for _, set := range anchors() {
		want := set.leaks &^ without
		if want == 0 {
			continue
		}
		as := set.as
		if set.leaks&without != 0 { // only the hints of the leaks looked for
			as = kept[:0]
			for _, a := range set.as {
				if without&(1<<a.leak) == 0 {
					as = append(as, a)
				}
			}
		}
		for from := 0; found&want != want; {
			i := indexByte(text[from:], set.c)
			if i < 0 {
				break
			}
			at := from + i
			for _, a := range as {
				if found&(1<<a.leak) == 0 && at >= a.off && hasHint(text[at-a.off:], a.hint, a.fold) {
					found |= 1 << a.leak
				}
			}
			from = at + 1
		}
	}
	return found
}

// holdsAny reports whether text holds one of the bytes of set.
func holdsAny[T string | []byte](text T, set string) bool {
	for i := 0; i < len(set); i++ {
		if indexByte(text, set[i]) >= 0 {
			return true
		}
	}
	return false
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

// hasHint reports whether text starts with hint, in any case of its ASCII
// letters when fold is set (hint is then lower case).
func hasHint[T string | []byte](text T, hint string, fold bool) bool {
	if len(text) < len(hint) {
		return false
	}
	for i := 0; i < len(hint); i++ {
		c := text[i]
		if fold && 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != hint[i] {
			return false
		}
	}
	return true
}
