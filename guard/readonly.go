package guard

import (
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// ReadOnly reports whether every command of line only reads: each is a
// program known to write nothing (ls, cat, grep, git status, git log, ...),
// none has an option that makes it write or run something else, and no
// redirection writes a file (>/dev/null aside). Whatever it does not
// understand counts as a write, so a false answer means "may write", not
// "writes".
//
// ReadOnly says nothing of whether line may run: that is Check's job. It
// lets the turn report leave out of "changed" a command that only looked.
func ReadOnly(line string) bool {
	if strings.TrimSpace(line) == "" || len(line) > maxCommand || strings.IndexByte(line, 0) >= 0 {
		return false
	}
	file, err := parse(line)
	if err != nil {
		return false
	}
	return (&Line{src: line, file: file}).ReadOnly()
}

// ReadOnly is the package's ReadOnly of the line l holds, parsed already.
func (l *Line) ReadOnly() bool {
	line, file := l.src, l.file
	// First anything whose effect the text does not show; then, with the
	// words known to be plain, each command and redirection.
	reads := true
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ParamExp, *syntax.ArithmExp, *syntax.ArithmCmd,
			*syntax.LetClause, *syntax.DeclClause, *syntax.CoprocClause, *syntax.FuncDecl, *syntax.ExtGlob:
			reads = false
		case *syntax.Stmt:
			reads = !n.Background && !n.Coprocess && !n.Disown
		}
		return reads
	})
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			reads = reads && readsOnly(n) && !hdocJoins(line, n)
		case *syntax.TestClause:
			reads = reads && testClauseRefusal(n, func(w *syntax.Word) (string, bool) {
				v, err := expand.Literal(nil, w)
				return v, err == nil
			}) == ""
		case *syntax.CallExpr:
			reads = reads && onlyReads(n)
		}
		return reads
	})
	return reads
}

// readsOnly reports whether a redirection writes no file.
func readsOnly(rd *syntax.Redirect) bool {
	switch rd.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	case syntax.DplIn, syntax.DplOut:
		lit := rd.Word.Lit()
		return lit == "-" || isDigits(lit)
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
		return rd.Word.Lit() == "/dev/null"
	}
	return false
}

// onlyReads reports whether one simple command only reads.
func onlyReads(ce *syntax.CallExpr) bool {
	if len(ce.Args) == 0 {
		return false // assignments alone change the shell
	}
	words := make([]string, len(ce.Args))
	for i, w := range ce.Args {
		s, err := expand.Literal(nil, w)
		if err != nil {
			return false
		}
		words[i] = s
	}
	rule, ok := readers()[words[0]]
	return ok && (rule == nil || rule(words[1:]))
}

// readers are the commands that only read, each with the check of its
// arguments when some of them would write or run another program (nil when
// none does).
var readers = sync.OnceValue(func() map[string]func(args []string) bool {
	return map[string]func(args []string) bool{
		"ls": nil, "cat": nil, "head": nil, "tail": nil, "wc": nil, "grep": nil, "egrep": nil, "fgrep": nil,
		"cut": nil, "tr": nil, "diff": nil, "cmp": nil, "comm": nil, "stat": nil, "du": nil,
		"basename": nil, "dirname": nil, "realpath": nil, "readlink": nil, "nl": nil, "od": nil, "hexdump": nil,
		"md5sum": nil, "sha1sum": nil, "sha256sum": nil, "sha512sum": nil, "cksum": nil, "column": nil, "fold": nil,
		"paste": nil, "join": nil, "tac": nil, "rev": nil, "strings": nil, "jq": nil, "which": nil, "whoami": nil,
		"uname": nil, "seq": nil, "pwd": nil, "echo": nil, "printf": nil, "true": nil, "false": nil, "printenv": nil,
		"test": func(args []string) bool { return testRefusal("test", args) == "" },
		"[":    func(args []string) bool { return testRefusal("[", args) == "" },
		"rg":   without("--pre"),
		"tree": without("-o"),
		"file": without("-C", "--compile"),
		"date": without("-s", "--set"),
		"sort": without("-o", "--output", "--compress-program"),
		"env":  func(args []string) bool { return len(args) == 0 },
		"uniq": func(args []string) bool { // a second operand is written
			return len(operands(args))+strings.Count(" "+strings.Join(args, " ")+" ", " - ") <= 1
		},
		"find": without("-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"),
		"git":  gitReads,
		"go":   goReads,
	}
})

// without returns a check that refuses the options given: a long one
// alone or with "=value", a one-letter one also inside a cluster (-ro) or
// with its value glued on (-ofile).
func without(options ...string) func([]string) bool {
	return func(args []string) bool {
		for _, a := range args {
			name, _, _ := strings.Cut(a, "=")
			if slices.Contains(options, name) || anyLongOption(a, options...) != "" {
				return false
			}
			short := len(a) > 1 && a[0] == '-' && a[1] != '-'
			for _, o := range options {
				if short && len(o) == 2 && strings.IndexByte(a[1:], o[1]) >= 0 {
					return false
				}
			}
		}
		return true
	}
}

// gitReading are the git subcommands that only read, whatever their
// arguments (but those checked by gitReads).
var gitReading = []string{"status", "log", "diff", "show", "blame", "ls-files", "ls-tree", "rev-parse", "grep",
	"shortlog", "describe", "cat-file", "rev-list", "show-ref", "for-each-ref", "count-objects", "merge-base",
	"name-rev", "whatchanged", "version", "help", "diff-files", "diff-index", "diff-tree"}

func gitReads(args []string) bool {
	i := 0
	for i < len(args) && (args[i] == "--no-pager" || args[i] == "-P") {
		i++
	}
	if i == len(args) {
		return true // git alone prints its help
	}
	sub, rest := args[i], args[i+1:]
	for _, a := range rest {
		// --output writes a file; --ext-diff, -O and --open-files-in-pager
		// run another program.
		if anyLongOption(a, "--output", "--ext-diff", "--open-files-in-pager") != "" || strings.HasPrefix(a, "-O") {
			return false
		}
	}
	switch sub {
	case "branch":
		return allIn(rest, "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--list", "--show-current")
	case "remote":
		return allIn(rest, "-v", "--verbose")
	case "reflog":
		return len(rest) == 0 || rest[0] == "show"
	case "stash":
		return len(rest) > 0 && (rest[0] == "list" || rest[0] == "show")
	case "tag":
		return allIn(rest, "-l", "--list")
	}
	return slices.Contains(gitReading, sub)
}

func allIn(args []string, allowed ...string) bool {
	for _, a := range args {
		if !slices.Contains(allowed, a) {
			return false
		}
	}
	return true
}

func goReads(args []string) bool {
	if len(args) == 0 {
		return true
	}
	switch args[0] {
	case "version", "list", "doc", "help":
		return true
	case "env":
		return !slices.Contains(args, "-w") && !slices.Contains(args, "-u")
	}
	return false
}
