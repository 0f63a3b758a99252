package gitdir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"harness/fence"
)

// maxSurvey bounds the entries a survey of the workspace looks at. Past
// it, the folders not reached are not looked at: a shape made there is
// neither found nor undone. A variable for the tests.
var maxSurvey = 100_000

// errNotLooked is why a shape is left in a folder that Snap did not look
// at, in a workspace larger than it looks at.
var errNotLooked = errors.New("the folder was past what was looked at before the command")

// survey is what the folders of a workspace held of the shape of a git
// directory (see Shaped), or of a .git below the root: for each folder
// that held any of those entries, their names as the folder spells them.
type survey struct {
	parts map[string][]string // by absolute folder
	cut   bool                // some folders were not looked at, for maxSurvey
	// visited is the folders looked at, when cut; else every folder was.
	visited map[string]bool
	// folders is what a later survey needs to read again only the folders
	// that changed since this one: one record for each, shared by the
	// surveys that found it unchanged.
	folders map[string]*folder
	reads   int // folders whose entries were read, not taken from before
}

// settle is how old a folder's change time must be for a survey to trust
// it later: file systems stamp times with a coarse clock. A variable for
// the tests.
var settle = 2 * time.Second

// folder is one folder as a survey saw it.
type folder struct {
	mod     int64    // its modification time, in nanoseconds
	change  int64    // its change time, which no program can set back
	entries int      // how many entries it held
	subdirs []string // the folders in it the survey went into
}

// Surveys remembers the last survey of a workspace's folders, so that the
// next one reads again only the folders that changed since: a folder that
// gains, loses or renames an entry changes, and its change time says so
// whatever a program did to its other times. Where the system gives no
// change time, every survey reads every folder.
type Surveys struct {
	mu         sync.Mutex
	last       *survey
	changeTime func(fs.FileInfo) int64
	read       func(dir string, fi fs.FileInfo) ([]fs.DirEntry, int, error)
	stat       func() func(dir string) (fs.FileInfo, error)
	size       func() int
}

// NewSurveys returns the memory of surveys of one workspace; changeTime
// tells a file's change time, 0 where the system does not say.
func NewSurveys(changeTime func(fs.FileInfo) int64) *Surveys {
	return &Surveys{changeTime: changeTime}
}

// ReadWith has the surveys read a folder's entries with read, which
// returns them sorted by name, as os.ReadDir does, and how many entries
// the folder holds: one that keeps what it read of folders that did not
// change since. It may leave out the files whose names Surveyed does not
// report, which play no part in a survey. It is given what os.Lstat told
// of the folder just before, or nil. An entry with a method Path() string
// gives its path with it, which must be dir and its name joined: the
// survey then makes no path of its own.
func (sv *Surveys) ReadWith(read func(dir string, fi fs.FileInfo) ([]fs.DirEntry, int, error)) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.read = read
}

// StatWith has each survey look at a folder, before it reads its entries,
// with the function stat returns when the survey begins, in the place of
// os.Lstat: one that knows, by other means, that a folder's names did not
// change since it was looked at, and gives what was seen then.
func (sv *Surveys) StatWith(stat func() func(dir string) (fs.FileInfo, error)) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.stat = stat
}

// SizeWith has each survey make room for as many folders as size returns
// when it begins, one that knows about how many there are, or as many as
// the survey before it kept, when that is more.
func (sv *Surveys) SizeWith(size func() int) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.size = size
}

