package guard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"

	"harness/fence"
)

// Bounds of what the guard reads.
const (
	maxCommand = 16 << 10 // bytes in a command line
	maxFields  = 4096     // words one command or redirection expands to
	maxText    = 80       // bytes of a refused part quoted in a refusal
	// maxEntries bounds the directory entries the globs of one line may
	// read, so that no pattern keeps the guard busy: "*/*/*/..." thirty
	// deep reads each folder of the workspace once per level.
	maxEntries = 100_000
	// maxCluster bounds the letters of a short-option cluster (-xvf)
	// before a glued value, which the guard tries as paths one by one.
	maxCluster = 64
)

// Line is a command line parsed once, to be checked (Policy.CheckLine),
// asked whether it only reads (ReadOnly), and run as the text that was
// checked (String).
type Line struct {
	src  string
	file *syntax.File
}

// String returns the command line as it was given: the text that was
// parsed, and that runs.
func (l *Line) String() string { return l.src }

// Parse parses command as bash, or returns a *Refusal saying why it
// cannot be a command: it is empty, holds a NUL byte, is too long or is
// not bash. Each call runs the shell parser once (Parsed counts them).
func (p *Policy) Parse(command string) (*Line, error) {
	switch {
	case strings.TrimSpace(command) == "":
		return nil, &Refusal{Reason: "the command is empty; give a command line such as: go test ./..."}
	case strings.IndexByte(command, 0) >= 0:
		return nil, &Refusal{Reason: "the command holds a NUL byte, which no shell command can take; remove it"}
	case len(command) > maxCommand:
		return nil, &Refusal{Reason: fmt.Sprintf("the command is %d bytes long, more than the %d allowed; split it into shorter commands", len(command), maxCommand)}
	}
	p.parsed.Add(1)
	file, err := parse(command)
	if err != nil {
		return nil, parseRefusal(err)
	}
	return &Line{src: command, file: file}, nil
}

// Parsed returns how many command lines p has parsed: a call of the bash
// tool, checked, asked about and run, is parsed once.
func (p *Policy) Parsed() int64 { return p.parsed.Load() }

// parse runs the shell parser on a bash command line.
func parse(command string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
}

// Check returns nil when command may run in ws, or a *Refusal saying what
// was refused and why. It parses command and checks it as CheckLine does.
func (p *Policy) Check(ctx context.Context, command string, ws Workspace) error {
	_, err := p.Reads(ctx, command, ws)
	return err
}

// Reads returns what CheckLine returns of command, parsed.
func (p *Policy) Reads(ctx context.Context, command string, ws Workspace) ([]string, error) {
	l, err := p.Parse(command)
	if err != nil {
		return nil, err
	}
	return p.CheckLine(ctx, l, ws)
}

// CheckLine checks l, returning a *Refusal saying what was refused and
// why when it may not run in ws. It stops, refusing, when ctx is done, or
// after ten seconds: the check reads the workspace's folders to match
// globs, and runs under the deadline of the call that asked for it, and
// its own.
//
// When l may run, CheckLine returns the paths, as the command line gives
// them (relative ones taken from the root), whose contents it may read or
// pass on: the path arguments of every command but those that only look
// at names (ls, stat, find, wc, ...), files read with <, and the paths of
// git's REV:path arguments. A glued option value counts at each place it
// may start, so some paths may be none. The approval step checks the text
// of those that are files, since a command can send a file to the model
// transformed (rev, xxd, tr) past any check of its output.
func (p *Policy) CheckLine(ctx context.Context, l *Line, ws Workspace) ([]string, error) {
	r, err := p.CheckReads(ctx, l, ws)
	return r.Paths, err
}

// Reads is what a command line the guard let run may read.
type Reads struct {
	// Paths are the paths CheckLine returns.
	Paths []string
	// History holds, when the line prints the contents of files from
	// git's history or index (git log -p, show, diff, grep HEAD, cat-file
	// -p, ...), the pathspecs that limit what it prints, as paths from
	// the workspace root: "." when nothing limits it, which stands for
	// every path history holds. A raw object's id counts as every path.
	// Covers says whether one of them reaches a path.
	History []string
}

// CheckReads checks l as CheckLine does, returning what it may read.
func (p *Policy) CheckReads(ctx context.Context, l *Line, ws Workspace) (Reads, error) {
	c, err := p.check(ctx, l, ws)
	if err != nil {
		return Reads{}, err
	}
	return Reads{Paths: c.reads, History: c.historyReads}, nil
}

