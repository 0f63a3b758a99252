package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"harness/fence"
	"harness/gitdir"
)

// ErrOutsideWorkspace is wrapped by the error for a path that leads out of
// the workspace, whether by "..", by being absolute or through a symlink.
var ErrOutsideWorkspace = errors.New("outside the workspace")

// maxLinks bounds how many dangling symlinks Resolve follows in a row.
const maxLinks = 40

// maxPath bounds the length of a path a tool is given, as the system does.
const maxPath = 4096

// Workspace is the folder the tools may read and write.
type Workspace struct {
	root string
	// start is the ignore rules when the run started, read by the first
	// call of begin (see there); started is set once they are.
	startOnce sync.Once
	start     *ignores
	started   atomic.Bool
	hidden    *hiddenList  // what commands must not see
	history   *historyList // the paths git's history holds
	files     *ruleFiles   // the rules of the ignore files, as last read
	places    []place      // the harness's own and the shells' places in it
	// global are the rules of the user's global excludes file
	// (globalExcludes), read when the workspace is made.
	global []ignoreRule
	// surveys remembers what the folders held of the shape of a
	// repository, around each command (gitdir.SnapWith).
	surveys *gitdir.Surveys
	// census keeps what the walks read of the folders, in memory and,
	// given a file (KeepCensus), between runs.
	census     *census
	surveyOnce sync.Once // the first survey for repositories was made
	// verdicts keeps the answers of Secret (see there).
	verdicts verdicts
	// held is the text of the file the approval step read last, for
	// read_file (see held).
	held held
	// seesHidden, when set and true, says that commands run where they
	// can see what Hidden lists (no sandbox hides it).
	seesHidden func() bool
}

// CommandsSeeHidden tells w that commands see the paths Hidden lists
// whenever see reports true, as they do without a sandbox (--sandbox
// none): a command that reads a folder then reads the protected files in
// it, and the bash tool's inspection names them.
func (w *Workspace) CommandsSeeHidden(see func() bool) { w.seesHidden = see }

// NewWorkspace returns the workspace rooted at root, an existing directory.
// The root is made absolute and its symlinks are resolved.
func NewWorkspace(root string) (*Workspace, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("workspace %s is not a directory", root)
	}
	if real, err = realPath(real, 0); err != nil { // spelt as the disk has it
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	w := &Workspace{root: real, hidden: new(hiddenList), history: new(historyList), files: new(ruleFiles), places: ownPlaces(real),
		surveys: gitdir.NewSurveys(changeTime), global: globalExcludes(real), census: loadCensus("", real)}
	w.surveys.ReadWith(w.census.read)
	w.surveys.SizeWith(w.census.size)
	w.surveys.StatWith(w.surveyStat)
	return w, nil
}

// surveyed is called after each survey for repositories around a
// command (gitdir.SnapWith): the first of a run looked at every folder
// the census may hold, so the census drops those it did not look at,
// gone since, and is kept.
func (w *Workspace) surveyed() {
	first := false
	w.surveyOnce.Do(func() { first = true })
	w.census.save(first)
}

// KeepCensus has w keep what its walks read of the workspace's folders in
// file, outside the workspace, and take from it, in later runs, the
// folders that did not change since (see census): a run then reads only
// those that did. It reads file when a walk first needs it; call it
// before anything walks.
func (w *Workspace) KeepCensus(file string) {
	w.census = loadCensus(file, w.root)
	w.surveys.ReadWith(w.census.read)
	w.surveys.SizeWith(w.census.size)
}

// begin returns the ignore rules of the start of the run (startIgnores),
// reading them at its first call. A walk of the whole workspace reads
// them, which a run that only reads files never needs: until something
// of the run changes the workspace, the rules of its start are the rules
// as they are, and Secret decides by those. So everything that may
// change the workspace calls begin before it does: the check of a path
// to write (checkWrite), and finding what a command must not see
// (Hidden), before every command. list_files calls it too, which would
// otherwise look at every file it lists (see linked).
func (w *Workspace) begin() *ignores { return w.beginWith(nil) }

// beginWith is begin that, when it reads the rules, keeps what the walk
// read of each folder in keep (see readFolders).
func (w *Workspace) beginWith(keep *readFolders) *ignores {
	w.startOnce.Do(func() {
		w.start = startIgnoresReading(w.root, w.global, maxSecretScan, keep, w.census, time.Now())
		w.started.Store(true)
		w.census.save(false) // a census not kept costs the next run a walk, nothing more
	})
	return w.start
}

