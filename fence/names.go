package fence

import (
	"path"
	"slices"
	"strings"
)

// SecretPath reports whether p, a slash-separated path, names a secret by
// one of its names: whether any of them holds secrets (SecretName), as
// ".env", "config/.env.local" and "keys/id_rsa/x" do. It returns the
// pattern matched. The path need not exist: git keeps files in its
// history and index that are not in the working tree.
func SecretPath(p string) (pattern string, ok bool) {
	for _, seg := range strings.Split(p, "/") {
		if pat, ok := SecretName(seg); ok {
			return pat, true
		}
	}
	return "", false
}

// ordinaryNames are names that hold no secret, to tell a pattern that
// matches everything from one aimed at secrets.
var ordinaryNames = []string{"x", "main.go", "README.md", "Makefile"}

// SecretGlob reports whether pat, a pattern as path.Match reads it (git's
// pathspecs and shell globs are close enough), taken without case, is
// aimed at secrets: it
// matches a name that holds secrets (an example of each SecretName
// pattern, such as ".env", "x.pem" or "id_rsa") but not every ordinary
// name. A pattern that matches everything ("*") is not aimed at anything;
// whatever it selects, it selects with the rest. Only the last name of a
// slash-separated pat is tried; an invalid pattern matches nothing.
func SecretGlob(pat string) (pattern string, ok bool) {
	if i := strings.LastIndexByte(pat, '/'); i >= 0 {
		pat = pat[i+1:]
	}
	pat = foldCase(pat)
	all := true
	for _, name := range ordinaryNames {
		if m, _ := path.Match(pat, foldCase(name)); !m {
			all = false
			break
		}
	}
	if all {
		return "", false
	}
	for _, secret := range secretNames {
		for _, fill := range []string{"", "x", ".x"} {
			name := strings.ReplaceAll(secret, "*", fill)
			if m, _ := path.Match(pat, name); m {
				return secret, true
			}
		}
	}
	return "", false
}

// IgnoreFile reports whether rel, a slash-separated path from the top of
// a repository, is a file whose rules keep other files out of git, and so
// mark them as secret to the harness: a .gitignore in any folder, or
// .git/info/exclude, their names taken as SecretName takes names (in any
// case). Changing one can expose what it protected.
func IgnoreFile(rel string) bool {
	segs := strings.Split(path.Clean(strings.TrimPrefix(rel, "./")), "/")
	for i, seg := range segs {
		segs[i] = canonName(seg)
	}
	return segs[len(segs)-1] == ".gitignore" || slices.Equal(segs, []string{".git", "info", "exclude"})
}
