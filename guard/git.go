package guard

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"

	"harness/fence"
	"harness/gitdir"
)

// gitCommand returns the index in args, the arguments of git, of its
// subcommand: the first argument that is not an option, since every
// option gitRule lets through before it takes no value. It is len(args)
// when there is none.
func gitCommand(args []string) int {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		i++
	}
	return i
}

// git checks what gitRule cannot, since it reads the workspace: git init
// inside a repository, git add of a folder, and the paths in the
// repository an argument names (HEAD:.env, :.env, pathspecs), which need
// not exist in the working tree to be printed from git's history or
// index.
func (c *checker) git(ce *syntax.CallExpr, args []string, text map[int]bool) *Refusal {
	i := gitCommand(args)
	if i == len(args) {
		return nil
	}
	sub := args[i]
	if sub == "init" {
		if dir, ok := c.repository(); ok {
			return c.refuse(ce, fmt.Sprintf("git init inside a repository (%s has .git) makes another one, which git may then use in place of the one the workspace protects; use the repository that is there", dir))
		}
	}
	for j := i + 1; j < len(args); j++ {
		arg := args[j]
		if text[j] || arg == "--" {
			continue
		}
		if sub == "add" && !strings.HasPrefix(arg, "-") && c.isDir(arg) {
			return c.refuse(ce, fmt.Sprintf("git add %s adds every file in the folder, secrets included, where git diff --cached and git show would print them; add the files by name", arg))
		}
		for _, p := range gitPaths(arg) {
			if pat, ok := secretInGit(p); ok {
				return c.refuse(ce, fmt.Sprintf("%s names a secret (%s matches %s), which git would print or store from its history or index; the workspace keeps it from the model: leave it out", arg, p, pat))
			}
			if p != arg && !strings.Contains(arg, "://") {
				if err := c.checkPath(p, false); err != nil {
					return c.refuse(ce, err.Error())
				}
				c.read(p)
			}
		}
	}
	prefix := c.place()
	if prefix != "" {
		if r := c.inPlace(ce, prefix, sub, args[i+1:], text, i+1); r != nil {
			return r
		}
	}
	c.history(sub, prefix, args[i+1:], text, i+1)
	for _, repo := range remoteOperands(sub, args[i+1:]) {
		if r := c.remote(ce, sub, repo); r != nil {
			return r
		}
	}
	return nil
}

// remote refuses repo, a repository git subcommand sub talks to, unless
// it is a remote the repository's configuration defines by name. A path
// is refused because git drops the protections the harness gives it when
// it talks to a repository on this machine; a URL, or a name no remote
// has, because it reaches the network wherever it points, which the bash
// tool tells the model it has not. A remote the user configured is theirs
// to fetch from and push to.
func (c *checker) remote(ce *syntax.CallExpr, sub, repo string) *Refusal {
	remotes := c.remotes()
	if slices.Contains(remotes, repo) {
		return nil
	}
	known := "the repository has no remote"
	if len(remotes) > 0 {
		known = "its remotes: " + strings.Join(remotes, ", ")
	}
	switch {
	case localPath(repo) || !strings.ContainsAny(repo, ":/") && c.exists(repo):
		return c.refuse(ce, fmt.Sprintf("git %s %s names a repository by its path, and git drops the protections the harness gives it (no hooks, no file-system monitor) when it talks to a repository on this machine, running what that one's configuration names; use a remote by its name (%s), or ask the user", sub, repo, known))
	case strings.Contains(repo, ":"):
		return c.refuse(ce, fmt.Sprintf("git %s %s reaches the network by a URL, and commands have no network but git's to the remotes the repository configures by name (%s); use one of them, or ask the user", sub, repo, known))
	}
	return c.refuse(ce, fmt.Sprintf("git %s %s: %s is not a remote of the repository (%s), and git would take it for a place to reach; commands have no network but git's to the remotes configured by name; use one of them, or ask the user", sub, repo, repo, known))
}

// remotes returns the names of the remotes the workspace's repository
// configures, read once per check.
func (c *checker) remotes() []string {
	if c.remoteNames == nil {
		c.remoteNames = []string{}
		if dir, ok := c.repository(); ok {
			c.remoteNames = gitdir.Find(dir).Remotes()
		}
	}
	return c.remoteNames
}

