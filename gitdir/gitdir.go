// Package gitdir finds where a workspace's repository keeps what git runs
// and trusts: the git directory, wherever .git points (a folder, a link,
// or a file "gitdir: PATH" as worktrees, submodules and
// git init --separate-git-dir leave), and the common directory that a
// "commondir" file in it names. Its configuration and hooks decide what
// git runs the next time anyone uses it, outside any sandbox, so nothing
// the model does may change them. The file tools, the command guard and
// the sandbox all ask Find, so "is the git directory" is decided once, by
// what the folder is rather than by its name, and follows the pointer
// when it moves.
//
// Snap and Restore watch the same places across a command: what changed
// is put back and named.
package gitdir

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"harness/fence"
)

// maxPointer bounds how much of a .git or commondir file is read: git
// writes one line.
const maxPointer = 4096

// Layout is where a repository keeps its own files, seen from a workspace
// root. Every path is absolute and clean; Git and Common have their
// symlinks resolved as far as they exist.
type Layout struct {
	// Dot is the root's .git: the folder, or the file or link that says
	// where the git directory is, or where one would be made.
	Dot string
	// Git is the git directory, or "" when there is none. A .git file may
	// name one that does not exist yet: it is still the place to protect,
	// since whatever is made there becomes the repository.
	Git string
	// Common is the common directory, where configuration, hooks and
	// objects live: Git, unless Git holds a commondir file.
	Common string
}

// Find returns the layout of the repository whose .git is in root, an
// absolute folder with its symlinks resolved. It reads at most a few
// small files and never fails: what cannot be read is not there.
func Find(root string) Layout {
	dot := filepath.Join(root, ".git")
	l := Layout{Dot: dot}
	fi, err := os.Lstat(dot)
	if err != nil {
		return l
	}
	switch {
	case fi.Mode().IsRegular():
		target, ok := pointer(dot, "gitdir: ")
		if !ok {
			return l // git refuses such a .git; nothing lies behind it
		}
		l.Git = resolve(root, target)
	default: // a folder, or a link to one
		l.Git = resolve(root, dot)
	}
	l.Common = l.Git
	if target, ok := pointer(filepath.Join(l.Git, "commondir"), ""); ok {
		l.Common = resolve(l.Git, target)
	}
	return l
}

// pointer reads the path that the one-line file at path gives after
// prefix, as git does: the line's end and trailing white space are not
// part of it.
func pointer(path, prefix string) (string, bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxPointer))
	if err != nil {
		return "", false
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	rest, ok := bytes.CutPrefix(bytes.TrimRight(line, " \t\r"), []byte(prefix))
	if !ok || len(rest) == 0 {
		return "", false
	}
	return string(rest), true
}

// resolve returns p, taken from dir when relative, with its symlinks
// resolved, or cleaned when it does not exist.
func resolve(dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return filepath.Clean(p)
}

// Holds reports whether abs, an absolute path with its symlinks resolved,
// is .git, the git directory, the common directory, or lies in one of
// them.
func (l Layout) Holds(abs string) bool {
	for _, p := range [...]string{l.Dot, l.Git, l.Common} {
		if p != "" && fence.Within(p, abs) {
			return true
		}
	}
	return false
}

// Paths returns Dot, Git and Common, each once, leaving out those that are
// empty.
func (l Layout) Paths() []string {
	var out []string
	for _, p := range []string{l.Dot, l.Git, l.Common} {
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Configs returns the configuration files of the repository that exist:
// the common directory's config, and the git directory's own config and
// config.worktree.
func (l Layout) Configs() []string {
	var out []string
	for _, p := range []string{filepath.Join(l.Common, "config"), filepath.Join(l.Git, "config"), filepath.Join(l.Git, "config.worktree")} {
		if l.Git == "" || slices.Contains(out, p) {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

// maxConfig bounds how much of a configuration file Remotes reads.
const maxConfig = 1 << 20

// Remotes returns the names of the remotes the repository's configuration
// files define, as [remote "NAME"] sections, sorted and each once. It reads
// the files as text, without running git, and follows no include: a remote
// defined only through one is not listed, which leaves it unknown rather
// than letting an unknown one pass.
func (l Layout) Remotes() []string {
	var out []string
	for _, p := range l.Configs() {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(f, maxConfig))
		f.Close()
		if err != nil {
			continue
		}
		for line := range bytes.Lines(data) {
			if name, ok := remoteSection(string(line)); ok && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// remoteSection returns NAME when line opens a [remote "NAME"] section.
// Git takes the subsection's name as written, but for the escapes \" and
// \\; a name that holds one is not returned.
func remoteSection(line string) (string, bool) {
	s := strings.TrimSpace(line)
	s, ok := strings.CutPrefix(s, "[")
	if !ok {
		return "", false
	}
	head, rest, ok := strings.Cut(s, "\"")
	if !ok || !strings.EqualFold(strings.TrimRight(head, " \t"), "remote") || len(head) == len("remote") {
		return "", false
	}
	name, tail, ok := strings.Cut(rest, "\"")
	if !ok || name == "" || strings.Contains(name, "\\") || !strings.HasPrefix(strings.TrimSpace(tail), "]") {
		return "", false
	}
	return name, true
}
