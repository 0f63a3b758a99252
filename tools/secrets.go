package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"harness/fence"
	"harness/gitdir"
	"harness/protocol"
)

// ErrSecret is wrapped by the error for a path the workspace keeps from the
// model: a secret, or a file .gitignore ignores.
var ErrSecret = errors.New("protected as a secret")

// ErrProtected is wrapped by the error for a write into .git, which holds
// the configuration and hooks that git runs.
var ErrProtected = errors.New("protected")

// secretKey marks a context in which the user allowed reading secrets.
type secretKey struct{}

// WithSecrets returns ctx in which the tools may read and list paths they
// otherwise keep from the model: the user has approved it.
func WithSecrets(ctx context.Context) context.Context {
	return context.WithValue(ctx, secretKey{}, true)
}

func secretsAllowed(ctx context.Context) bool {
	ok, _ := ctx.Value(secretKey{}).(bool)
	return ok
}

// Secret returns why the workspace keeps abs, a path inside it that
// Resolve returned, from the model, or "" when it does not. A path is
// secret when it is or lies inside .git or the git directory wherever
// .git points (gitdir.Find), when it or a folder above it has a name that
// holds secrets (fence.SecretName: .env*, *.pem, *.key, SSH keys, .netrc,
// ...), or when the workspace's .gitignore files (and the repository's
// exclude file: .git/info/exclude, or a worktree's main repository's)
// ignore it.
//
// An answer is kept, with what it depended on, and given again while
// none of that changed (see verdicts).
func (w *Workspace) Secret(abs string) string {
	why, _ := w.secretLooked(abs)
	return why
}

// secretLooked is Secret that returns as well what abs looked like when
// it was decided, or nil when that is not known.
func (w *Workspace) secretLooked(abs string) (string, fs.FileInfo) {
	if got, ok := w.verdicts.get(abs); ok && (got.started || !w.started.Load()) {
		if fi, ok := got.holds(); ok {
			return got.why, fi
		}
	}
	// What the answer depends on is looked at before it is decided: a
	// change after the look shows the next time.
	started := w.started.Load()
	looks, fi, keep := w.dependsOn(abs, time.Now())
	root, err := os.OpenRoot(w.root)
	if err != nil {
		return "", nil
	}
	defer root.Close()
	isDir := fi != nil && fi.IsDir()
	if fi == nil {
		isDir = isDirPath(abs)
	}
	why := w.secretSeen(w.ignores(root), abs, isDir, fi)
	w.verdicts.mu.Lock()
	w.verdicts.decided++
	w.verdicts.mu.Unlock()
	if keep {
		w.verdicts.put(abs, verdict{why: why, looks: looks, started: started})
	}
	return why, fi
}

func isDirPath(abs string) bool {
	fi, err := os.Stat(abs)
	return err == nil && fi.IsDir()
}

// secret is Secret with the rules read so far and whether abs is a folder.
func (w *Workspace) secret(ig *ignores, abs string, isDir bool) string {
	return w.secretSeen(ig, abs, isDir, nil)
}

// secretSeen is secret given, when it is not nil, what abs looks like
// (os.Lstat), which need not be looked at again.
func (w *Workspace) secretSeen(ig *ignores, abs string, isDir bool, fi fs.FileInfo) string {
	rel := w.Rel(abs)
	if rel == "." || filepath.IsAbs(rel) {
		return ""
	}
	if why := secretName(rel); why != "" {
		return why
	}
	if ig.git(w.root).Holds(abs) {
		return "it is in the repository's git directory, where .git points, which holds its configuration and history"
	}
	if rule, ok := ig.ignored(rel, isDir); ok {
		return fmt.Sprintf("%s ignores it (pattern %q)", rule.source, strings.TrimSpace(rule.text))
	}
	start, ok := w.startRules()
	if !ok && !isDir && linked(abs, fi) {
		// Before the start's rules are read, nothing of the run has
		// changed the workspace: the rules above are the start's, and
		// nothing protected was moved. But a file with another name
		// may be a link to a protected one: the walk finds which.
		start, ok = w.begin(), true
	}
	if !ok {
		return ""
	}
	if rule, ok := start.ignored(rel, isDir); ok {
		return fmt.Sprintf("%s ignored it when the run started (pattern %q), and protection is never taken away during a run", rule.source, strings.TrimSpace(rule.text))
	}
	if was := start.movedFrom(w.root, rel); was != "" {
		return fmt.Sprintf("it is %s, which was protected when the run started, moved or linked here; protection goes with it", was)
	}
	return ""
}