// gitPaths returns the paths in the repository an argument of git may
// name: the argument itself, and what follows each ":" or ")" in it, as in
// REV:path, :path and :0:path (the index) and pathspecs with magic
// (:(exclude)path, :!path, :/path), each without the magic characters
// and a leading "./".
func gitPaths(arg string) []string {
	var out []string
	add := func(p string) {
		p = strings.TrimLeft(p, "!^/")
		p = strings.TrimPrefix(p, "./")
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	add(arg)
	for i := 0; i < len(arg) && len(out) < 16; i++ {
		if arg[i] == ':' || arg[i] == ')' {
			add(arg[i+1:])
		}
	}
	return out
}

// secretInGit reports whether p, a path or a pathspec pattern in the
// repository, names a secret or is a pattern aimed at secrets.
func secretInGit(p string) (string, bool) {
	if pat, ok := fence.SecretPath(p); ok {
		return pat, true
	}
	if pattern.HasMeta(p, 0) {
		return fence.SecretGlob(p)
	}
	return "", false
}

// repository returns the folder that holds .git, the workspace root or a
// folder above it, when the workspace is inside a repository.
func (c *checker) repository() (string, bool) {
	dir := c.ws.Root()
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// isDir reports whether arg, a path from the root, is a folder.
func (c *checker) isDir(arg string) bool {
	if !filepath.IsAbs(arg) {
		arg = filepath.Join(c.ws.Root(), arg)
	}
	fi, err := os.Stat(arg)
	return err == nil && fi.IsDir()
}

// rewritesTree reports whether the command name, given args, rewrites
// files of the working tree in a way that can put a symlink, or anything
// else, where a path of the line was checked: git switch, checkout,
// merge, pull, reset, restore, stash, rebase, cherry-pick, am, mv and the
// like, and the copying, linking and unpacking programs a user may allow.
func rewritesTree(name string, args []string) bool {
	switch name {
	case "ln", "link", "cp", "mv", "install", "tar", "unzip", "rsync", "patch":
		return true
	case "git":
	default:
		return false
	}
	i := gitCommand(args)
	if i == len(args) {
		return false
	}
	switch args[i] {
	case "switch", "checkout", "merge", "pull", "reset", "restore", "rebase", "cherry-pick", "revert",
		"am", "apply", "mv", "read-tree", "checkout-index", "worktree", "submodule", "clone", "bisect":
		return true
	case "stash":
		rest := args[i+1:]
		return len(rest) == 0 || (rest[0] != "list" && rest[0] != "show")
	}
	return false
}

// remoteValued are the options of git push, fetch, pull and ls-remote
// that take the next argument as their value.
var remoteValued = []string{"--depth", "--shallow-since", "--shallow-exclude", "-j", "--jobs", "-o", "--push-option", "--server-option",
	"--negotiation-tip", "--refmap", "--recurse-submodules-default", "--repo", "-s", "--strategy", "-X", "--strategy-option", "--sort", "--filter"}

// remoteOperands returns the repositories that args, the arguments of
// git subcommand sub, name: the first operand of push, fetch, pull and
// ls-remote (every operand of fetch --multiple), push's --repo, and the
// names remote show and remote update are given, which git contacts too.
func remoteOperands(sub string, args []string) []string {
	var repos []string
	switch sub {
	case "push", "fetch", "pull", "ls-remote":
		i := firstOperand(args, remoteValued...)
		if i >= 0 {
			repos = append(repos, args[i])
		}
		if sub == "fetch" && slices.Contains(args, "--multiple") && i >= 0 {
			for _, a := range args[i+1:] {
				if !strings.HasPrefix(a, "-") {
					repos = append(repos, a)
				}
			}
		}
		for i, a := range args {
			if v, ok := strings.CutPrefix(a, "--repo="); ok {
				repos = append(repos, v)
			} else if a == "--repo" && i+1 < len(args) {
				repos = append(repos, args[i+1])
			}
		}
	case "remote":
		if i := firstOperand(args); i >= 0 && (args[i] == "show" || args[i] == "update") {
			for _, a := range args[i+1:] {
				if !strings.HasPrefix(a, "-") {
					repos = append(repos, a)
				}
			}
		}
	}
	return repos
}

// localPath reports whether git takes repo, a repository's URL, for a
// path on this machine by its form alone: a file: URL, or a path with a
// "/" (or starting with "." or "~") and no ":" before it.
func localPath(repo string) bool {
	if len(repo) >= len("file:") && strings.EqualFold(repo[:len("file:")], "file:") {
		return true
	}
	if strings.Contains(repo, "://") {
		return false
	}
	colon, slash := strings.IndexByte(repo, ':'), strings.IndexByte(repo, '/')
	if colon >= 0 && (slash < 0 || colon < slash) {
		return false // host:path, as ssh takes it
	}
	return slash >= 0 || strings.HasPrefix(repo, ".") || strings.HasPrefix(repo, "~")
}

// place returns the workspace's folder in its repository, as git spells
// paths ("svc-a", "apps/web"), when the workspace is a folder of a larger
// repository; "" when it is the repository's top or in none.
func (c *checker) place() string {
	dir, ok := c.repository()
	if !ok {
		return ""
	}
	rel, err := filepath.Rel(dir, c.ws.Root())
	if err != nil || rel == "." {
		return ""
	}
	return filepath.ToSlash(rel)
}

// shows are the git subcommands that print the contents of commits or
// files of the whole repository unless pathspecs limit them, wherever in
// it they run.
var shows = []string{"log", "reflog", "whatchanged", "show", "diff", "diff-tree", "diff-index", "diff-files"}

// quietLog are the options of git log and reflog that print nothing of
// a commit's files, so a log with only these needs no pathspec.
var quietLog = []string{"--oneline", "--graph", "--decorate", "--no-decorate", "--all", "--reverse", "--no-merges", "--merges",
	"--first-parent", "--abbrev-commit", "--no-color", "--color", "--topo-order", "--date-order", "--author-date-order", "-n",
	"--max-count", "--skip", "--since", "--after", "--until", "--before", "--author", "--committer", "--grep", "--format",
	"--pretty", "--date", "--branches", "--tags", "--remotes", "--no-abbrev-commit", "--walk-reflogs", "-g", "--left-right",
	"--cherry-pick", "--boundary", "--all-match", "--invert-grep", "-i", "--regexp-ignore-case", "-E", "-F", "--basic-regexp",
	"--extended-regexp", "--fixed-strings", "--no-walk"}

// numberValued are options of git whose separate value is a number,
// which may look like an object's id.
var numberValued = []string{"-n", "--max-count", "--skip", "-U", "--unified", "--depth", "--deepen", "--max-parents", "--min-parents"}

// inPlace holds git, in a workspace that is the folder prefix of a larger
// repository, to that folder. Git takes REV:path, :path and pathspecs
// with the top magic (:/path, :(top)path) from the repository's top, not
// from the folder it runs in, so git show HEAD:svc-b/settings.txt would
// print a sibling folder's file; those paths are resolved against the
// workspace's place and refused outside it. An object named by its id
// may be a file or folder anywhere in the repository, so ids are refused.
// And the commands that print the contents of whole commits (git log -p,
// git show, git diff) must be limited by pathspecs after "--", each
// inside the workspace (git log -p -- .).
func (c *checker) inPlace(ce *syntax.CallExpr, prefix, sub string, args []string, text map[int]bool, at int) *Refusal {
	dash := slices.Index(args, "--")
	if sub == "cat-file" && slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--batch-all") }) {
		return c.refuse(ce, fmt.Sprintf("git cat-file --batch-all-objects prints every object of the repository, which holds more than the workspace (its folder %s); name files as HEAD:path", prefix))
	}
	operands, revPaths := 0, 0
	for j, arg := range args {
		if text[at+j] || arg == "--" || j > 0 && slices.Contains(numberValued, args[j-1]) {
			continue
		}
		after := dash >= 0 && j > dash
		if !after && strings.HasPrefix(arg, "-") {
			continue
		}
		if strings.Contains(arg, "://") {
			continue
		}
		if !after {
			operands++
			if rev, _, ok := strings.Cut(arg, ":"); ok {
				revPaths++
				if objectID(rev) {
					return c.refuse(ce, fmt.Sprintf("%s names an object by its id, which may be a folder of the repository outside the workspace (%s); name the commit by a branch, a tag or HEAD~N", arg, prefix))
				}
			} else if objectID(arg) {
				return c.refuse(ce, fmt.Sprintf("%s names an object by its id, which may be a file of the repository outside the workspace (%s); name a commit by a branch, a tag or HEAD~N, and a file as HEAD:path", arg, prefix))
			}
		}
		p, ok := fromTop(arg)
		if !ok {
			continue
		}
		if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
			continue // taken from the workspace root, and checked as a path there
		}
		p = path.Clean("/" + p)[1:]
		rel, inside := strings.CutPrefix(p, prefix)
		if p != prefix && (!inside || !strings.HasPrefix(rel, "/")) {
			where := p
			if where == "" {
				where = "the whole repository"
			}
			return c.refuse(ce, fmt.Sprintf("%s names %s, outside the workspace's folder %s of its repository (git takes such paths from the repository's top); name paths inside it, as HEAD:./path or from the workspace's root", arg, where, prefix))
		}
		rel = strings.TrimPrefix(rel, "/")
		if rel == "" {
			continue
		}
		if err := c.checkPath(rel, false); err != nil {
			return c.refuse(ce, err.Error())
		}
		c.read(rel)
	}
	if !slices.Contains(shows, sub) || slices.Contains(args, "--no-index") {
		return nil
	}
	if sub == "show" && operands > 0 && operands == revPaths {
		return nil // files by REV:path only, checked above
	}
	opts := args
	if dash >= 0 {
		opts = args[:dash]
	}
	if (sub == "log" || sub == "reflog") && !slices.ContainsFunc(opts, showsFiles) {
		return nil // commits' messages only
	}
	if dash < 0 || dash == len(args)-1 {
		return c.refuse(ce, fmt.Sprintf("git %s prints the changes of the whole repository, which holds more than the workspace (its folder %s); limit it to the workspace with pathspecs after --, as in git %s ... -- .", sub, prefix, sub))
	}
	return nil
}

