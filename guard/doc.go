// Package guard decides whether a bash command line may run in a
// workspace. It reads the line with a real shell parser
// (mvdan.cc/sh/v3/syntax), never with patterns over the text, and checks
// every simple command it finds on its own: in lists (a && b; c), pipes,
// subshells, blocks, loops, conditionals and function bodies. Checking only
// the start of the line is the hole it closes: "ls && rm -rf ~" is two
// commands, and the second one is refused.
//
// # What is refused
//
// A line is refused, with a reason the model can act on, when it holds:
//
//   - a command that is not on the allowlist, or that is on the blocklist;
//     the default allowlist holds read-only tools and common build and test
//     commands, and not rm;
//   - a command the guard cannot see through: eval, exec, source, another
//     shell (bash -c, sh -c), xargs, env CMD, sudo and the other wrappers that
//     run a command given as arguments; these cannot be allowed;
//   - command substitution $(...) and `...`, process substitution <(...),
//     parameter expansion $NAME, arithmetic, brace expansion and extended
//     globs: each makes the command that runs differ from the text checked;
//   - background jobs (&), coprocesses, declare/export, cd, and builtins that
//     change the shell itself (set, shopt, trap, alias, hash, read, ...);
//   - a command named by a path (./run.sh, /bin/rm) rather than by name;
//   - a path, in an argument or a redirection, that leaves the workspace:
//     absolute, through "..", through "~" or through a symlink; /dev/null is
//     the one outside path allowed. Paths are looked for in every argument,
//     after = (--opt=PATH), at every place a value glued to a cluster of
//     short options may start (sort -uoPATH), and in file: URLs (git fetch
//     file:///elsewhere);
//   - a path the workspace protects (see [Workspace]);
//   - a glob pattern that matches no file: bash may match it differently
//     ([[=e=]] and [[.e.]] classes), so what it names cannot be checked;
//   - a command that rewrites the working tree (git switch, pull, reset,
//     restore, stash, ...) chained with anything else, since what was
//     checked before it ran may lead elsewhere after;
//   - for git: a secret named in REV:path, :path or a pathspec (git show
//     HEAD:.env, git log -p -- .env), a pathspec pattern aimed at secrets,
//     git add of the whole tree or a folder (-A, ., -u, -f), git stash -u,
//     git init inside a repository or with --separate-git-dir,
//     --template or --bare, and git push, fetch, pull and ls-remote of a
//     repository named by its path (./docs, /tmp/x, file://...), for
//     which git drops the protections the harness gives it;
//   - jq programs that import or include modules or data files, or call
//     modulemeta, and jq -f, whose program file may: they read files the
//     command line does not name;
//   - a variable assignment other than a short list of harmless build
//     settings (GOFLAGS, CGO_ENABLED, RUST_BACKTRACE, ...); each field of
//     GOFLAGS is checked as the same flag on the command line;
//   - destructive or dangerous uses of allowed commands: find -exec and
//     -delete, git push --force, reset --hard, clean -f, config, -c, go
//     generate, -toolexec and -exec, flags inside -ldflags, -gcflags and
//     -asmflags that write files (-o, -cpuprofile, ...), and package
//     scripts (npm, make, ...).
//
// Words are expanded the way bash would (quotes removed, globs matched in
// the workspace) before they are checked, so c"a"t is cat and *.go names
// the files it matches. Globs read only folders inside the workspace,
// never through a symlink, and at most 100,000 entries for a line; the
// check stops, refusing, when the context it runs under is done.
//
// # What a line reads
//
// A line that may run comes with what it may read ([Policy.CheckReads]):
// the paths its commands read or pass on, the folders read whole
// (grep -r, rg and git grep of the root, go doc of the packages it
// documents, the root when it names none), and, apart, what it prints
// of files from git's history or index (git log -p, show, diff, grep of
// a revision, cat-file -p, blame, status -v), as the pathspecs that limit
// it ("." for everything, as when a raw object id is printed). The
// caller decides which protected files those reach.
//
// # What the guard is not
//
// The guard checks the command line, not what the programs it starts do
// afterwards: go test runs test code, and git runs what its configuration
// says. That is what the sandbox is for; the guard is the first wall, not
// the only one.
package guard
