package guard

import (
	"fmt"
	"os"
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
