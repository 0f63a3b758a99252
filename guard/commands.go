package guard

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/pattern"
)

// defaultAllow is the allowlist: tools that only read, and common build and
// test commands. Writing is left to the file tools, deleting to the user.
var defaultAllow = []string{
	// read and inspect
	"ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "find", "tree",
	"sort", "uniq", "cut", "tr", "diff", "cmp", "comm", "file", "stat", "du",
	"basename", "dirname", "realpath", "readlink", "nl", "od", "xxd", "hexdump",
	"md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "column", "fold",
	"paste", "join", "tac", "rev", "strings", "jq", "which", "whoami", "uname",
	"date", "seq", "sleep", "printenv", "env",
	// shell builtins that only print or test
	"echo", "printf", "pwd", "true", "false", "test", "[", ":", "exit",
	// make folders and empty files in the workspace
	"mkdir", "touch",
	// build and test
	"git", "go", "gofmt", "cargo", "rustc", "pytest", "python", "python3",
}

// namesOnly are the commands that look at files' names and metadata but
// never print their contents, so the files they are given are not read
// (see Policy.Reads).
var namesOnly = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"ls": true, "stat": true, "du": true, "basename": true, "dirname": true, "realpath": true, "readlink": true,
		"touch": true, "mkdir": true, "test": true, "[": true, "tree": true, "find": true, "which": true, "file": true,
		"wc": true, "md5sum": true, "sha1sum": true, "sha256sum": true, "sha512sum": true, "cksum": true,
		"echo": true, "printf": true, "pwd": true, "true": true, "false": true, "sleep": true, "date": true,
		"seq": true, "whoami": true, "uname": true, "env": true, "printenv": true, "exit": true, ":": true,
	}
})

// listOptions are the options that make a command of namesOnly read a
// file's text after all, and print its lines: date -f FILE (--file)
// prints each line it cannot parse as a date, file -f FILE
// (--files-from) and tree --fromfile FILE print the names FILE holds. A
// short option is a letter of a cluster ("" for none); a long one may be
// abbreviated down to min characters, as GNU takes them.
type listOption struct {
	short, long string
	min         int
}

var listOptions = sync.OnceValue(func() map[string]listOption {
	return map[string]listOption{
		"date": {"f", "--file", 3},
		"file": {"f", "--files-from", 3},
		"tree": {"", "--fromfile", 4},
	}
})

// readsContents reports whether args make name, one of namesOnly, read
// the contents of files after all (listOptions), so that every operand
// counts as read.
func readsContents(name string, args []string) bool {
	o, ok := listOptions()[name]
	if !ok {
		return false
	}
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case strings.HasPrefix(a, "--"):
			if opt, _, _ := strings.Cut(a, "="); len(opt) >= o.min && strings.HasPrefix(o.long, opt) {
				return true
			}
		case o.short != "" && strings.HasPrefix(a, "-") && strings.Contains(a, o.short):
			return true // -f FILE, -fFILE, -uf FILE; a value such as -dfri counts too
		}
	}
	return false
}

// searchesRoot reports whether name with args searches folders
// recursively, which it does from the working folder, the workspace root,
// when no folder is named: rg, git grep (of the working tree with
// --no-index or --untracked, of tracked files without), and grep -r (-R,
// --recursive, -d recurse). Which operand is the pattern is not worked
// out, so the root counts as searched whatever folders are named.
func searchesRoot(name string, args []string) bool {
	switch name {
	case "rg":
		return true
	case "git":
		i := gitCommand(args)
		return i < len(args) && args[i] == "grep"
	case "grep", "egrep", "fgrep":
	default:
		return false
	}
	for i, a := range args {
		switch {
		case a == "--":
			return false
		case strings.HasPrefix(a, "--"):
			if opt, val, _ := strings.Cut(a, "="); len(opt) >= 4 && (strings.HasPrefix("--recursive", opt) || strings.HasPrefix("--dereference-recursive", opt)) ||
				len(opt) >= 4 && strings.HasPrefix("--directories", opt) && (val == "recurse" || val == "" && i+1 < len(args) && args[i+1] == "recurse") {
				return true
			}
		case strings.HasPrefix(a, "-") && (strings.ContainsAny(a, "rR") || strings.Contains(a, "d") && (strings.HasSuffix(a, "recurse") || i+1 < len(args) && args[i+1] == "recurse")):
			return true
		}
	}
	return false
}