func (p *Policy) check(ctx context.Context, l *Line, ws Workspace) (*checker, error) {
	command, file := l.src, l.file
	outer := ctx
	if p.limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.limit)
		defer cancel()
	}
	c := &checker{ctx: ctx, outer: outer, policy: p, ws: ws, src: command, funcs: make(map[string]bool)}
	c.cfg = c.config()
	if r := c.syntax(file); r != nil {
		return nil, r
	}
	if r := c.commands(file, false); r != nil {
		return nil, r
	}
	if r := c.alone(file); r != nil {
		return nil, r
	}
	return c, nil
}

func parseRefusal(err error) *Refusal {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return &Refusal{Line: int(pe.Pos.Line()), Col: int(pe.Pos.Col()), Reason: "bash cannot parse this: " + pe.Text + "; fix the syntax"}
	}
	var le syntax.LangError
	if errors.As(err, &le) {
		return &Refusal{Line: int(le.Pos.Line()), Col: int(le.Pos.Col()), Reason: le.Feature + " is not bash; write plain bash"}
	}
	return &Refusal{Reason: "the command cannot be parsed: " + err.Error()}
}

// checker checks one command line.
type checker struct {
	ctx    context.Context // the caller's, bounded by the policy's limit
	outer  context.Context // the caller's
	policy *Policy
	ws     Workspace
	src    string
	cfg    *expand.Config
	// funcs holds the functions the line defines; calling them is allowed
	// since their bodies are checked like the rest of the line.
	funcs map[string]bool
	// entries counts the directory entries globs have read; halt is set
	// when they reached maxEntries or ctx ended, and stops the check.
	entries int
	halt    error
	// rewrites is the first command of the line that rewrites the working
	// tree, which must then be alone on the line.
	rewrites *syntax.CallExpr
	// reads are the paths whose contents the line may read (Reads).
	reads []string
	// remoteNames are the remotes the repository configures, once read.
	remoteNames []string
	// historyReads are the pathspecs of what the line prints of files
	// from git's history or index (Reads.History).
	historyReads []string
}

// maxReads bounds the paths Reads returns.
const maxReads = 1024

// read notes that the line may read the contents of the paths.
func (c *checker) read(paths ...string) {
	for _, p := range paths {
		if len(c.reads) < maxReads && p != "" && !slices.Contains(c.reads, p) {
			c.reads = append(c.reads, p)
		}
	}
}

// historyRead notes that the line prints what git's history or index
// holds under the pathspecs specs; "." stands for every path, and takes
// the place of the others, as it does of more than maxReads.
func (c *checker) historyRead(specs ...string) {
	for _, s := range specs {
		switch {
		case slices.Contains(c.historyReads, everything):
			return
		case s == everything || len(c.historyReads) == maxReads:
			c.historyReads = []string{everything}
			return
		case !slices.Contains(c.historyReads, s):
			c.historyReads = append(c.historyReads, s)
		}
	}
}

// errTooManyEntries halts a check whose globs read too many entries.
var errTooManyEntries = fmt.Errorf("the patterns read more than %d folder entries", maxEntries)

// errLinkedFolder is what reading a folder through a symlink gives globs:
// a pattern never descends a link, which could lead out or loop.
var errLinkedFolder = errors.New("a symlinked folder is not searched")

// refuse returns the refusal of node for reason.
func (c *checker) refuse(node syntax.Node, reason string) *Refusal {
	pos, end := node.Pos(), node.End()
	text := ""
	if pos.IsValid() && end.IsValid() && int(end.Offset()) <= len(c.src) && pos.Offset() < end.Offset() {
		text = c.src[pos.Offset():end.Offset()]
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[:i] + " ..."
		}
		if len(text) > maxText {
			text = text[:maxText] + " ..."
		}
	}
	return &Refusal{Line: int(pos.Line()), Col: int(pos.Col()), Text: text, Reason: reason}
}

// syntax refuses the constructs that make what runs differ from the text
// checked, wherever they are, and notes the functions the line defines.
func (c *checker) syntax(file *syntax.File) *Refusal {
	var r *Refusal
	syntax.Walk(file, func(n syntax.Node) bool {
		if r != nil {
			return false
		}
		r = c.construct(n)
		return r == nil
	})
	return r
}

