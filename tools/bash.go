package tools

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"harness/approve"
	"harness/gitdir"
	"harness/guard"
	"harness/protocol"
	"harness/sandbox"
)

// BashName is the name of the bash tool.
const BashName = bashName

const bashName = "bash"

//go:embed bash.md
var bashDescription string

type bashArgs struct {
	Command string `arg:"command" help:"The command line, e.g. go test ./..."`
}

// Shell runs a command line that the guard has passed. *sandbox.Sandbox is
// one.
type Shell interface {
	Run(ctx context.Context, c sandbox.Command) (sandbox.Result, error)
}

// Bash returns the bash tool, which checks each command line with policy
// and runs what passes with sh in ws. Its inspection (Set.Inspect) parses
// and checks the line, and the call runs that line, parsed once; a call
// that comes without it, not inspected, is parsed and checked as it runs.
// The command cannot see the paths
// ws.Hidden lists (and does not run when
// that fails), sees the repository's git directory read-only and its
// configuration without credentials (where sh can do that), and
// afterwards .git, the configuration, commondir and hooks are checked:
// what the command changed there is put back, and the result is an ERROR
// that names it. So is a folder the command made a repository of, with a
// .git or the shape of a git directory: what made it one is taken out
// (gitdir.Snap).
func Bash(ws *Workspace, policy *guard.Policy, sh Shell) Tool {
	t := New(bashName, strings.TrimSpace(bashDescription), true, func(ctx context.Context, a bashArgs) (string, error) {
		line := checkedLine(ctx, a.Command)
		if line == nil {
			checked, err := checkCommand(ctx, ws, policy, a.Command)
			if err != nil {
				return "", err
			}
			line = checked.line
		}
		hide, err := ws.Hidden()
		if err != nil {
			return "", fmt.Errorf("the command was not run: %w", err)
		}
		ignoreFiles := ws.ignoreStamps()
		snap := gitdir.SnapWith(ws.root, ws.surveys)
		ws.surveyed()
		layout := snap.Layout()
		outer := enclosing(ws.root)
		c := sandbox.Command{
			Script:   line.String(),
			Hide:     hide,
			ReadOnly: slices.Concat(layout.Paths(), outer.Paths(), ws.ownPaths()),
			Replace:  redactedConfigs(layout, outer),
		}
		// git is given the repository: the enclosing one of a folder of
		// a larger repository, else the workspace's own, as Snap found it.
		c.Git = sandbox.Repository{Dir: cmp.Or(layout.Git, layout.Dot), WorkTree: ws.root}
		if outer.Git != "" {
			c.Git = sandbox.Repository{Dir: outer.Git, WorkTree: filepath.Dir(outer.Dot)}
		}
		out := spoolFrom(ctx)
		if out != nil {
			c.Output = out // the output streams to where long outputs are kept
		}
		planted := ws.snapHome()
		res, err := sh.Run(ctx, c)
		changes, restoreErr := snap.Restore()
		made, undoErr := planted.undo(ctx)
		if files := ws.ignoreFilesChanged(ignoreFiles); len(files) > 0 {
			changedAlso(ctx, files...)
			note(ctx, "the command changed %s: what the ignore rules protected when the run started stays protected for the run, but the next run reads them as they are now; look at the change (git diff)", strings.Join(files, ", "))
		}
		switch {
		case err != nil && ctx.Err() != nil:
			return "", fmt.Errorf("%w: %w", ErrMayHaveChanged, ctx.Err())
		case err != nil:
			return "", fmt.Errorf("the command could not be started: %w", err)
		case len(changes) > 0:
			return "", gitChanged(res, out, changes, restoreErr)
		case len(made) > 0:
			return "", homeMade(res, out, made, undoErr)
		}
		return bashResult(res, out)
	})
	return readsWhen(commandReads, t.Inspected(func(ctx context.Context, call protocol.Call) approve.Inspection {
		return inspectBash(ctx, ws, policy, call)
	}))
}

// checkedKey marks a context carrying the command line a bash call's
// inspection parsed and checked (approve.Inspection.With).
type checkedKey struct{}

// checkedLine returns the line ctx carries for command, or nil when it
// carries none, or one of another command.
func checkedLine(ctx context.Context, command string) *guard.Line {
	line, _ := ctx.Value(checkedKey{}).(*guard.Line)
	if line == nil || line.String() != command {
		return nil
	}
	return line
}