// showsFiles reports whether a, an argument of git log, is an option
// that may print something of the commits' files: any but quietLog's.
func showsFiles(a string) bool {
	name, _, _ := strings.Cut(a, "=")
	return strings.HasPrefix(a, "-") && !slices.Contains(quietLog, name) && !isDigits(strings.TrimPrefix(a, "-"))
}

// fromTop returns the path in the repository that arg names from the
// repository's top, if it names one so: the path of REV:path, :path and
// :N:path (a path starting with ./ or ../ is git's from the current
// folder instead), and of a pathspec with the top magic (:/path,
// :(top)path); "" for the top itself.
func fromTop(arg string) (string, bool) {
	if rest, ok := strings.CutPrefix(arg, ":("); ok {
		magic, p, ok := strings.Cut(rest, ")")
		if !ok {
			return "", false
		}
		for m := range strings.SplitSeq(magic, ",") {
			if m == "top" {
				return p, true
			}
		}
		return "", false
	}
	if rest, ok := strings.CutPrefix(arg, ":"); ok {
		switch {
		case strings.HasPrefix(rest, "!"), strings.HasPrefix(rest, "^"):
			return "", false // excludes: they show nothing
		case strings.HasPrefix(rest, "/"):
			return strings.TrimLeft(rest, "/"), true
		case len(rest) >= 2 && rest[0] >= '0' && rest[0] <= '3' && rest[1] == ':':
			return rest[2:], true
		}
		return rest, true
	}
	if _, p, ok := strings.Cut(arg, ":"); ok {
		return p, true
	}
	return "", false
}