func (c *checker) construct(n syntax.Node) *Refusal {
	switch n := n.(type) {
	case *syntax.Stmt:
		switch {
		case n.Background, n.Disown:
			return c.refuse(n, "background jobs (&) are not allowed: they would outlive the check and the time limit; run the command in the foreground")
		case n.Coprocess:
			return c.refuse(n, "coprocesses are not allowed; run the command in the foreground")
		}
	case *syntax.CmdSubst:
		return c.refuse(n, "command substitution ($(...) or `...`) is not allowed: its output would become a command or argument the guard never saw; run the inner command on its own first")
	case *syntax.ProcSubst:
		return c.refuse(n, "process substitution (<(...) or >(...)) is not allowed; run the inner command on its own, or write its output to a file in the workspace")
	case *syntax.ParamExp:
		return c.refuse(n, "variable expansion ($NAME) is not allowed: the guard cannot see the value; write the value itself")
	case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop:
		return c.refuse(n, "arithmetic is not allowed; write the numbers out")
	case *syntax.DeclClause:
		return c.refuse(n, n.Variant.Value+" is not allowed: it changes shell variables that later commands depend on; put NAME=value before a single command instead")
	case *syntax.CoprocClause:
		return c.refuse(n, "coproc is not allowed; run the command in the foreground")
	case *syntax.ExtGlob:
		return c.refuse(n, "extended globs are not allowed; use plain * and ? patterns or write the names out")
	case *syntax.ForClause:
		if n.Select {
			return c.refuse(n, "select waits for input that never comes; write the commands out")
		}
	case *syntax.FuncDecl:
		return c.funcDecl(n)
	case *syntax.Word:
		return c.word(n)
	}
	return nil
}

// word refuses the expansions that expand.Fields would perform differently
// from bash or unboundedly: tildes and braces.
func (c *checker) word(w *syntax.Word) *Refusal {
	for i, part := range w.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok {
			continue
		}
		v := lit.Value
		if i == 0 && strings.HasPrefix(v, "~") || strings.Contains(v, "=~") || strings.Contains(v, ":~") {
			return c.refuse(w, "~ names a home folder outside the workspace; use paths inside the workspace (quote a literal ~)")
		}
	}
	braces := *w // SplitBraces replaces the parts of the word it is given
	if syntax.SplitBraces(&braces) && expands(&braces) {
		return c.refuse(w, "brace expansion ({a,b} or {1..9}) is not allowed; write each word out, or quote the braces")
	}
	return nil
}

// expands reports whether a word split by syntax.SplitBraces holds a brace
// expansion that makes more than one word; {} and {x} stay as written.
func expands(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if b, ok := n.(*syntax.BraceExp); ok && (b.Sequence || len(b.Elems) > 1) {
			found = true
		}
		return !found
	})
	return found
}

func (c *checker) funcDecl(f *syntax.FuncDecl) *Refusal {
	if f.Name == nil {
		return c.refuse(f, "a function needs a name")
	}
	name := f.Name.Value
	if c.policy.allow[name] || isKnown(name) {
		return c.refuse(f, fmt.Sprintf("a function may not be named %s, which would hide the command of that name; choose another name", name))
	}
	c.funcs[name] = true
	return nil
}

// commands checks every simple command, redirection and loop list in node.
// Inside a function body, calls to the line's functions are refused, so no
// function can call itself.
func (c *checker) commands(node syntax.Node, inFunc bool) *Refusal {
	var r *Refusal
	syntax.Walk(node, func(n syntax.Node) bool {
		if r != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.FuncDecl:
			if n != node {
				r = c.commands(n.Body, true)
				return false
			}
		case *syntax.CallExpr:
			r = c.call(n, inFunc)
		case *syntax.Redirect:
			r = c.redirect(n)
		case *syntax.ForClause:
			if wi, ok := n.Loop.(*syntax.WordIter); ok {
				var items []string
				if items, r = c.expand(n, wi.Items); r == nil {
					r = c.paths(n, items, nil)
				}
			}
		case *syntax.TestClause:
			r = c.testWords(n)
		}
		return r == nil
	})
	return r
}