// survey surveys root, reading again only what changed since the last
// survey, and remembers it. sv may be nil: then every folder is read.
func (sv *Surveys) survey(root string, skip []string) survey {
	if sv == nil {
		return surveyed(root, skip, nil, 0, nil, nil, os.Lstat)
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	stat := os.Lstat
	if sv.stat != nil {
		stat = sv.stat()
	}
	size := 0
	if sv.last != nil {
		size = len(sv.last.folders) // those it read that had settled
	}
	if sv.size != nil {
		size = max(size, sv.size())
	}
	s := surveyed(root, skip, sv.last, size, sv.changeTime, sv.read, stat)
	sv.last = &s
	return s
}

// isShapeName reports whether name, taken without case, is one of the
// entries that make the shape of a git directory.
func isShapeName(name string) bool {
	return strings.EqualFold(name, "HEAD") || slices.ContainsFunc(shapeNames, func(n string) bool { return strings.EqualFold(n, name) })
}

// ShapeNames returns the names beside HEAD that make the shape of a git
// directory, for a program that keeps what it decided by them.
func ShapeNames() []string { return slices.Clone(shapeNames) }

// Surveyed reports whether a survey looks at an entry named name, whatever
// its kind: one of the shape of a git directory, or .git. It looks at
// every folder too; a file of another name plays no part in it.
func Surveyed(name string) bool { return isShapeName(name) || fence.GitName(name) }

// shaped reports whether names, those of a folder's entries that are
// shape names or .git, make it a repository to git: a .git in it, or the
// shape of a git directory.
func shaped(names []string) bool {
	if slices.ContainsFunc(names, fence.GitName) {
		return true
	}
	head := slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, "HEAD") })
	return head && slices.ContainsFunc(names, func(n string) bool { return !strings.EqualFold(n, "HEAD") })
}

// surveyed looks at every folder in root, breadth first, but the .git
// folders and the repository's own git directories (skip), without
// following links, up to maxSurvey entries. A folder whose times are
// those prev saw, with a change time (from changeTime) that is known, is
// taken from prev without reading it again; its folders are still looked
// at, each by its own times. size is about how many folders there are:
// a hint, taken up to the most a survey looks at.
// read, when not nil, reads a folder's entries in the place of
// os.ReadDir; stat looks at a folder.
func surveyed(root string, skip []string, prev *survey, size int, changeTime func(fs.FileInfo) int64, read func(string, fs.FileInfo) ([]fs.DirEntry, int, error), stat func(string) (fs.FileInfo, error)) survey {
	size = min(max(size, 0), maxSurvey)
	s := survey{parts: make(map[string][]string)}
	// The queue keeps the folders taken from it, before next: those
	// looked at, but those that could not be read (unread).
	queue, next, seen := append(make([]string, 0, max(size, 1)), root), 0, 0
	var unread map[string]bool
	// While every folder looked at is taken from prev, this survey's
	// folders are prev's: they are shared, not copied, unless one is not
	// (own, given how many were taken).
	own := func(taken int) {
		if s.folders != nil {
			return
		}
		s.folders = make(map[string]*folder, size)
		for _, d := range queue[:taken] {
			s.folders[d] = prev.folders[d]
		}
	}
	if prev == nil {
		own(0)
	}
	for next < len(queue) && seen < maxSurvey {
		dir := queue[next]
		next++
		var f folder
		fi, err := stat(dir)
		if err != nil {
			fi = nil
		} else if changeTime != nil {
			// Its times before its entries: a change while they are read
			// shows next time.
			f.mod, f.change = fi.ModTime().UnixNano(), changeTime(fi)
		}
		if old, ok := prev.unchanged(dir, f); ok && seen+old.entries < maxSurvey {
			seen += old.entries
			if s.folders != nil {
				s.folders[dir] = old
			}
			if parts := prev.parts[dir]; parts != nil {
				s.parts[dir] = parts
			}
			queue = append(queue, old.subdirs...)
			continue
		}
		own(next - 1)
		entries, count, err := readSome(dir, fi, maxSurvey-seen, read)
		if err != nil {
			if unread == nil {
				unread = make(map[string]bool)
			}
			unread[dir] = true
			continue
		}
		s.reads++
		seen += count
		if seen >= maxSurvey {
			s.cut = true
		}
		dirs := 0
		for _, e := range entries {
			if e.IsDir() {
				dirs++
			}
		}
		f.subdirs = make([]string, 0, dirs)
		for _, e := range entries {
			name := e.Name()
			// The root's .git is Snap's to watch; one in a folder below
			// makes that folder a repository of its own.
			if isShapeName(name) || fence.GitName(name) && dir != root {
				s.parts[dir] = append(s.parts[dir], name)
			}
			if !e.IsDir() || fence.GitName(name) {
				continue // a file's path is never made: most entries are files
			}
			if p := EntryPath(dir, e); !slices.Contains(skip, p) {
				queue = append(queue, p)
				f.subdirs = append(f.subdirs, p)
			}
		}
		// A folder whose change time is this recent may change again
		// within the same tick of the clock that stamps it, unseen: it
		// is read again next time.
		if !s.cut && time.Since(time.Unix(0, f.change)) > settle {
			f.entries = count
			s.folders[dir] = &folder{mod: f.mod, change: f.change, entries: f.entries, subdirs: f.subdirs}
		}
	}
	if s.folders == nil && next == len(prev.folders) {
		s.folders = prev.folders // every folder prev kept, and no other
	}
	own(next)
	if s.cut {
		s.visited = make(map[string]bool, next)
		for _, dir := range queue[:next] {
			s.visited[dir] = !unread[dir]
		}
	}
	return s
}