// docReads returns the folders that name, given args, reads the Go
// files of without naming them: go doc documents the package of the
// working folder, the workspace root, when given no package, and finds
// one given by its import path or the end of it anywhere in the module,
// reading every .go file of its folder, ignored ones included (-u and
// -src print what they hold). An operand that is a folder of the
// workspace is read; any other, or none, counts as reading the root,
// whole, which holds every package of the workspace. isDir says whether
// an operand is a folder.
func docReads(name string, args []string, isDir func(string) bool) []string {
	if name != "go" || len(args) == 0 || args[0] != "doc" {
		return nil
	}
	var folders []string
	for _, a := range args[1:] {
		switch {
		case strings.HasPrefix(a, "-"):
		case isDir(a):
			folders = append(folders, a)
		default:
			return []string{"."}
		}
	}
	if len(folders) == 0 {
		return []string{"."}
	}
	return folders
}

// filesFromCommands take --files0-from, abbreviated as GNU allows.
var filesFromCommands = map[string]bool{"wc": true, "du": true, "sort": true}

// filesFrom returns why args are refused, or "": --files0-from=FILE
// (find -files0-from FILE, tar -T FILE and --files-from=FILE) makes a
// command read the names of the files it uses from FILE, and print FILE's
// lines in its messages, so neither what it reads nor what it shows can
// be checked.
func filesFrom(name string, args []string) string {
	for i, a := range args {
		if a == "--" {
			return ""
		}
		opt, _, _ := strings.Cut(a, "=")
		switch {
		case opt == "--files0-from" || filesFromCommands[name] && len(opt) >= 3 && strings.HasPrefix("--files0-from", opt):
			return fmt.Sprintf("%s --files0-from reads the names of the files to use from a file, which the guard cannot check; name the files on the command line", name)
		case name == "find" && opt == "-files0-from":
			return "find -files0-from reads the names of the files to use from a file, which the guard cannot check; name the files on the command line"
		case name == "tar" && (len(opt) >= len("--files") && strings.HasPrefix("--files-from", opt) ||
			!strings.HasPrefix(a, "--") && strings.Contains(a, "T") && (strings.HasPrefix(a, "-") || i == 0)):
			return "tar -T (--files-from) reads the names of the files to use from a file, which the guard cannot check; name the files on the command line"
		}
	}
	return ""
}

// never holds the commands that run other commands the guard cannot see,
// or change the shell the rest of the line runs in. They cannot be allowed.
// Like known, it is made when first needed: a run that checks no command
// line does not pay for formatting every reason.
var never = sync.OnceValue(func() map[string]string {
	return reasons("", map[string][]string{
		"%s runs text as a command, which the guard cannot check; write the command itself":                                                                     {"eval"},
		"%s replaces the shell or its file descriptors; run the command directly":                                                                               {"exec"},
		"%s runs the commands in a file, which the guard cannot check; run the commands themselves":                                                             {"source", "."},
		"%s starts another shell, whose commands (-c or a script) the guard cannot check; write the commands directly":                                          {"bash", "sh", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "busybox"},
		"%s builds commands from its input, which the guard cannot check; pass the arguments to the command directly":                                           {"xargs", "parallel"},
		"%s runs another command given as arguments, which the guard does not check; run that command directly":                                                 {"command", "builtin", "nohup", "nice", "ionice", "setsid", "stdbuf", "timeout", "watch", "chroot", "unshare", "nsenter", "strace", "ltrace", "gdb", "flock", "script", "expect", "taskset", "chrt", "systemd-run", "firejail", "bwrap", "time"},
		"%s runs a command as another user; the harness never does that: ask the user to run it":                                                                {"sudo", "su", "doas", "pkexec", "runuser"},
		"%s changes the shell's own state (options, traps, aliases, variables) that the check relies on; write plain commands":                                  {"set", "shopt", "trap", "alias", "unalias", "enable", "hash", "unset", "read", "mapfile", "readarray", "getopts", "fc", "history", "bind", "complete", "compgen", "ulimit", "umask", "caller", "typeset", "declare", "export", "local", "readonly"},
		"%s changes the working folder, and paths are checked from the workspace root; give paths relative to the root instead (for example go test ./sub/...)": {"cd", "pushd", "popd", "dirs"},
		"%s controls jobs or processes, which commands here may not do":                                                                                         {"kill", "disown", "wait", "jobs", "fg", "bg", "suspend", "logout"},
	})
})