// inspectBash is what the bash tool says of a call: its command line, the
// refusal of a line the guard refuses, and what the line reads. Its
// inspection carries the line, parsed and checked, to the tool, which runs
// it without parsing it again.
func inspectBash(ctx context.Context, ws *Workspace, policy *guard.Policy, call protocol.Call) approve.Inspection {
	command := stringArg(call, "command")
	in := approve.Inspection{Subject: Subject(call)}
	c, err := checkCommand(ctx, ws, policy, command)
	if err != nil {
		in.Refusal = err
		return in
	}
	files, hidden, cut := c.reads()
	in.Reads = append(files, hidden...)
	switch {
	case len(hidden) > 0:
		in.Secret = "it reads folders that hold protected files, which commands can see without a sandbox: " + strings.Join(hidden, ", ")
	case cut != "":
		in.Secret = fmt.Sprintf("it reads the folder %s, which holds more files than can be checked for secrets, so not all could be checked", cut)
	}
	if why, names := c.historyReads(ctx); why != "" {
		in.Reads = append(in.Reads, names...)
		in.Secret = strings.TrimPrefix(in.Secret+"; "+why, "; ")
	}
	in.With = func(ctx context.Context) context.Context { return context.WithValue(ctx, checkedKey{}, c.line) }
	return in
}

// maxReads bounds the files an inspection names as read by one command.
const maxReads = 256

// checked is a command line the guard let run, and the paths it found the
// line may read, as the line gives them.
type checked struct {
	ws      *Workspace
	line    *guard.Line
	paths   []string
	history []string // guard.Reads.History
}

// checkCommand parses and checks command, returning it as the guard found
// it, or the error, written for the model, that refuses it.
func checkCommand(ctx context.Context, ws *Workspace, policy *guard.Policy, command string) (*checked, error) {
	line, err := policy.Parse(command)
	if err != nil {
		return nil, refused(err)
	}
	root, err := os.OpenRoot(ws.root)
	if err != nil {
		return nil, fmt.Errorf("cannot open the workspace: %w", err)
	}
	defer root.Close()
	r, err := policy.CheckReads(ctx, line, commandPaths{ws: ws, ig: ws.ignores(root)})
	if err != nil {
		return nil, refused(err)
	}
	return &checked{ws: ws, line: line, paths: r.Paths, history: r.History}, nil
}

// refused is the error, written for the model, of a command line the
// guard refused with err.
func refused(err error) error {
	where, why := "", err.Error()
	var r *guard.Refusal
	if errors.As(err, &r) {
		why = r.Reason
		if r.Line > 0 {
			where = fmt.Sprintf(" at line %d, column %d (%s)", r.Line, r.Col, r.Text)
		}
	}
	return fail(err, "the command was refused%s: %s. Nothing was run", where, why)
}

// reads returns the regular files the line reads, those in the folders it
// names included, and, when commands see hidden paths
// (Workspace.CommandsSeeHidden), the hidden paths inside the folders it
// reads, each as a path from the root. A folder counts as read whole, as
// grep -r, diff -r or tar read it: its files are walked as list_files
// shows them, leaving out hidden and protected entries (which the sandbox
// hides, or hidden names), up to maxReads files in all; cut names the
// first folder whose walk stopped there, whose files could not all be
// named, or is "".
func (c *checked) reads() (files, hidden []string, cut string) {
	ws := c.ws
	var folders []string
	add := func(abs string) {
		if rel := ws.Rel(abs); !slices.Contains(files, rel) {
			files = append(files, rel)
		}
	}
	for _, p := range c.paths {
		abs, err := ws.Resolve(p)
		if err != nil {
			continue
		}
		fi, err := os.Stat(abs)
		switch {
		case err != nil:
		case fi.Mode().IsRegular() && len(files) < maxReads:
			add(abs)
		case fi.IsDir():
			folders = append(folders, ws.Rel(abs))
		}
	}
	for _, f := range folders {
		if !ws.folderFiles(f, maxReads-len(files), add) && cut == "" {
			cut = f
		}
	}
	if len(folders) == 0 || ws.seesHidden == nil || !ws.seesHidden() {
		return files, nil, cut
	}
	all, err := ws.Hidden()
	if err != nil {
		// The protected paths could not all be listed: the folders the
		// command reads stand for them, so the call is still asked about.
		return files, folders, cut
	}
	for _, h := range all {
		rel := ws.Rel(h)
		if slices.ContainsFunc(folders, func(f string) bool { return f == "." || strings.HasPrefix(rel, f+"/") }) {
			hidden = append(hidden, rel)
		}
	}
	return files, hidden, cut
}

// maxFolderEntries bounds the entries one walk of folderFiles looks at.
const maxFolderEntries = 4 * maxReads