// objectID reports whether s could be an object's id, full or
// abbreviated: four to 64 hexadecimal digits.
func objectID(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return true
}

// printsObjects are the git subcommands that print the object a REV:path
// argument names: the contents of a file of history or of the index.
var printsObjects = []string{"show", "cat-file", "diff", "diff-tree", "diff-index", "diff-files", "grep", "log", "whatchanged", "reflog", "blame"}

// history notes what git subcommand sub, given args (text marking free
// text from index at), prints of files from git's history or index
// (historyReads), and the paths of the REV:path arguments of those that
// print the objects they name, as paths from the workspace root, in a
// workspace that is the folder prefix of its repository ("" for the top).
func (c *checker) history(sub, prefix string, args []string, text map[int]bool, at int) {
	rest := make(map[int]bool)
	for k := range text {
		if k >= at {
			rest[k-at] = true
		}
	}
	c.historyRead(historyReads(sub, args, rest, c.exists)...)
	if !slices.Contains(printsObjects, sub) {
		return
	}
	for j, arg := range args {
		if arg == "--" {
			return
		}
		if rest[j] || strings.HasPrefix(arg, "-") || strings.Contains(arg, "://") {
			continue
		}
		p, ok := fromTop(arg)
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || prefix == "":
			c.historyRead(historyPath(p))
		default:
			// From the repository's top: inPlace refused what lies
			// outside the workspace's folder.
			p = path.Clean("/" + p)[1:]
			if p == prefix {
				c.historyRead(everything)
			} else if rel, ok := strings.CutPrefix(p, prefix+"/"); ok {
				c.historyRead(historyPath(rel))
			}
		}
	}
}