// startRules returns the ignore rules of the start, and whether they were
// read yet (see begin).
func (w *Workspace) startRules() (*ignores, bool) {
	if !w.started.Load() {
		return nil, false
	}
	return w.start, true
}

// ignores returns the ignore rules of the workspace as they are now, read
// through root, the workspace opened: each file is read when first asked
// for, or taken as it was last read when it has not changed.
func (w *Workspace) ignores(root *os.Root) *ignores {
	ig := newIgnores(root)
	ig.files, ig.global = w.files, w.global
	return ig
}

// Root returns the absolute path of the workspace, symlinks resolved.
func (w *Workspace) Root() string { return w.root }

// Resolve returns the absolute path that path names, with symlinks
// resolved, and checks that it is the root or inside it. The path need not
// exist. A relative path is taken from the root; an empty path is the root.
func (w *Workspace) Resolve(path string) (string, error) {
	if strings.IndexByte(path, 0) >= 0 {
		return "", fmt.Errorf("path %q contains a NUL byte; use a plain file path", path)
	}
	if len(path) > maxPath {
		return "", fmt.Errorf("path %q... is %d bytes long, more than the %d a path may have; use a shorter path", path[:40], len(path), maxPath)
	}
	var real string
	var err error
	// The root is a real path already: a path from it is walked from
	// there, its ".." taken on the way as before.
	switch below, ok := strings.CutPrefix(path, w.root+string(filepath.Separator)); {
	case !filepath.IsAbs(path):
		real, err = walkReal(w.root, path, 0)
	case ok:
		real, err = walkReal(w.root, below, 0)
	default:
		real, err = realPath(path, 0)
	}
	if err != nil {
		return "", fmt.Errorf("path %q: %w", path, err)
	}
	if !w.contains(real) {
		return "", fmt.Errorf("path %q is %w %s; use a path inside it", path, ErrOutsideWorkspace, w.root)
	}
	return real, nil
}

// Rel returns abs relative to the root, with forward slashes, for messages.
// The root itself is "."; a path outside the root is returned unchanged.
func (w *Workspace) Rel(abs string) string {
	if !w.contains(abs) {
		return abs
	}
	rel, err := filepath.Rel(w.root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}

// within opens the workspace root and returns it with abs, a path inside
// it, relative to it. Files opened through the root cannot lead out of it,
// whatever symlinks are met on the way.
func (w *Workspace) within(abs string) (*os.Root, string, error) {
	rel, err := filepath.Rel(w.root, abs)
	if err != nil || !w.contains(abs) {
		return nil, "", fmt.Errorf("%s is %w", abs, ErrOutsideWorkspace)
	}
	root, err := os.OpenRoot(w.root)
	if err != nil {
		return nil, "", err
	}
	return root, rel, nil
}

// moved returns the error for abs, shown as name, when it now leads out of
// the workspace (a symlink appeared after it was checked), or nil.
func (w *Workspace) moved(abs, name string) error {
	if _, err := w.Resolve(abs); err != nil {
		return fail(ErrOutsideWorkspace, "%s now leads %s (it changed after it was checked); nothing was done", name, ErrOutsideWorkspace)
	}
	return nil
}

// contains reports whether p, an absolute path with its symlinks resolved,
// is the root or inside it.
func (w *Workspace) contains(p string) bool { return fence.Within(w.root, p) }

// realPath resolves the absolute path p, which need not exist, the way the
// kernel does: one component at a time, following a symlink before a later
// ".." goes up from where it leads (cleaning the text first would let
// "link/../x" name a place the kernel never reaches). From the first
// component that does not exist, the rest is taken as text. hops counts the
// links followed. A path's volume (C: or \\server\share on Windows) is
// kept, and each name that exists is spelt as the file system keeps it
// where that can differ from how it was asked for (onDisk).
func realPath(p string, hops int) (string, error) {
	vol := filepath.VolumeName(p)
	return walkReal(vol+string(filepath.Separator), p[len(vol):], hops)
}

// walkReal is realPath of rest taken from cur, a real path.
func walkReal(cur, rest string, hops int) (string, error) {
	parts := strings.Split(filepath.ToSlash(rest), "/")
	for i, part := range parts {
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, parts[i+1:]...)...), nil
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = onDisk(next)
			continue
		}
		if hops >= maxLinks {
			return "", errors.New("too many levels of symbolic links")
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = cur + string(filepath.Separator) + target
		}
		if cur, err = realPath(target, hops+1); err != nil {
			return "", err
		}
	}
	return cur, nil
}