// folderFiles calls add with the absolute path of each regular file under
// the folder rel, a path from the root, at most limit of them, walking it
// as list_files shows it: no hidden names, nothing protected, no
// symlinks followed. It reports whether it walked the whole folder.
func (w *Workspace) folderFiles(rel string, limit int, add func(abs string)) bool {
	root, err := os.OpenRoot(w.root)
	if err != nil {
		return false
	}
	defer root.Close()
	ig := w.ignores(root)
	start := filepath.Join(w.root, filepath.FromSlash(rel))
	seen, complete := 0, true
	err = filepath.WalkDir(start, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // what cannot be read cannot be read by the command either
		}
		if seen++; seen > maxFolderEntries || limit <= 0 {
			complete = false
			return filepath.SkipAll
		}
		if path != start && (strings.HasPrefix(d.Name(), ".") || w.secret(ig, path, d.IsDir()) != "") {
			return skip(d)
		}
		if d.Type().IsRegular() {
			add(path)
			limit--
		}
		return nil
	})
	return err == nil && complete
}

// enclosing returns the layout of the repository that root, a workspace
// with no .git of its own, lies in: the first folder above it that has a
// .git folder (not a file or link pointing elsewhere, which anyone who
// can write that folder could point at any folder) holding a repository,
// below the home folder (a repository of the home folder itself holds its
// dotfiles, not the workspace's project). A sandbox that shuts the folders
// around the workspace shows its git directory again, read-only, so that
// git works in a workspace that is a folder of a larger repository (the
// rest of its work tree stays out of reach).
func enclosing(root string) gitdir.Layout {
	if gitdir.Find(root).Git != "" {
		return gitdir.Layout{}
	}
	home, _ := os.UserHomeDir()
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	for dir := filepath.Dir(root); dir != home && dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		dot := filepath.Join(dir, ".git")
		fi, err := os.Lstat(dot)
		if err != nil || !fi.IsDir() {
			continue
		}
		if !isRepo(dot) {
			return gitdir.Layout{}
		}
		l := gitdir.Find(dir)
		if l.Git != dot || l.Common != dot {
			return gitdir.Layout{} // a commondir pointing elsewhere
		}
		return l
	}
	return gitdir.Layout{}
}

// isRepo reports whether dir holds a git repository: a HEAD file and an
// objects folder.
func isRepo(dir string) bool {
	head, err := os.Lstat(filepath.Join(dir, "HEAD"))
	if err != nil || !head.Mode().IsRegular() {
		return false
	}
	objects, err := os.Lstat(filepath.Join(dir, "objects"))
	return err == nil && objects.IsDir()
}

// maxConfig bounds the size of a git configuration shown to commands
// without its credentials; a larger one is shown empty.
const maxConfig = 1 << 20

// redactedConfigs returns the configuration files of the repository, of
// the one it lies in (outer, see enclosing), and the user's own
// (globalConfigs), that hold credentials, with the
// credentials taken out (gitdir.Redact), for the sandbox to show commands
// instead.
func redactedConfigs(l, outer gitdir.Layout) []sandbox.File {
	var out []sandbox.File
	for _, p := range slices.Concat(l.Configs(), outer.Configs(), globalConfigs()) {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(f, maxConfig+1))
		f.Close()
		if err != nil || len(data) > maxConfig {
			out = append(out, sandbox.File{Path: p})
			continue
		}
		if text, changed := gitdir.Redact(string(data)); changed {
			out = append(out, sandbox.File{Path: p, Data: []byte(text)})
		}
	}
	return out
}