// known holds why commands are off the allowlist by default. Unlike those
// in never, the user may allow them.
var known = sync.OnceValue(func() map[string]string {
	return reasons("; it is not on the allowlist (the user can allow it with --bash-allow %[1]s)", map[string][]string{
		"%s deletes files":                                        {"rm", "rmdir", "shred", "unlink"},
		"%s writes disks and devices":                             {"dd", "mkfs", "mke2fs", "mkswap", "fdisk", "sfdisk", "parted", "wipefs", "blkdiscard", "losetup"},
		"%s stops or controls the machine":                        {"shutdown", "reboot", "halt", "poweroff", "init", "telinit", "systemctl", "service"},
		"%s signals other processes":                              {"killall", "pkill"},
		"%s changes permissions or ownership":                     {"chmod", "chown", "chgrp", "chattr", "setfacl"},
		"%s changes what is mounted":                              {"mount", "umount", "swapon", "swapoff"},
		"%s reaches the network, which commands here do not have": {"curl", "wget", "nc", "ncat", "netcat", "socat", "ssh", "scp", "sftp", "rsync", "ftp", "telnet"},
		"%s schedules commands to run later":                      {"crontab", "at", "batch"},
		"%s runs package scripts or recipes written in a file, which the guard cannot check; run the underlying command directly":              {"npm", "npx", "yarn", "pnpm", "bun", "make", "gmake", "just", "rake", "task", "composer", "poetry", "pipenv", "tox", "nox", "gradle", "gradlew", "mvn", "ant"},
		"%s can run commands and write files (sed's e and w commands, awk's system); use read_file to read lines and edit_file to change them": {"sed", "awk", "gawk", "mawk", "perl", "ruby", "node", "deno", "php", "lua"},
		"%s writes or replaces files; use write_file or edit_file":                                                                             {"tee", "cp", "mv", "install", "truncate"},
		"%s makes links, which can lead out of the workspace":                                                                                  {"ln", "link"},
	})
})

// reasons turns reasons, each a format for one command name, and the names
// they apply to into a reason per name, with suffix (also a format of the
// name) appended.
func reasons(suffix string, byReason map[string][]string) map[string]string {
	m := make(map[string]string)
	for reason, names := range byReason {
		for _, name := range names {
			m[name] = fmt.Sprintf(reason+suffix, name)
		}
	}
	return m
}

// isKnown reports whether name is a command the guard has a reason for.
func isKnown(name string) bool {
	_, n := never()[name]
	_, k := known()[name]
	return n || k
}

// refusal returns why name may not run, or "".
func (p *Policy) refusal(name string) string {
	if why, ok := never()[name]; ok {
		return why
	}
	if p.block[name] {
		return name + " is on the blocklist (--bash-block); do without it"
	}
	if p.allow[name] {
		return ""
	}
	if strings.HasPrefix(name, "mkfs.") {
		return known()["mkfs"]
	}
	if why, ok := known()[name]; ok {
		return why
	}
	return fmt.Sprintf("%s is not on the allowlist of commands (read-only tools such as ls, cat, grep, find; git, go, cargo, pytest); do without it, or ask the user to allow it with --bash-allow %s", name, name)
}