// call checks one simple command: its assignments, its name and its
// arguments.
func (c *checker) call(ce *syntax.CallExpr, inFunc bool) *Refusal {
	for _, a := range ce.Assigns {
		if r := c.assign(ce, a); r != nil {
			return r
		}
	}
	if len(ce.Args) == 0 {
		return nil
	}
	fields, r := c.expand(ce, ce.Args)
	if r != nil {
		return r
	}
	if len(fields) == 0 || fields[0] == "" {
		return c.refuse(ce, "the command name is empty; write the command by name")
	}
	name, args := fields[0], fields[1:]
	if strings.Contains(name, "/") {
		return c.refuse(ce, fmt.Sprintf("run commands by name, not by path (%s): a program in the workspace or elsewhere is not on the allowlist", name))
	}
	if c.funcs[name] {
		if inFunc {
			return c.refuse(ce, fmt.Sprintf("a function may not call %s, a function of this line: that could recurse without end; call commands only", name))
		}
		return c.paths(ce, args, nil)
	}
	if why := c.policy.refusal(name); why != "" {
		return c.refuse(ce, why)
	}
	var text map[int]bool
	if rule := rules()[name]; rule != nil {
		why, t := rule(args)
		if why != "" {
			return c.refuse(ce, why)
		}
		text = t
	}
	if rewritesTree(name, args) && c.rewrites == nil {
		c.rewrites = ce
	}
	if name == "git" {
		if r := c.git(ce, args, text); r != nil {
			return r
		}
	}
	if why := filesFrom(name, args); why != "" {
		return c.refuse(ce, why)
	}
	if searchesRoot(name, args) {
		c.read(".")
	}
	c.read(docReads(name, args, c.isDir)...)
	if !namesOnly()[name] || readsContents(name, args) {
		for i, arg := range args {
			if !text[i] {
				c.read(candidates(arg)...)
			}
		}
	}
	return c.paths(ce, args, text)
}

// alone refuses a line that runs a command rewriting the working tree
// together with anything else. The guard checks every path of a line
// before any of it runs: once git switch has put a symlink where a folder
// was, a later "touch dir/x" on the same line writes where the link
// leads, which the check never saw.
func (c *checker) alone(file *syntax.File) *Refusal {
	if c.rewrites == nil {
		return nil
	}
	if len(file.Stmts) == 1 && file.Stmts[0].Cmd == syntax.Command(c.rewrites) && !file.Stmts[0].Negated {
		return nil
	}
	return c.refuse(c.rewrites, "this command rewrites files of the working tree, so paths the guard checked on the same line may lead elsewhere once it has run; run it alone, as a command line of its own, and the other commands in another call")
}

// assign checks NAME=value, before a command or on its own.
func (c *checker) assign(ce *syntax.CallExpr, a *syntax.Assign) *Refusal {
	if a.Name == nil || a.Array != nil || a.Index != nil {
		return c.refuse(ce, "array assignments are not allowed")
	}
	name := a.Name.Value
	if !safeVars()[name] {
		return c.refuse(ce, fmt.Sprintf("setting %s is not allowed: variables can change which programs run and what they load; allowed: %s", name, strings.Join(sortedKeys(safeVars()), ", ")))
	}
	if a.Value == nil {
		return nil
	}
	v, err := expand.Literal(c.cfg, a.Value)
	if err != nil {
		return c.refuse(ce, "cannot read the value of "+name+": "+err.Error())
	}
	if name != "GOFLAGS" {
		return nil
	}
	// GOFLAGS holds flags for every go command that follows: each is
	// checked as the same flag on the command line would be.
	flags := strings.Fields(v)
	if why := goFlags(flags); why != "" {
		return c.refuse(ce, why)
	}
	return c.paths(ce, flags, nil)
}

// redirect checks the file a redirection reads or writes.
func (c *checker) redirect(rd *syntax.Redirect) *Refusal {
	if rd.N != nil && !isDigits(rd.N.Value) {
		return c.refuse(rd, "{name}> redirections set a variable; use a plain file descriptor number")
	}
	write := true
	switch rd.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		if hdocJoins(c.src, rd) {
			return c.refuse(rd, hdocReason)
		}
		return nil // their text was checked with the rest of the line
	case syntax.DplIn, syntax.DplOut:
		if lit := rd.Word.Lit(); lit == "-" || isDigits(lit) {
			return nil // duplicates or closes a descriptor, as in 2>&1
		}
		if rd.Op == syntax.DplIn {
			return c.refuse(rd, "<& takes a file descriptor number; use < to read a file")
		}
	case syntax.RdrIn:
		write = false
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
	default:
		return c.refuse(rd, "this redirection is not bash; use >, >>, < or 2>&1")
	}
	fields, r := c.expand(rd, []*syntax.Word{rd.Word})
	if r != nil {
		return r
	}
	if len(fields) != 1 {
		return c.refuse(rd, "a redirection needs exactly one file; the pattern matched "+fmt.Sprint(len(fields)))
	}
	if err := c.checkPath(fields[0], write); err != nil {
		return c.refuse(rd, err.Error())
	}
	if rd.Op == syntax.RdrIn || rd.Op == syntax.RdrInOut {
		c.read(fields[0])
	}
	return nil
}