// globalConfigs returns the paths of the user's git configuration files:
// ~/.gitconfig, ~/.config/git/config, and config in git's folder of
// $XDG_CONFIG_HOME when that is set elsewhere.
func globalConfigs() []string {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	out := []string{filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config")}
	if base := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(base) && !slices.Contains(out, filepath.Join(base, "git", "config")) {
		out = append(out, filepath.Join(base, "git", "config"))
	}
	return out
}

// gitChanged is the error of a command that changed what git runs: what
// it printed, what it changed, and that it was put back.
func gitChanged(res sandbox.Result, out *spool, changes []gitdir.Change, restoreErr error) error {
	text, _ := bashText(res, out)
	names := make([]string, len(changes))
	for i, c := range changes {
		names[i] = c.String()
	}
	msg := fmt.Sprintf("%s\nThe command changed the repository's git directory, which no command may change, since git runs what it finds there: %s.", text, strings.Join(names, ", "))
	if !slices.ContainsFunc(changes, func(c gitdir.Change) bool { return c.Kind != gitdir.Repository }) {
		msg = fmt.Sprintf("%s\nThe command made a folder a repository of its own (a .git in it, or a HEAD beside objects, refs or commondir), which git would use, running what its configuration names; no command may make one: %s.", text, strings.Join(names, ", "))
	}
	if restoreErr != nil {
		msg += fmt.Sprintf(" Not everything could be put back (%v): tell the user to look at .git, and the folders named, before running git.", restoreErr)
	} else {
		msg += " It was put back as it was; do not try again."
	}
	return fail(errors.Join(ErrMayHaveChanged, ErrProtected), "%s", msg)
}

// commandPaths tells the guard which paths a command may use: those inside
// the workspace, but none in .git or the git directory wherever it is
// (Workspace.InGit), no secret that exists, no file with more than one
// name (a hard link made before the run), and nothing with a secret's
// name to write. It is the guard's one way to ask whether a path is the
// git directory.
type commandPaths struct {
	ws *Workspace
	ig *ignores
}

func (p commandPaths) Root() string { return p.ws.root }

func (p commandPaths) CheckPath(path string, write bool) error {
	abs, err := p.ws.Resolve(path)
	if err != nil {
		return err
	}
	name := p.ws.Rel(abs)
	if write {
		if err := p.ws.checkWrite(abs, name); err != nil {
			return err
		}
		if why := secretName(name); why != "" {
			return fail(ErrSecret, "%s is %s: %s", name, ErrSecret, why)
		}
		if fi, err := os.Lstat(abs); err == nil {
			return checkLinks(fi, name)
		}
		return nil
	}
	if err := p.ws.checkOwn(abs, name); err != nil {
		return err
	}
	if p.ws.InGit(abs) { // read or not: what is made there, git runs
		return fail(ErrSecret, "%s is in the repository's git directory (.git, or where it points), which is %s; use git commands such as git log or git show", name, ErrSecret)
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return nil // nothing there to read
	}
	if why := p.ws.secret(p.ig, abs, fi.IsDir()); why != "" {
		return fail(ErrSecret, "%s is %s: %s; use read_file, which can ask the user", name, ErrSecret, why)
	}
	return checkLinks(fi, name)
}

// checkLinks refuses a file with more than one name, as read_file does:
// another name may be .git/config or a file outside the workspace, whose
// text a command would print or change.
func checkLinks(fi fs.FileInfo, name string) error {
	if n := links(fi); !fi.IsDir() && n > 1 {
		return fail(ErrProtected, "%s has %d names (hard links), and the others may be files outside the workspace or in .git, which cannot be told from here, so it is %s and no command may use it; ask the user for what you need from it", name, n, ErrProtected)
	}
	return nil
}

// bashResult formats what a command did for the model, its output taken
// from out when it streamed there (out may be nil). A command that did
// not exit with status 0 gives an ERROR result.
func bashResult(res sandbox.Result, out *spool) (string, error) {
	text, ok := bashText(res, out)
	if ok {
		return text, nil
	}
	return "", fail(ErrMayHaveChanged, "%s", text)
}

// bashText is the text of a command's result, and whether it succeeded:
// its output, then what became of the command. When the output streamed
// to out, what became of it goes there too, after it, and the text is
// out's: the whole, or its head and tail when it is long.
func bashText(res sandbox.Result, out *spool) (string, bool) {
	var text string
	if out != nil {
		switch {
		case !out.used():
			io.WriteString(out, "(no output)\n")
		case !out.endsLine():
			io.WriteString(out, "\n")
		}
		io.WriteString(out, status(res))
		text = out.finish()
	} else {
		switch {
		case res.Output == "":
			text = "(no output)\n"
		case !strings.HasSuffix(res.Output, "\n"):
			text = res.Output + "\n"
		default:
			text = res.Output
		}
		text += status(res)
	}
	switch {
	case res.Exit == 0:
	case res.Tier == sandbox.Bwrap && strings.Contains(text, "ead-only file system"):
		text += " Commands may write only inside the workspace and /tmp, never in .git, and cannot change files hidden from them; the user can allow more with --sandbox-write."
	case res.Tier == sandbox.Landlock && strings.Contains(text, "ermission denied"):
		text += " Commands run under Landlock: they may write only inside the workspace and $TMPDIR, never in .git, may not make, rename or remove files in a folder that holds .git or a hidden file (use write_file there), and may not read files hidden from them nor use the network; the user can allow more with --sandbox-write."
	}
	return text, res.Exit == 0 && !res.TimedOut && !res.Flooded
}

// status says, in brackets, how a command ended and what the harness
// noticed of it.
func status(res sandbox.Result) string {
	var b strings.Builder
	switch {
	case res.TimedOut:
		fmt.Fprintf(&b, "[killed after %s: the command ran out of time; run something narrower, such as one package or one test]", res.Elapsed.Round(100*time.Millisecond))
	case res.Flooded:
		b.WriteString("[stopped: the command wrote more output than the limit; narrow it, for example with grep or head]")
	default:
		fmt.Fprintf(&b, "[exit status %d]", res.Exit)
	}
	if res.FileTooLarge {
		b.WriteString(" [a file the command wrote reached the size limit, and the writing stopped there; write less, or ask the user to raise --bash-max-file-size]")
	}
	if res.Notice != "" {
		fmt.Fprintf(&b, " [%s]", res.Notice)
	}
	return b.String()
}