// safeVars are the variables a command line may set: build and test
// settings that choose no program to run.
var safeVars = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"GOFLAGS": true, "CGO_ENABLED": true, "GOOS": true, "GOARCH": true, "GOAMD64": true, "GOARM": true,
		"GODEBUG": true, "GOEXPERIMENT": true, "GOMAXPROCS": true, "GOGC": true, "GOTRACEBACK": true, "GORACE": true,
		"RUST_BACKTRACE": true, "RUST_LOG": true, "CARGO_TERM_COLOR": true,
		"NO_COLOR": true, "TZ": true, "LANG": true, "LC_ALL": true, "CI": true, "COLUMNS": true,
		"PYTHONDONTWRITEBYTECODE": true, "PYTHONHASHSEED": true,
	}
})

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// rule checks the arguments of one command. It returns why they are
// refused, or "" and the indexes of arguments that are free text (patterns,
// messages) rather than paths.
type rule func(args []string) (refuse string, text map[int]bool)

var rules = sync.OnceValue(func() map[string]rule {
	return map[string]rule{
		"echo":    allText,
		"printf":  printfRule,
		"grep":    grepRule,
		"egrep":   grepRule,
		"fgrep":   grepRule,
		"rg":      rgRule,
		"find":    findRule,
		"git":     gitRule,
		"go":      goRule,
		"cargo":   cargoRule,
		"python":  pythonRule,
		"python3": pythonRule,
		"env":     envRule,
		"date":    dateRule,
		"sort":    sortRule,
		"jq":      jqRule,
		"test":    testRule("test"),
		"[":       testRule("["),
	}
})

func testRule(name string) rule {
	return func(args []string) (string, map[int]bool) {
		return testRefusal(name, args), nil
	}
}

func allText(args []string) (string, map[int]bool) {
	text := make(map[int]bool, len(args))
	for i := range args {
		text[i] = true
	}
	return "", text
}

func printfRule(args []string) (string, map[int]bool) {
	if len(args) > 0 && strings.HasPrefix(args[0], "-v") {
		return "printf -v sets a shell variable, which later commands would use unchecked; print the text instead", nil
	}
	return allText(args)
}

// valuesAfter marks as text the argument after each of flags, and the
// arguments written flag=value or -fVALUE for them.
func valuesAfter(args []string, text map[int]bool, flags ...string) {
	for i, a := range args {
		for _, f := range flags {
			switch {
			case a == f && i+1 < len(args):
				text[i+1] = true
			case strings.HasPrefix(f, "--") && strings.HasPrefix(a, f+"="):
				text[i] = true
			case !strings.HasPrefix(f, "--") && len(f) == 2 && strings.HasPrefix(a, f) && len(a) > 2:
				text[i] = true
			}
		}
	}
}

// grepRule marks the pattern of grep as text: the first operand, unless a
// pattern is given with -e or a file of them with -f.
func grepRule(args []string) (string, map[int]bool) {
	text := make(map[int]bool)
	valuesAfter(args, text, "-e", "--regexp", "--include", "--exclude", "--exclude-dir")
	if slices.ContainsFunc(args, func(a string) bool {
		return a == "-e" || a == "-f" || strings.HasPrefix(a, "--regexp") || strings.HasPrefix(a, "--file")
	}) {
		return "", text
	}
	if i := firstOperand(args, "-m", "-A", "-B", "-C", "--max-count", "--after-context", "--before-context", "--context"); i >= 0 {
		text[i] = true
	}
	return "", text
}

func rgRule(args []string) (string, map[int]bool) {
	for _, a := range args {
		if longOption(a, "--pre") {
			return "rg --pre runs a command on every file, which the guard cannot check; search without it", nil
		}
	}
	text := make(map[int]bool)
	valuesAfter(args, text, "-e", "--regexp", "-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not")
	if !slices.ContainsFunc(args, func(a string) bool { return a == "-e" || a == "-f" || strings.HasPrefix(a, "--regexp") }) {
		if i := firstOperand(args, "-g", "--glob", "-t", "--type", "-T", "-m", "-A", "-B", "-C", "--max-count", "-j", "--threads"); i >= 0 {
			text[i] = true
		}
	}
	return "", text
}