// testWords checks the words of a [[ ... ]] test as paths, since a test can
// tell whether a file outside the workspace exists.
func (c *checker) testWords(tc *syntax.TestClause) *Refusal {
	if why := testClauseRefusal(tc, func(w *syntax.Word) (string, bool) {
		v, err := expand.Literal(c.cfg, w)
		return v, err == nil
	}); why != "" {
		return c.refuse(tc, why)
	}
	var r *Refusal
	syntax.Walk(tc.X, func(n syntax.Node) bool {
		w, ok := n.(*syntax.Word)
		if !ok || r != nil {
			return r == nil
		}
		v, err := expand.Literal(c.cfg, w)
		if err != nil {
			r = c.refuse(w, "cannot read this word: "+err.Error())
			return false
		}
		if err := c.checkPath(v, false); err != nil {
			r = c.refuse(w, err.Error())
		}
		return false
	})
	return r
}

// paths checks the arguments of a command that may name files: each
// argument, the value after = in NAME=VALUE and --opt=VALUE, and the value
// glued to a short option (-I../x). Arguments text marks are free text.
func (c *checker) paths(node syntax.Node, args []string, text map[int]bool) *Refusal {
	for i, arg := range args {
		if text[i] {
			continue
		}
		if c.ctx.Err() != nil {
			return c.halted(node, c.ctx.Err())
		}
		for _, p := range candidates(arg) {
			if err := c.checkPath(p, false); err != nil {
				return c.refuse(node, err.Error())
			}
		}
	}
	return nil
}

// candidates returns the paths an argument may name: the argument; the
// value after its first = (NAME=VALUE, --opt=VALUE); for a cluster of
// short options, every place a glued value may start, since the guard
// cannot know which letters take one (sort -uoFILE is -u -o FILE, and
// -xoPATH may be -x -o PATH); and the path of a file: URL, which git
// reads and writes like any other (git fetch file:///elsewhere).
func candidates(arg string) []string {
	out := []string{arg}
	if i := strings.IndexByte(arg, '='); i >= 0 {
		out = append(out, arg[i+1:])
	}
	if len(arg) > 2 && arg[0] == '-' && arg[1] != '-' {
		for k := 2; k < len(arg) && k <= maxCluster+1 && isAlnum(arg[k-1]); k++ {
			out = append(out, arg[k:])
		}
	}
	n := len(out)
	for _, p := range out[:n] {
		out = append(out, fileURL(p)...)
	}
	return out
}