// linked reports whether abs, which looks as fi when fi is not nil, is a
// file with more than one name: a hard link, which may be a link to a
// protected file.
func linked(abs string, fi fs.FileInfo) bool {
	if fi == nil {
		var err error
		if fi, err = os.Lstat(abs); err != nil {
			return false
		}
	}
	return !fi.IsDir() && links(fi) > 1
}

// secretName returns why the names in rel, a slash-separated path, make it
// secret, or "".
func secretName(rel string) string {
	for seg := range strings.SplitSeq(rel, "/") {
		if fence.GitName(seg) {
			return "it is inside .git, which holds the repository's configuration and history"
		}
		if pat, ok := fence.SecretName(seg); ok {
			return fmt.Sprintf("its name matches %s, which holds secrets", pat)
		}
	}
	return ""
}

// secretError is the error read tools give for a secret path.
func secretError(name, why string) error {
	return fail(ErrSecret, "%s is %s: %s. Its content is not shown; do without it, or ask the user for what you need from it", name, ErrSecret, why)
}

// checkRead returns an error when ctx does not allow reading abs, shown to
// the model as name, because it is secret, or when it is one of the
// places no tool reads (ownPlaces), whatever ctx allows.
func (w *Workspace) checkRead(ctx context.Context, abs, name string) error {
	_, err := w.checkReadLooked(ctx, abs, name)
	return err
}

// checkReadLooked is checkRead that returns as well what abs looked like
// when its secrecy was decided, or nil when that is not known.
func (w *Workspace) checkReadLooked(ctx context.Context, abs, name string) (fs.FileInfo, error) {
	if err := w.checkOwn(abs, name); err != nil {
		return nil, err
	}
	if secretsAllowed(ctx) {
		return nil, nil
	}
	why, fi := w.secretLooked(abs)
	if why != "" {
		return nil, secretError(name, why)
	}
	return fi, nil
}

// checkWrite refuses writes into .git and into the git directory
// wherever .git points: a hook or a configuration written there would run
// outside any sandbox, the next time anyone uses git. It refuses as well
// a write that would give a folder the shape of a git directory, or that
// goes into one (gitdir.Planted): git would take it for a repository;
// and writes to the harness's own settings and state and to what git and
// the shells run at start (ownPlaces), whatever the workspace holds.
func (w *Workspace) checkWrite(abs, name string) error {
	w.begin() // before anything of the run changes the workspace
	if w.InGit(abs) {
		return fail(ErrProtected, "%s is in the repository's git directory (.git, or where it points), which is %s: git runs the hooks and configuration kept there. Nothing was written", name, ErrProtected)
	}
	if err := w.checkOwn(abs, name); err != nil {
		return err
	}
	if err := w.checkLater(abs, name); err != nil {
		return err
	}
	if dir, ok := gitdir.Planted(w.root, abs); ok {
		return fail(ErrProtected, "writing %s would leave %s shaped like a git directory (a HEAD beside objects, refs or commondir), or writes into one: git would take it for a repository and use it, with whatever configuration is in it, when anyone runs git there, so that is %s. Nothing was written; keep git's files in .git", name, w.Rel(dir), ErrProtected)
	}
	return nil
}

// InGit reports whether abs, an absolute path with its symlinks resolved
// (as Resolve returns it), is or lies in a folder named .git, or in the
// git directory or common directory of the workspace's repository,
// wherever its .git points (gitdir.Find). Nothing may write there, and
// what is there is kept from the model. The command guard's paths reach
// this rule through the bash tool.
func (w *Workspace) InGit(abs string) bool {
	return inGit(w.Rel(abs)) || gitdir.Find(w.root).Holds(abs)
}

// inGit reports whether rel, a slash-separated path from the root, is a
// .git folder or lies inside one, its name taken as fence.GitName takes
// it (.GIT is .git where case does not count).
func inGit(rel string) bool {
	return slices.ContainsFunc(strings.Split(rel, "/"), fence.GitName)
}

// secretRead returns why call, a call of read_file, list_files or
// edit_file, would read a path the workspace keeps from the model, or of
// write_file would replace or make one, or "" when it would not (or is no
// such call). The approval step asks the user about such calls before
// running them with WithSecrets, in every mode that asks at all: a
// secret written over is lost as surely as one edited.
func (w *Workspace) secretRead(call protocol.Call) string {
	switch call.Name {
	case readName, listName, editName, writeName:
	default:
		return ""
	}
	p, _ := call.Args["path"].(string)
	abs, err := w.Resolve(p)
	if err != nil {
		return ""
	}
	return w.secretAt(abs)
}

// secretAt is secretRead of abs, a path Resolve returned.
func (w *Workspace) secretAt(abs string) string {
	if why := w.Secret(abs); why != "" {
		return w.Rel(abs) + " is " + ErrSecret.Error() + ": " + why
	}
	return ""
}