// firstOperand returns the index of the first argument that is neither an
// option nor the value of one of valued, or -1.
func firstOperand(args []string, valued ...string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return i + 1
			}
			return -1
		case slices.Contains(valued, a):
			i++
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			return i
		}
	}
	return -1
}

func findRule(args []string) (string, map[int]bool) {
	for _, a := range args {
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir":
			return "find " + a + " runs a command for each file, which the guard cannot check; list the files with find, then run the command on them", nil
		case "-delete":
			return "find -delete deletes files; deleting is left to the user", nil
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			return "find " + a + " writes a file; print to the output instead", nil
		}
	}
	text := make(map[int]bool)
	valuesAfter(args, text, "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname", "-printf")
	return "", text
}

// gitGlobal are the options allowed before a git subcommand.
var gitGlobal = []string{"--no-pager", "-P", "--version", "--help", "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks"}

// gitAllowed are the git subcommands that may run, after the checks of
// gitRule.
var gitAllowed = []string{"add", "blame", "branch", "cat-file", "checkout", "commit", "count-objects", "describe", "diff", "diff-files", "diff-index", "diff-tree", "fetch", "for-each-ref", "grep", "help", "init", "log", "ls-files", "ls-remote", "ls-tree", "merge-base", "mv", "name-rev", "pull", "push", "reflog", "remote", "reset", "restore", "rev-list", "rev-parse", "rm", "shortlog", "show", "show-ref", "stash", "status", "switch", "tag", "version", "whatchanged"}

func gitRule(args []string) (string, map[int]bool) {
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		a := args[i]
		switch {
		case a == "-c" || a == "--config-env" || strings.HasPrefix(a, "--config-env="):
			return "git " + a + " sets configuration for the command, and configuration can make git run any program; run git without it", nil
		case a == "-C" || a == "--git-dir" || a == "--work-tree" || strings.HasPrefix(a, "--git-dir=") || strings.HasPrefix(a, "--work-tree="):
			return "git " + a + " points git at another folder; run git from the workspace root without it", nil
		case a == "--exec-path" || strings.HasPrefix(a, "--exec-path="):
			return "git --exec-path chooses the programs git runs; run git without it", nil
		case !slices.Contains(gitGlobal, a):
			return "git option " + a + " is not allowed before the subcommand; allowed: " + strings.Join(gitGlobal, " "), nil
		}
	}
	if i == len(args) {
		return "", nil
	}
	sub, rest := args[i], args[i+1:]
	if sub == "config" {
		return "git config is not allowed: configuration can make git run any program (aliases, hooks, pagers); ask the user to change it", nil
	}
	if sub == "clean" {
		return "git clean deletes untracked files; deleting is left to the user", nil
	}
	if !slices.Contains(gitAllowed, sub) {
		return fmt.Sprintf("git %s is not allowed (allowed: %s)", sub, strings.Join(gitAllowed, ", ")), nil
	}
	for _, a := range rest {
		if bad := anyLongOption(a, "--exec", "--upload-pack", "--receive-pack", "--open-files-in-pager", "--ext-diff"); bad != "" {
			return "git " + sub + " " + a + " (" + bad + ") runs another program, which the guard cannot check; run git without it", nil
		}
		if strings.HasPrefix(a, "ext::") {
			return "ext:: remotes run commands; use a plain remote", nil
		}
	}
	if why := gitSub(sub, rest); why != "" {
		return why, nil
	}
	text := make(map[int]bool)
	valuesAfter(args, text, "-m", "--message", "--grep", "--author", "--committer", "--format", "--pretty", "-S", "-G", "--since", "--until", "--date")
	if sub == "grep" {
		// git grep's pattern is text, as grep's is.
		_, patterns := grepRule(rest)
		for k := range patterns {
			text[i+1+k] = true
		}
	}
	return "", text
}