// fileURL returns the paths a file: URL may name: what follows file://
// (git takes it as the path), the path after a host name, and both with
// %XX escapes decoded; nil when s is no file: URL.
func fileURL(s string) []string {
	if len(s) < len("file:") || !strings.EqualFold(s[:len("file:")], "file:") {
		return nil
	}
	rest := s[len("file:"):]
	paths := []string{rest}
	if r, ok := strings.CutPrefix(rest, "//"); ok {
		paths = []string{r}
		if i := strings.IndexByte(r, '/'); i > 0 {
			paths = append(paths, r[i:])
		}
	}
	for _, p := range paths { // the paths found so far: range reads the slice once
		if d, err := url.PathUnescape(p); err == nil && d != p {
			paths = append(paths, d)
		}
	}
	return paths
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// devices are the paths outside the workspace any command may use.
var devices = map[string]bool{"/dev/null": true, "/dev/stdin": true, "/dev/stdout": true, "/dev/stderr": true}

func (c *checker) checkPath(p string, write bool) error {
	if p == "" || p == "-" || devices[p] {
		return nil
	}
	return c.ws.CheckPath(p, write)
}

// expand turns words into the fields bash would pass, globs matched in the
// workspace. The words hold no expansion the syntax pass let through, so
// only quotes, escapes and globs are left. A word that is a pattern must
// match files: one that matches nothing stays as written in the guard's
// expansion, but bash may match it differently (it knows classes such as
// [[=e=]] and [[.e.]] that the guard's matcher does not), so the guard
// cannot know what it names.
func (c *checker) expand(node syntax.Node, words []*syntax.Word) ([]string, *Refusal) {
	var fields []string
	for _, w := range words {
		start := len(fields)
		for f, err := range expand.FieldsSeq(c.cfg, w) {
			if c.halt != nil {
				return nil, c.halted(node, c.halt)
			}
			if err != nil {
				return nil, c.refuse(node, "cannot expand the words: "+err.Error())
			}
			if len(fields) == maxFields {
				return nil, c.refuse(node, fmt.Sprintf("the words expand to more than %d arguments; use a narrower pattern", maxFields))
			}
			fields = append(fields, f)
		}
		if c.halt != nil {
			return nil, c.halted(node, c.halt)
		}
		if !isPattern(w) {
			continue
		}
		for _, f := range fields[start:] {
			if c.exists(f) {
				continue
			}
			if err := c.checkPath(f, false); err != nil {
				return nil, c.refuse(node, err.Error())
			}
			return nil, c.refuse(w, "this pattern matches no file, and bash may match it differently than the guard does (as with [[=e=]] or [[:alpha:]] classes), so the guard cannot tell what it names; write the file names out, or quote the pattern if it is not one")
		}
	}
	return fields, nil
}

// isPattern reports whether w holds an unquoted glob pattern (*, ?, or a
// [...] expression), the way bash decides to match it against files.
func isPattern(w *syntax.Word) bool {
	var b strings.Builder
	for _, part := range w.Parts {
		if lit, ok := part.(*syntax.Lit); ok {
			b.WriteString(lit.Value)
		} else {
			b.WriteString("q") // a quoted part holds no pattern character
		}
	}
	return pattern.HasMeta(b.String(), 0)
}

// exists reports whether f, a field taken from the root, names something.
func (c *checker) exists(f string) bool {
	if !filepath.IsAbs(f) {
		f = filepath.Join(c.ws.Root(), f)
	}
	_, err := os.Lstat(f)
	return err == nil
}

// halted is the refusal of a check that stopped before its end.
func (c *checker) halted(node syntax.Node, why error) *Refusal {
	if errors.Is(why, errTooManyEntries) {
		return c.refuse(node, why.Error()+"; use narrower patterns, or name the files")
	}
	if errors.Is(why, context.DeadlineExceeded) && c.outer != nil && c.outer.Err() == nil {
		return c.refuse(node, fmt.Sprintf("checking the command took more than the %v a check may take; nothing was run: split it into shorter commands, or use narrower patterns", c.policy.limit))
	}
	return c.refuse(node, "the check of the command stopped before its end ("+why.Error()+"); nothing was run")
}

func (c *checker) config() *expand.Config {
	return &expand.Config{
		Env: expand.ListEnviron("PWD=" + c.ws.Root()),
		// A folder that cannot be read, or lies outside the workspace,
		// matches nothing: the pattern stays as written, and is then
		// refused as a pattern that matches nothing.
		ReadDir2: c.readDir,
	}
}

// readDir reads a folder for the globs: only inside the workspace, never
// through a symlink, never more than maxEntries entries for the whole
// line, and not once ctx is done.
func (c *checker) readDir(dir string) ([]fs.DirEntry, error) {
	root := c.ws.Root()
	switch {
	case c.halt != nil:
		return nil, c.halt
	case c.ctx.Err() != nil:
		c.halt = c.ctx.Err()
		return nil, c.halt
	case !fence.Within(root, dir):
		return nil, nil
	}
	if real, err := filepath.EvalSymlinks(dir); err != nil {
		return nil, nil
	} else if real != filepath.Clean(dir) {
		return nil, errLinkedFolder
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	entries, err := f.ReadDir(maxEntries - c.entries + 1)
	c.entries += len(entries)
	if c.entries > maxEntries {
		c.halt = errTooManyEntries
		return nil, c.halt
	}
	if err != nil && err != io.EOF {
		return nil, nil
	}
	return entries, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
