package gitdir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// watched are the files of a git or common directory that decide what git
// runs: the configuration (core.fsmonitor, aliases, filters, hooksPath),
// a worktree's own configuration, and the pointer to the common
// directory, whose configuration and hooks then count.
var watched = []string{"config", "config.worktree", "commondir"}

// maxKept bounds the bytes of file content a Snapshot keeps to put back:
// configurations and hooks are small. A larger file is watched by its size
// and time, and a change to it is reported but cannot be undone.
const maxKept = 4 << 20

// Kind says how a watched path changed.
type Kind int

const (
	Created    Kind = iota + 1 // it was not there
	Changed                    // its content, mode or kind changed
	Removed                    // it is gone
	Moved                      // the git directory was moved away, and a pointer or another folder left at .git
	Repository                 // it gave a folder the shape of a git directory, and was taken out
)

func (k Kind) String() string {
	switch k {
	case Created:
		return "created"
	case Changed:
		return "changed"
	case Removed:
		return "removed"
	case Moved:
		return "moved"
	case Repository:
		return "made a repository"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Change is one difference Restore found.
type Change struct {
	// Path is the path that changed: relative to the workspace root, with
	// slashes, when it lies inside it; absolute otherwise.
	Path string
	Kind Kind
}

func (c Change) String() string { return c.Path + " (" + c.Kind.String() + ")" }

// ErrNotRestored is wrapped by the error of Restore for a change it could
// not undo.
var ErrNotRestored = errors.New("could not be put back")

// entry is what one path was: missing, a folder, a link, or a file.
type entry struct {
	path   string
	exists bool
	// unknown is set when what path was could not be found out (an error
	// other than its not existing): it is then never compared nor put
	// back, lest a real repository be taken for one a command made.
	unknown bool
	info    fs.FileInfo // Lstat's
	link    string      // a link's target
	data    []byte      // a regular file's content; nil when not kept
	kept    bool        // data holds the whole content
}

// dirState is what one git or common directory held.
type dirState struct {
	dir   string
	files []entry
	hooks entry
	inner []entry // the entries of hooks, when it was a folder
}

// Snapshot is what the places git runs from were like when Snap was
// called.
type Snapshot struct {
	root   string
	layout Layout
	dot    entry
	dirs   []dirState
	budget int // bytes left to keep
	// shapes is what the workspace's folders held of the shape of a git
	// directory (Shaped); surveys remembers it for the next survey.
	shapes  survey
	surveys *Surveys
}

// Snap records .git in root, and in its git and common directories the
// configuration, worktree configuration, commondir pointer and hooks
// (the folder and each entry). It reads a few small files, and the names
// in root's folders, to find later a folder given the shape of a git
// directory (Shaped), which git would take for a repository.
func Snap(root string) *Snapshot { return SnapWith(root, nil) }

// SnapWith is Snap, its surveys of the workspace's folders remembered in
// sv (nil remembers none) so that each reads again only the folders that
// changed since the one before.
func SnapWith(root string, sv *Surveys) *Snapshot {
	s := &Snapshot{root: root, layout: Find(root), budget: maxKept, surveys: sv}
	s.shapes = sv.survey(root, s.layout.Paths())
	s.dot = s.record(s.layout.Dot)
	for _, d := range []string{s.layout.Git, s.layout.Common} {
		if d == "" || slices.ContainsFunc(s.dirs, func(x dirState) bool { return x.dir == d }) {
			continue
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		st := dirState{dir: d}
		for _, name := range watched {
			st.files = append(st.files, s.record(filepath.Join(d, name)))
		}
		st.hooks = s.record(filepath.Join(d, "hooks"))
		if st.hooks.exists && st.hooks.info.IsDir() {
			st.inner = s.entries(st.hooks.path)
		}
		s.dirs = append(s.dirs, st)
	}
	return s
}

// Layout returns the layout of the repository as Snap found it.
func (s *Snapshot) Layout() Layout { return s.layout }

// record returns what path is now, keeping a regular file's content while
// the budget lasts.
func (s *Snapshot) record(path string) entry {
	e := entry{path: path}
	fi, err := os.Lstat(path)
	if err != nil {
		e.unknown = !errors.Is(err, fs.ErrNotExist)
		return e
	}
	e.exists, e.info = true, fi
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		e.link, _ = os.Readlink(path)
	case fi.Mode().IsRegular() && fi.Size() <= int64(s.budget):
		if data, ok := readAll(path, fi.Size()); ok {
			e.data, e.kept = data, true
			s.budget -= len(data)
		}
	}
	return e
}

// entries records the entries of the folder dir, sorted by name.
func (s *Snapshot) entries(dir string) []entry {
	names, err := readNames(dir)
	if err != nil {
		return nil
	}
	out := make([]entry, 0, len(names))
	for _, n := range names {
		out = append(out, s.record(filepath.Join(dir, n)))
	}
	return out
}

func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	slices.Sort(names)
	return names, err
}

// readAll reads a regular file of about size bytes without blocking on
// anything that is not one.
func readAll(path string, size int64) ([]byte, bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, size+1))
	if err != nil || int64(len(data)) > size {
		return nil, false
	}
	return data, true
}

// same reports whether path is now what e recorded.
func (e entry) same() bool {
	if e.unknown {
		return true
	}
	fi, err := os.Lstat(e.path)
	if err != nil || !e.exists {
		return err != nil && !e.exists
	}
	if fi.Mode() != e.info.Mode() {
		return false
	}
	switch {
	case fi.IsDir():
		return os.SameFile(fi, e.info)
	case fi.Mode()&fs.ModeSymlink != 0:
		link, err := os.Readlink(e.path)
		return err == nil && link == e.link
	case e.kept:
		data, ok := readAll(e.path, fi.Size())
		return ok && bytes.Equal(data, e.data)
	}
	return fi.Size() == e.info.Size() && fi.ModTime().Equal(e.info.ModTime())
}