// gitSub checks the dangerous forms of allowed git subcommands.
func gitSub(sub string, args []string) string {
	has := func(flags ...string) bool {
		return slices.ContainsFunc(args, func(a string) bool {
			return slices.Contains(flags, a) || anyLongOption(a, flags...) != ""
		})
	}
	// short reports whether a cluster of short options (-fdx) holds c.
	short := func(c byte) bool {
		return slices.ContainsFunc(args, func(a string) bool {
			return len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], c) >= 0
		})
	}
	switch sub {
	case "push":
		if has("--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "--prune") || short('f') || short('d') ||
			slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "+") || strings.HasPrefix(a, ":") }) {
			return "git push that forces, deletes or mirrors rewrites what others have; push without it, or ask the user"
		}
	case "reset":
		if has("--hard", "--merge", "--keep") {
			return "git reset --hard throws away uncommitted work; use git stash, or ask the user"
		}
	case "grep":
		if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-O") }) {
			return "git grep -O opens the files in a program of its choice; search without it"
		}
	case "checkout":
		// git checkout FILE throws a file's changes away, and the guard
		// cannot tell a file from a branch; git switch only switches.
		return "git checkout overwrites uncommitted changes in the files it is given, and a branch name cannot be told from a file; use git switch BRANCH (git switch -c NAME for a new one), or ask the user"
	case "switch":
		if has("--force", "--discard-changes") || short('f') {
			return "git switch --force throws away uncommitted work; switch without it"
		}
	case "restore":
		if !has("--staged", "-S") || has("--worktree", "-W") {
			return "git restore of the working tree throws away uncommitted changes; only git restore --staged (unstage) is allowed"
		}
	case "branch":
		if has("-D", "--force", "-M", "-C") || short('f') {
			return "git branch -D, -f, -M and -C force changes that can lose commits; use -d, or ask the user"
		}
	case "tag":
		if has("--delete", "--force") || short('d') || short('f') {
			return "git tag that deletes or moves tags is not allowed; ask the user"
		}
	case "stash":
		if len(args) > 0 && (args[0] == "drop" || args[0] == "clear" || args[0] == "pop") {
			return "git stash " + args[0] + " can lose stashed work; use git stash apply, or ask the user"
		}
		if has("-u", "--include-untracked", "-a", "--all") || short('u') || short('a') {
			return "git stash -u and -a put untracked and ignored files, secrets included, into a commit that git stash show would print; stash without them"
		}
	case "add":
		if has("-A", "--all", "--no-ignore-removal", "-u", "--update", "-f", "--force", "--pathspec-from-file") || short('A') || short('u') || short('f') ||
			slices.ContainsFunc(operands(args), func(a string) bool {
				return a == "." || a == "./" || strings.HasPrefix(a, ":") || pattern.HasMeta(a, 0)
			}) {
			return "git add of the whole tree (-A, --all, -u, ., a pattern) or of ignored files (-f) would stage secrets the workspace keeps from the model, where git diff --cached and git show would print them; add the files by name (git add main.go util.go)"
		}
	case "init":
		if has("--separate-git-dir", "--template", "--bare") {
			return "git init with --separate-git-dir, --template or --bare makes a repository, or takes hooks and configuration, from a place nothing protects; run git init without it, or ask the user"
		}
	case "rm":
		if has("--force") || short('f') {
			return "git rm -f deletes uncommitted work; ask the user"
		}
	case "reflog":
		if len(args) > 0 && (args[0] == "expire" || args[0] == "delete") {
			return "git reflog " + args[0] + " removes the history that recovers lost work"
		}
	case "remote":
		if len(args) > 0 && args[0] != "-v" && args[0] != "show" && args[0] != "get-url" {
			return "git remote may only be listed (git remote -v, show, get-url); ask the user to change remotes"
		}
	}
	return ""
}

// operands returns the arguments that are not options: those that do
// not start with "-", and all after "--".
func operands(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if !strings.HasPrefix(a, "-") {
			out = append(out, a)
		}
	}
	return out
}

// goAllowed are the go subcommands that may run.
var goAllowed = []string{"build", "test", "vet", "fmt", "list", "version", "env", "mod", "doc", "run", "help", "work", "fix"}

