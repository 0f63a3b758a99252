package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"harness/gitdir"
)

// walkTree walks the tree at root as filepath.WalkDir does, depth first
// in lexical order, never into a symlink, without looking at any entry:
// the types of a folder's entries come with their names. fn is called for
// root and each entry, a folder before its names are read; it returns
// filepath.SkipDir to leave a folder out, filepath.SkipAll to stop. Each
// folder fn went into is then given to listed with its entries, before fn
// sees any of them, or with the error that kept them from being read.
// read reads a folder's entries, sorted by name; nil is os.ReadDir.
func walkTree(root string, read func(dir string) ([]fs.DirEntry, error), fn func(abs string, d fs.DirEntry) error, listed func(dir string, entries []fs.DirEntry, err error)) {
	fi, err := os.Lstat(root)
	if err != nil {
		return
	}
	if read == nil {
		read = os.ReadDir
	}
	t := tree{read: read, fn: fn, listed: listed}
	t.walk(root, fs.FileInfoToDirEntry(fi))
}

// tree is one walk of walkTree.
type tree struct {
	read   func(string) ([]fs.DirEntry, error)
	fn     func(string, fs.DirEntry) error
	listed func(string, []fs.DirEntry, error)
}

// walk walks p, whose entry is d, and reports filepath.SkipAll when the
// walk stops.
func (t tree) walk(p string, d fs.DirEntry) error {
	err := t.fn(p, d)
	switch {
	case err == filepath.SkipDir && d.IsDir():
		return nil
	case err != nil:
		return err
	case !d.IsDir():
		return nil
	}
	entries, err := t.read(p)
	t.listed(p, entries, err)
	for _, e := range entries {
		switch err := t.walk(gitdir.EntryPath(p, e), e); err {
		case nil:
		case filepath.SkipDir: // from a file: the rest of its folder
			return nil
		default:
			return err
		}
	}
	return nil
}

// holdsIgnoreFile reports whether a folder's entries include its
// .gitignore, in any case: where names are not told apart by case (macOS,
// Windows), git reads .GitIgnore as the folder's ignore file, and so does
// opening ".gitignore" there.
func holdsIgnoreFile(entries []fs.DirEntry) bool {
	return slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return isIgnoreFile(e.Name()) })
}

// isIgnoreFile reports whether name is .gitignore in any case (see
// holdsIgnoreFile). Where case counts, a name that only folds to it
// costs a look for a .gitignore that is not there.
func isIgnoreFile(name string) bool {
	return strings.EqualFold(name, ".gitignore")
}

// readFolders is what a walk read of each folder, and the watch that tells
// whether any of them changed since, where there is one: the walk of the
// ignore rules of the start keeps it, so that the walk of what commands
// must not see, which comes right after it at the first command, need not
// read the folders again. Its methods do nothing on nil.
type readFolders struct {
	fw      *folderWatch          // nil where folders are not watched
	entries map[string]readFolder // by absolute path; nil once given up
	lists   []folderList          // what was read of them, by readFolder.list
	adds    int                   // how many folders were given to the watch
	max     int                   // the folders the watch takes before it fails, if not 0, for tests
	// began is when the walk that kept them began: where they are not
	// watched, a folder's look must have settled by then for a later
	// look at the same times to show that it did not change.
	began time.Time
}

// readFolder is one folder of readFolders: what os.Lstat told of it,
// after it was watched, where folders are, and before its names were
// read, and what was read of it, when listed.
type readFolder struct {
	fi   *lookInfo // nil when not known
	list int32     // 1 + its index in lists; 0 when not listed
}

// newReadFolders returns one to keep, for about size folders, that
// watches them with watch where the system can.
func newReadFolders(size int, watch bool) *readFolders {
	l := &readFolders{entries: make(map[string]readFolder, size), lists: make([]folderList, 0, size)}
	if fw := newFolderWatch(); watch && fw.reset() {
		l.fw = fw
	}
	return l
}

// watch watches dir before its names are read, where folders are
// watched; when it cannot, the keeping is given up.
func (l *readFolders) watch(dir string) {
	if l == nil || l.entries == nil || l.fw == nil {
		return
	}
	if l.max > 0 && l.adds >= l.max || !l.fw.add(dir) {
		l.entries = nil
	}
	l.adds++
}

// watched reports whether the folders kept are watched, each since
// before it was read.
func (l *readFolders) watched() bool { return l != nil && l.fw != nil }

// look keeps what dir looked like, after it was watched where folders
// are.
func (l *readFolders) look(dir string, fi *lookInfo) {
	if l != nil && l.entries != nil {
		l.entries[dir] = readFolder{fi: fi}
	}
}

// keep keeps what was read of dir.
func (l *readFolders) keep(dir string, entries folderList) {
	if l != nil && l.entries != nil {
		f := l.entries[dir]
		l.lists = append(l.lists, entries)
		f.list = int32(len(l.lists))
		l.entries[dir] = f
	}
}

// still returns the folders kept, when no name was made, removed or
// moved in any folder watched since each was read, or when they are not
// watched; else nil. Either way it reads every event of the watch. An
// ignore file written since changes no folder's names: the walk that
// takes them reads the rules as they are.
func (l *readFolders) still() map[string]readFolder {
	if l == nil || l.entries == nil || l.began.IsZero() { // the start was read by another walk
		return nil
	}
	if l.fw != nil && l.fw.changed() {
		return nil
	}
	return l.entries
}

// listOf returns what was read of f, which must be taken.
func (l *readFolders) listOf(f readFolder) folderList { return l.lists[f.list-1] }

// taken reports whether a walk may take the folder as the walk that kept
// it read it: that walk looked at it, then read it.
func (f readFolder) taken() bool { return f.list > 0 && f.fi != nil }

// stamp returns the times dir had before the walk that kept it read it,
// when that walk did; else those it has now.
func (f readFolder) stamp(dir string) stamp {
	if f.taken() {
		return stampFrom(f.fi)
	}
	return stampOf(dir)
}

// unchanged reports whether dir, whose look before its names were read f
// holds, looks the same now, and that look had settled by began, when the
// walk that took it began: then no name was made, removed or moved in it
// since, which would have stamped it with a later time.
func (f readFolder) unchanged(dir string, began time.Time) bool {
	was, ok := versionOf(f.fi, began)
	if !ok {
		return false
	}
	now, ok := folderStampOf(dir)
	return ok && now == was
}

// close closes the watch, unless another took it.
func (l *readFolders) close() {
	if l != nil && l.fw != nil {
		l.fw.close()
	}
}