// Restore compares .git and the watched files with what Snap recorded,
// puts back each that changed, takes out what gave a folder the shape of
// a git directory that it did not have (Repository), and returns the
// changes, in the order it met them. The error, wrapping ErrNotRestored, names what it could not
// put back; the changes still list it.
func (s *Snapshot) Restore() ([]Change, error) {
	var changes []Change
	var failed []string
	note := func(path string, k Kind, err error) {
		changes = append(changes, Change{Path: s.name(path), Kind: k})
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", s.name(path), err))
		}
	}
	if !s.dot.same() {
		k, err := s.restoreDot()
		note(s.dot.path, k, err)
	}
	for _, d := range s.dirs {
		if fi, err := os.Stat(d.dir); err != nil || !fi.IsDir() {
			note(d.dir, Removed, errors.New("the folder is gone"))
			continue
		}
		for _, e := range d.files {
			if !e.same() {
				k, err := s.put(e)
				note(e.path, k, err)
			}
		}
		s.restoreHooks(d, note)
	}
	s.undoShapes(note)
	if len(failed) > 0 {
		return changes, fmt.Errorf("%w: %s", ErrNotRestored, strings.Join(failed, "; "))
	}
	return changes, nil
}

// name returns path as Change shows it.
func (s *Snapshot) name(path string) string {
	rel, err := filepath.Rel(s.root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return filepath.ToSlash(rel)
}

// restoreHooks puts back the hooks folder of d and its entries.
func (s *Snapshot) restoreHooks(d dirState, note func(string, Kind, error)) {
	h := d.hooks
	fi, err := os.Lstat(h.path)
	isDir := err == nil && fi.IsDir()
	if !h.exists || !h.info.IsDir() || !isDir {
		if !h.same() {
			k, err := s.put(h)
			note(h.path, k, err)
			if err == nil && h.exists && h.info.IsDir() {
				for _, e := range d.inner {
					if _, err := s.put(e); err != nil {
						note(e.path, Removed, err)
					}
				}
			}
		}
		return
	}
	if !os.SameFile(fi, h.info) || fi.Mode() != h.info.Mode() {
		note(h.path, Changed, os.Chmod(h.path, h.info.Mode().Perm()))
	}
	names, _ := readNames(h.path)
	for _, n := range names {
		p := filepath.Join(h.path, n)
		if !slices.ContainsFunc(d.inner, func(e entry) bool { return e.path == p }) {
			note(p, Created, os.RemoveAll(p))
		}
	}
	for _, e := range d.inner {
		if !e.same() {
			k, err := s.put(e)
			note(e.path, k, err)
		}
	}
}

// put makes e.path what e recorded and says how it had changed.
func (s *Snapshot) put(e entry) (Kind, error) {
	_, err := os.Lstat(e.path)
	now := err == nil
	if !e.exists {
		return Created, os.RemoveAll(e.path)
	}
	kind := Changed
	if !now {
		kind = Removed
	}
	mode := e.info.Mode()
	switch {
	case mode.IsDir():
		if now {
			if err := os.RemoveAll(e.path); err != nil {
				return kind, err
			}
		}
		return kind, os.Mkdir(e.path, mode.Perm())
	case mode&fs.ModeSymlink != 0:
		if now {
			if err := os.RemoveAll(e.path); err != nil {
				return kind, err
			}
		}
		return kind, os.Symlink(e.link, e.path)
	case mode.IsRegular() && e.kept:
		return kind, replace(e.path, e.data, mode.Perm())
	case mode.IsRegular() && now:
		// Too large to have been kept: made harmless, since git runs no
		// hook that is not executable.
		if err := os.Chmod(e.path, mode.Perm()&^0o111); err != nil {
			return kind, err
		}
		return kind, errors.New("its content was too large to keep; it was made not executable")
	}
	return kind, errors.New("its content was not kept")
}

// replace writes data to path through a new file renamed over it, so that
// whatever path now is (a link, a folder, a file open elsewhere) is
// replaced rather than written through.
func replace(path string, data []byte, perm fs.FileMode) error {
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		if err := os.RemoveAll(path); err != nil {
			return err
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".restore-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// restoreDot puts back .git. A git directory that was moved and pointed to
// from .git (as git init --separate-git-dir does), or moved beside it in
// the root, is moved back; anything else left at .git is removed.
func (s *Snapshot) restoreDot() (Kind, error) {
	e := s.dot
	if !e.exists || !e.info.IsDir() {
		return s.put(e)
	}
	if fi, err := os.Lstat(e.path); err == nil && os.SameFile(fi, e.info) {
		return Changed, os.Chmod(e.path, e.info.Mode().Perm()) // the same folder, another mode
	}
	moved := s.findMoved()
	if err := os.RemoveAll(e.path); err != nil {
		return Changed, err
	}
	if moved == "" {
		return Removed, errors.New("the git directory is gone, and was not found beside it")
	}
	return Moved, os.Rename(moved, e.path)
}

// findMoved returns where the recorded .git folder is now: where .git
// points, or an entry of the root; "" when neither.
func (s *Snapshot) findMoved() string {
	var candidates []string
	if l := Find(s.root); l.Git != "" && l.Git != s.dot.path {
		candidates = append(candidates, l.Git)
	}
	if names, err := readNames(s.root); err == nil {
		for _, n := range names {
			candidates = append(candidates, filepath.Join(s.root, n))
		}
	}
	for _, c := range candidates {
		if c == s.dot.path {
			continue
		}
		if fi, err := os.Lstat(c); err == nil && fi.IsDir() && os.SameFile(fi, s.dot.info) {
			return c
		}
	}
	return ""
}