func goRule(args []string) (string, map[int]bool) {
	if len(args) == 0 {
		return "", nil
	}
	if args[0] == "-C" || strings.HasPrefix(args[0], "-C=") {
		return "go -C runs in another folder; run go from the workspace root with a package path (./sub/...)", nil
	}
	sub := args[0]
	switch {
	case sub == "generate":
		return "go generate runs the commands written in //go:generate lines, which the guard cannot check; run those commands directly", nil
	case sub == "install" || sub == "get" || sub == "clean" || sub == "tool" || sub == "telemetry":
		return "go " + sub + " changes things outside the workspace (installed programs, caches, settings); ask the user", nil
	case !slices.Contains(goAllowed, sub):
		return fmt.Sprintf("go %s is not allowed (allowed: %s)", sub, strings.Join(goAllowed, ", ")), nil
	case sub == "env" && slices.ContainsFunc(args, func(a string) bool { return a == "-w" || a == "-u" }):
		return "go env -w and -u change the user's Go settings; ask the user", nil
	}
	if why := goFlags(args[1:]); why != "" {
		return why, nil
	}
	text := make(map[int]bool)
	valuesAfter(args, text, "-run", "-bench", "-skip", "-tags", "-ldflags", "-gcflags", "-asmflags", "-list", "-fuzz")
	return "", text
}

// goFlags refuses the go flags that choose a program to run, and the
// flags inside -ldflags, -gcflags and -asmflags that write files.
func goFlags(args []string) string {
	for i, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			continue
		}
		switch name {
		case "toolexec", "exec":
			return "go -" + name + " runs another program around the build or the tests, which the guard cannot check; run go without it"
		case "ldflags", "gcflags", "asmflags":
			if !hasValue && i+1 < len(args) {
				value = args[i+1]
			}
			if why := toolFlags(name, value); why != "" {
				return why
			}
		}
		if strings.Contains(a, "extld") {
			return "-extld chooses the linker program; build without it"
		}
	}
	return ""
}

// toolWrites are the flags of the compiler, assembler and linker that
// write a file they name.
var toolWrites = []string{"o", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "traceprofile", "trace", "bench", "asmhdr", "linkobj", "json"}

// toolFlags refuses, in value, the value of the go flag -name (ldflags,
// gcflags or asmflags), the flags that make the tool write a file: the
// guard checks the go command's own -o, not the linker's.
func toolFlags(name, value string) string {
	for _, f := range strings.Fields(value) {
		f = strings.Trim(f, `'"`)
		if i := strings.IndexByte(f, '='); i > 0 && f[0] != '-' {
			f = strings.Trim(f[i+1:], `'"`) // a package pattern: all=-o
		}
		if !strings.HasPrefix(f, "-") {
			continue
		}
		flag, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if slices.Contains(toolWrites, flag) {
			return fmt.Sprintf("-%s inside -%s makes the Go tools write a file the guard does not check; use the go command's own flags instead (go build -o PATH, go test -cpuprofile PATH), which it checks", flag, name)
		}
	}
	return ""
}

var cargoAllowed = []string{"build", "b", "check", "c", "test", "t", "bench", "clippy", "fmt", "doc", "d", "tree", "metadata", "run", "r", "version", "help", "locate-project", "pkgid", "verify-project", "--version", "-V", "--help", "-h"}

func cargoRule(args []string) (string, map[int]bool) {
	for _, a := range args {
		if longOption(a, "--config") || a == "-Z" {
			return "cargo " + a + " can choose the programs cargo runs; run cargo without it", nil
		}
	}
	if len(args) > 0 && !slices.Contains(cargoAllowed, args[0]) {
		return fmt.Sprintf("cargo %s is not allowed (allowed: %s)", args[0], strings.Join(cargoAllowed, ", ")), nil
	}
	return "", nil
}

// pythonModules are the modules python -m may run.
var pythonModules = []string{"pytest", "unittest", "py_compile", "compileall", "doctest", "json.tool"}

func pythonRule(args []string) (string, map[int]bool) {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-V") {
		return "", nil
	}
	if len(args) >= 2 && args[0] == "-m" && slices.Contains(pythonModules, args[1]) {
		return "", nil
	}
	return "python may only run tests and checks (python3 -m " + strings.Join(pythonModules, ", -m ") + "); running scripts or -c code is not allowed", nil
}

