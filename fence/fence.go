// Package fence defines, once, the boundaries the harness protects: whether
// a path lies inside a folder, and what names a secret. Every package that
// keeps the model inside the workspace or away from secrets (tools, guard,
// sandbox, approve) asks here, so the rules cannot drift apart.
//
// It is pure code: it reads no file and resolves no symlink. A caller that
// must follow links resolves them first, then asks Within.
package fence

import (
	"path/filepath"
	"strings"
)

// Within reports whether path is root or lies inside it. Both must be
// absolute: a relative path is inside nothing, and nothing is inside a
// relative root. The two are compared as text after filepath.Clean, so
// "/a/b/../c" is inside "/a" and "/a/b/../../c" is not, "/a/bc" is not
// inside "/a/b", and a trailing separator changes nothing. Symlinks are
// not resolved: a link inside root that points out of it is within, as
// text. Bytes are compared as they are, so on a file system that ignores
// case, a path that differs from root only in case is not within it.
func Within(root, path string) bool {
	if !filepath.IsAbs(root) || !filepath.IsAbs(path) {
		return false
	}
	root, path = filepath.Clean(root), filepath.Clean(path)
	if !strings.HasPrefix(path, root) {
		return false
	}
	// The root itself, everything under a root that ends in a separator
	// (only "/" once cleaned), or a separator right after the root.
	return len(path) == len(root) || root[len(root)-1] == filepath.Separator || path[len(root)] == filepath.Separator
}
