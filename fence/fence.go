// Package fence defines, once, the boundaries the harness protects: whether
// a path lies inside a folder, and what names a secret. Every package that
// keeps the model inside the workspace or away from secrets (tools, guard,
// sandbox, approve) asks here, so the rules cannot drift apart.
//
// It is pure code: it reads no file and resolves no symlink. A caller that
// must follow links resolves them first, then asks Within.
//
// Paths are compared as the system they belong to spells them (a System):
// on Linux as bytes, on macOS without case, since its file systems ignore
// case unless made otherwise, and on Windows without case, with its
// volumes, both separators, verbatim (\\?\) prefixes, streams and the
// trailing dots and spaces it drops. Names that hold secrets are matched
// without case on every system: stricter where case counts, and right
// where it does not.
package fence

import "strings"

// System is how a system spells and compares paths.
type System uint8

// The rules a System combines.
const (
	// FoldCase compares names without case, as macOS and Windows file
	// systems do by default.
	FoldCase System = 1 << iota
	// WindowsPaths reads paths as Windows does: a volume (C: or
	// \\server\share) must begin an absolute path, / and \ both separate
	// names, a verbatim prefix (\\?\, \\.\ or \??\) is taken off, a name
	// ends before a ':' that opens a stream (".env:x" is ".env"), and,
	// but for verbatim paths, the dots and spaces that end a name are
	// dropped (".git." is ".git").
	WindowsPaths
)

// The systems the harness runs on.
const (
	Unix    System = 0
	MacOS          = FoldCase
	Windows        = WindowsPaths | FoldCase
)

// Within reports whether path is root or lies inside it, as this system
// (Host) compares paths; see System.Within.
func Within(root, path string) bool { return Host.Within(root, path) }

// Within reports whether path is root or lies inside it. Both must be
// absolute: a relative path is inside nothing, and nothing is inside a
// relative root. The two are compared name by name after cleaning, so
// "/a/b/../c" is inside "/a" and "/a/b/../../c" is not, "/a/bc" is not
// inside "/a/b", and a trailing separator changes nothing. Symlinks are
// not resolved: a link inside root that points out of it is within, as
// text. Names are compared as bytes, or without case under FoldCase.
func (s System) Within(root, path string) bool {
	if s&WindowsPaths == 0 && strings.HasPrefix(root, "/") && strings.HasPrefix(path, "/") && !dotName(root) && !dotName(path) {
		// Their names are those split gives, read in place: no slice
		// for the walks of a workspace, which ask for every folder.
		i, j := 0, 0
		for {
			var rname, pname string
			if rname, i = nextName(root, i); rname == "" {
				return true
			}
			if pname, j = nextName(path, j); pname == "" || !s.same(rname, pname) {
				return false
			}
		}
	}
	rvol, rnames, ok := s.split(root)
	if !ok {
		return false
	}
	pvol, pnames, ok := s.split(path)
	if !ok || len(pnames) < len(rnames) || !s.same(rvol, pvol) {
		return false
	}
	for i, name := range rnames {
		if !s.same(name, pnames[i]) {
			return false
		}
	}
	return true
}

// nextName returns the first name of p from i on, a slash-separated
// path, and where the rest of p begins; "" when no name is left.
func nextName(p string, i int) (string, int) {
	for i < len(p) && p[i] == '/' {
		i++
	}
	j := i
	for j < len(p) && p[j] != '/' {
		j++
	}
	return p[i:j], j
}

// dotName reports whether p, a slash-separated path, holds a name "." or
// "..", which cleaning takes away.
func dotName(p string) bool {
	for i := 0; ; {
		var name string
		if name, i = nextName(p, i); name == "" {
			return false
		}
		if name == "." || name == ".." {
			return true
		}
	}
}

// same reports whether two names are the same name on s.
func (s System) same(a, b string) bool {
	if s&FoldCase != 0 {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// split returns the volume of an absolute path (empty but on Windows) and
// its names, cleaned: no empty names, no ".", and each ".." taking away
// the name before it (none at the root). ok is false for a path that is
// not absolute.
func (s System) split(p string) (volume string, names []string, ok bool) {
	verbatim := false
	if s&WindowsPaths != 0 {
		p = strings.ReplaceAll(p, "/", `\`)
		if volume, p, verbatim, ok = windowsVolume(p); !ok {
			return "", nil, false
		}
	}
	sep := "/"
	if s&WindowsPaths != 0 {
		sep = `\`
	}
	if !strings.HasPrefix(p, sep) {
		return "", nil, false
	}
	for _, name := range strings.Split(p, sep) {
		if s&WindowsPaths != 0 {
			if name, ok = windowsName(name, verbatim); !ok {
				return "", nil, false
			}
		}
		switch name {
		case "", ".":
		case "..":
			if len(names) > 0 {
				names = names[:len(names)-1]
			}
		default:
			names = append(names, name)
		}
	}
	return volume, names, true
}

// windowsVolume takes the volume off p, a Windows path with backslashes
// only, and returns it with the rest, which begins with a separator in an
// absolute path. Verbatim paths (\\?\C:\x, \\?\UNC\server\share\x) and
// device paths (\\.\C:\x) lose their prefix first. ok is false when p
// has no volume: a relative path, one rooted on the current drive (\x),
// or one relative to a drive's current folder (C:x).
func windowsVolume(p string) (volume, rest string, verbatim, ok bool) {
	for _, prefix := range []string{`\\?\`, `\??\`, `\\.\`} {
		if strings.HasPrefix(p, prefix) {
			p, verbatim = p[len(prefix):], prefix != `\\.\`
			if len(p) >= 4 && strings.EqualFold(p[:4], `UNC\`) {
				p = `\\` + p[4:]
			} else if !driveLetter(p) {
				// Another device or volume (Volume{GUID}, pipe): its first
				// name is the volume.
				name, after, _ := strings.Cut(p, `\`)
				if name == "" {
					return "", "", false, false
				}
				return name, `\` + after, verbatim, true
			}
			break
		}
	}
	switch {
	case driveLetter(p):
		return p[:2], p[2:], verbatim, true
	case strings.HasPrefix(p, `\\`):
		parts := strings.SplitN(p[2:], `\`, 3)
		if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
			return "", "", false, false
		}
		rest := `\`
		if len(parts) == 3 {
			rest += parts[2]
		}
		return `\\` + parts[0] + `\` + parts[1], rest, verbatim, true
	}
	return "", "", false, false
}

// driveLetter reports whether p begins with a drive, as "C:" does.
func driveLetter(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

// windowsName returns the name Windows opens for name: the part before a
// stream's ':', and, but in a verbatim path, without the dots and spaces
// that end it. ok is false for a name of dots and spaces alone, other
// than "." and "..", whose meaning is not worth guessing: a path holding
// one is inside nothing.
func windowsName(name string, verbatim bool) (string, bool) {
	name, _, _ = strings.Cut(name, ":")
	if verbatim || name == "." || name == ".." {
		return name, true
	}
	trimmed := strings.TrimRight(name, ". ")
	return trimmed, trimmed != "" || name == ""
}