func envRule(args []string) (string, map[int]bool) {
	if len(args) > 0 {
		return "env with arguments runs a command or changes the environment, which the guard does not check; put NAME=value before the command instead", nil
	}
	return "", nil
}

func dateRule(args []string) (string, map[int]bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if longOption(a, "--set") {
			return "date --set sets the clock; print the date without it", nil
		}
		if len(a) < 2 || a[0] != '-' || a[1] == '-' {
			continue
		}
		// A cluster of short options: -s anywhere in it sets the clock;
		// -d, -f and -r take the rest of it, or the next argument, as
		// their value, and -I the rest of it.
	cluster:
		for j := 1; j < len(a); j++ {
			switch a[j] {
			case 's':
				return "date -s sets the clock; print the date without it", nil
			case 'd', 'f', 'r':
				if j == len(a)-1 {
					i++
				}
				break cluster
			case 'I':
				break cluster
			}
		}
	}
	return "", nil
}

func sortRule(args []string) (string, map[int]bool) {
	for _, a := range args {
		if longOption(a, "--compress-program") {
			return "sort --compress-program runs another program; sort without it", nil
		}
	}
	return "", nil
}

// jqModules are the words of a jq program that read files its command
// line does not name: import and include load modules (.jq files) and
// JSON data files from a search path (-L, ~/.jq, the program's folder),
// and modulemeta loads a module to print its metadata.
var jqModules = []string{"import", "include", "modulemeta"}

// jqRule refuses jq programs that read files the command line does not
// name: those with a word of jqModules, wherever it is (a field .import
// is not one), and those read from a file (-f, --from-file), which the
// guard does not read. The files a jq command names (inputs,
// --rawfile, --slurpfile) are checked as paths.
func jqRule(args []string) (string, map[int]bool) {
	for _, a := range args {
		if a == "--" {
			break
		}
		if longOption(a, "--from-file") || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "f") {
			return "jq -f reads its program from a file, whose imports of other files the guard cannot check; give the program on the command line", nil
		}
	}
	for _, a := range args {
		if w := jqModuleWord(a); w != "" {
			return "jq " + w + " reads modules and data files the command line does not name, which the guard cannot check; give jq the files to read as inputs, or with --slurpfile NAME FILE", nil
		}
	}
	return "", jqText(args)
}

// jqText marks what of a jq command line is text, not a path: the
// program (its first operand), the names and values of --arg and
// --argjson, the names of --slurpfile and --rawfile (their files are
// paths), --indent's number, and the operands after the program when
// --args or --jsonargs makes them values. A program of "." is not the
// workspace.
func jqText(args []string) map[int]bool {
	text := make(map[int]bool)
	program, values, operands := false, false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case operands || a == "-" || !strings.HasPrefix(a, "-"):
			if !program || values {
				text[i] = true
			}
			program = true
		case a == "--":
			operands = true
		case a == "--arg" || a == "--argjson":
			text[i+1], text[i+2] = true, true
			i += 2
		case a == "--slurpfile" || a == "--rawfile":
			text[i+1] = true
			i += 2
		case a == "--indent":
			text[i+1] = true
			i++
		case a == "-L":
			i++
		case a == "--args" || a == "--jsonargs":
			values = true
		}
	}
	for i := range text {
		if i >= len(args) {
			delete(text, i)
		}
	}
	return text
}

// jqModuleWord returns the first word of jqModules that s holds as a
// word of jq (not after ".", "$" or a letter, digit or "_", nor before
// one), or "".
func jqModuleWord(s string) string {
	for _, w := range jqModules {
		for i := 0; ; {
			k := strings.Index(s[i:], w)
			if k < 0 {
				break
			}
			start, end := i+k, i+k+len(w)
			before := start > 0 && (isIdent(s[start-1]) || s[start-1] == '.' || s[start-1] == '$')
			after := end < len(s) && isIdent(s[end])
			if !before && !after {
				return w
			}
			i = end
		}
	}
	return ""
}

func isIdent(b byte) bool { return isAlnum(b) || b == '_' }
