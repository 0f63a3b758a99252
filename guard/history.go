package guard

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/pattern"
)

// everything is the pathspec of a history read no pathspec limits: the
// whole tree, at every commit.
const everything = "."

// namesDiff are the options of git's diff and log commands that print
// names, numbers and object ids of changed files but none of their
// lines; a command whose options are these and quietLog's, with at least
// one of these, prints nothing of the files' contents.
var namesDiff = []string{"--stat", "--numstat", "--shortstat", "--dirstat", "--name-only", "--name-status", "--summary",
	"--compact-summary", "--raw", "--no-patch", "-s", "--quiet", "--exit-code", "--abbrev", "--no-renames", "-M", "-C", "--find-renames", "--find-copies"}

// namesOnlyDiff reports whether opts, the options of a diff or log
// command, make it print only names: at least one of namesDiff, and
// nothing else but quietLog's.
func namesOnlyDiff(opts []string) bool {
	names := false
	for _, a := range opts {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(a, "=")
		switch {
		case slices.Contains(namesDiff, name):
			names = true
		case slices.Contains(quietLog, name) || isDigits(strings.TrimPrefix(a, "-")):
		default:
			return false
		}
	}
	return names
}

// historyReads returns what git subcommand sub, given args, prints of
// the contents of files from git's history or index (its objects, not
// the working tree): nil when nothing; otherwise the pathspecs, from the
// workspace root, that limit what it prints, "." standing for every
// path. text marks the arguments that are free text (patterns,
// messages), exists says whether a path names something in the working
// tree.
//
// The commands that print files' contents from git's objects are the
// patch-printing log, reflog, whatchanged and stash list (any option
// but the quiet ones of quietLog and namesDiff), show, diff, diff-tree,
// diff-index and diff-files (unless only names are asked for, or
// --no-index compares two files of the working tree), stash show, grep
// of a revision or of the index (--cached), cat-file of an object's
// contents (-p, --batch, a type), blame, status and commit -v, and the
// interactive -p of add, reset, restore, stash and commit, which print
// the hunks they offer, and for-each-ref, tag and branch with a format
// of %(raw), which prints the object a ref names. A REV:path argument is a read of that path,
// noted where it is checked; a command whose objects are all named so
// reads nothing more. Without "--", operands that name something in the
// working tree are git's pathspecs, and those that do not its
// revisions; with no pathspec, the whole history counts as read, as it
// does for log --follow, which prints the file under its earlier names.
func historyReads(sub string, args []string, text map[int]bool, exists func(string) bool) []string {
	dash := slices.Index(args, "--")
	opts := args
	if dash >= 0 {
		opts = args[:dash]
	}
	var operands []string
	revPaths := 0
	for j, a := range opts {
		if text[j] || strings.HasPrefix(a, "-") || j > 0 && slices.Contains(numberValued, opts[j-1]) {
			continue
		}
		operands = append(operands, a)
		if revPath(a) {
			revPaths++
		}
	}
	has := func(flags ...string) bool {
		return slices.ContainsFunc(opts, func(a string) bool {
			name, _, _ := strings.Cut(a, "=")
			return slices.Contains(flags, name)
		})
	}
	byRevPath := len(operands) > 0 && revPaths == len(operands)
	switch sub {
	case "log", "reflog", "whatchanged":
		if !slices.ContainsFunc(opts, showsFiles) || namesOnlyDiff(opts) {
			return nil
		}
		if has("--follow") {
			return []string{everything} // the path's earlier names too
		}
	case "show", "diff", "diff-tree", "diff-index", "diff-files":
		if has("--no-index") || byRevPath || namesOnlyDiff(opts) {
			return nil
		}
	case "stash":
		switch {
		case len(args) > 0 && args[0] == "show":
			// stash.showPatch may make even a plain stash show print
			// the patch.
		case len(args) > 0 && args[0] == "list":
			if !slices.ContainsFunc(opts[1:], showsFiles) || namesOnlyDiff(opts[1:]) {
				return nil
			}
		case has("-p", "--patch"):
		default:
			return nil
		}
		return []string{everything}
	case "grep":
		if has("--no-index", "--untracked") {
			return nil
		}
		if !has("--cached") && !slices.ContainsFunc(operands, func(a string) bool { return !exists(a) }) {
			return nil // the working tree's tracked files, searched from the root
		}
		if byRevPath {
			return nil
		}
	case "cat-file":
		if !has("-p", "--batch", "--batch-command", "--textconv", "--filters") &&
			!slices.ContainsFunc(operands, func(a string) bool { return slices.Contains([]string{"blob", "tree", "commit", "tag"}, a) }) {
			return nil // -t, -s, -e, --batch-check: types, sizes and ids
		}
		if byRevPath {
			return nil
		}
		return []string{everything} // an object's id can be any file's
	case "blame":
		return limits(slices.Concat(operands, pathspecs(args, dash)))
	case "status":
		if !has("-v", "--verbose", "-vv") {
			return nil
		}
		return []string{everything}
	case "for-each-ref", "tag", "branch":
		// A format's %(raw) prints the object a ref names, which may be
		// any file's blob: git tag t BLOB, then git tag --format=%(raw).
		if slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, "%(") && strings.Contains(a, "raw") }) {
			return []string{everything}
		}
		return nil
	case "commit", "add", "reset", "restore":
		if !has("-p", "--patch", "-i", "--interactive", "-e", "--edit") && !(sub == "commit" && has("-v", "--verbose")) {
			return nil
		}
		return []string{everything}
	default:
		return nil
	}
	if dash >= 0 {
		return limits(pathspecs(args, dash))
	}
	var paths []string
	for _, a := range operands {
		if !revPath(a) && !strings.HasPrefix(a, ":/") && exists(a) {
			paths = append(paths, a)
		}
	}
	return limits(paths)
}

// revPath reports whether a, an operand of git, names a file or folder
// of a commit or of the index as REV:path or :path does; :/text names
// the commit whose message matches text, and a URL is no path.
func revPath(a string) bool {
	return strings.Contains(a, ":") && !strings.Contains(a, "://") && !strings.HasPrefix(a, ":/")
}

// pathspecs returns the arguments after "--", at dash in args.
func pathspecs(args []string, dash int) []string {
	if dash < 0 {
		return nil
	}
	return args[dash+1:]
}

// limits returns the pathspecs specs as paths from the root: "." (every
// path) when there are none, and in place of one with magic (:!x,
// :(glob)x) or a pattern, whose reach is not worked out.
func limits(specs []string) []string {
	if len(specs) == 0 {
		return []string{everything}
	}
	var out []string
	for _, s := range specs {
		p := historyPath(s)
		if p == everything {
			return []string{everything}
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// historyPath returns the path from the root that s, a pathspec or the
// path of REV:path, limits a history read to: "." for every path.
func historyPath(s string) string {
	if s == "" || strings.HasPrefix(s, ":") || pattern.HasMeta(s, 0) || strings.HasPrefix(s, "/") {
		return everything
	}
	p := path.Clean(s)
	if p == ".." || strings.HasPrefix(p, "../") {
		return everything
	}
	return p
}

// Covers reports whether a history read limited to spec, one of
// Reads.History, prints what history holds at p, a slash-separated path
// from the workspace root: spec is "." or p, or a folder above p.
func Covers(spec, p string) bool {
	return spec == everything || p == spec || strings.HasPrefix(p, spec+"/")
}