// pathEntry is an entry that knows its path (see Surveys.ReadWith).
type pathEntry interface {
	Path() string
}

// EntryPath returns the path of e, an entry of the clean folder path dir:
// its own, when it knows it (a method Path() string, which a walk that
// keeps entries can give to share one string for each), else dir and its
// name joined.
func EntryPath(dir string, e fs.DirEntry) string {
	if pe, ok := e.(pathEntry); ok {
		return pe.Path()
	}
	return Join(dir, e.Name())
}

// Join is filepath.Join for a clean folder path and a name of an entry of
// it, which need no cleaning: what a walk does for every entry.
func Join(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// readSome returns up to n entries of dir, sorted by name, and how many
// of them count against n: read with read (given fi, what os.Lstat told
// of dir) when it is not nil, which may leave out what plays no part.
func readSome(dir string, fi fs.FileInfo, n int, read func(string, fs.FileInfo) ([]fs.DirEntry, int, error)) ([]fs.DirEntry, int, error) {
	if read != nil {
		entries, count, err := read(dir, fi)
		if err != nil && len(entries) == 0 {
			return nil, 0, err
		}
		return entries[:min(n, len(entries))], min(n, count), nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil, 0, err
	}
	defer d.Close()
	entries, _ := d.ReadDir(n)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, len(entries), nil
}

// unchanged returns what s saw of dir, when dir has the times f gives and
// its change time is known, and s read it whole.
func (s *survey) unchanged(dir string, f folder) (*folder, bool) {
	if s == nil || f.change == 0 {
		return nil, false
	}
	old, ok := s.folders[dir]
	return old, ok && old.change == f.change && old.mod == f.mod
}

// undoShapes compares the workspace with what Snap saw, and takes out,
// from each folder that is a repository to git now (a .git in it, or the
// shape of a git directory) but was not then, the entries of the shape or
// the .git it did not hold: the folder is then no repository to git. A
// folder that Snap did not look at is only reported, lest what the user
// keeps there be removed. Each entry goes to note, with the error that
// kept it from being taken out.
func (s *Snapshot) undoShapes(note func(path string, k Kind, err error)) {
	now := s.surveys.survey(s.root, s.layout.Paths())
	dirs := make([]string, 0, len(now.parts))
	for dir := range now.parts {
		dirs = append(dirs, dir)
	}
	slices.Sort(dirs)
	root, err := os.OpenRoot(s.root)
	if err == nil {
		defer root.Close()
	}
	for _, dir := range dirs {
		names, was := now.parts[dir], s.shapes.parts[dir]
		if !shaped(names) || shaped(was) {
			continue
		}
		for _, name := range names {
			if slices.Contains(was, name) {
				continue
			}
			p := filepath.Join(dir, name)
			switch rel, relErr := filepath.Rel(s.root, p); {
			case s.shapes.cut && !s.shapes.visited[dir]:
				note(p, Repository, errNotLooked)
			case err != nil:
				note(p, Repository, err)
			case relErr != nil:
				note(p, Repository, relErr)
			default:
				note(p, Repository, root.RemoveAll(rel))
			}
		}
	}
}
