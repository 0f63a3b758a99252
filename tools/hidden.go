package tools

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"harness/gitdir"
)

const (
	// maxSecretScan bounds the entries one walk of the workspace looks at:
	// to read the ignore rules of the start, to find what commands must
	// not see, to find what an ignore file's change would expose. A walk
	// looks at no entry by itself (see walkTree): 100,000 cost about
	// what 50,000 did when it did, and a large repository's folders past
	// the bound are hidden from commands whole.
	maxSecretScan = 100000
	// maxHidden bounds how many paths are hidden from a command: bwrap
	// takes time that grows faster than their number (about 50 ms for
	// 100, 1.3 s for 500). Past it, the folders that hold the deepest
	// paths are hidden instead of them.
	maxHidden = 200
	// racy is how close to a walk a folder may have changed for the walk
	// to be trusted later: a change within the same tick of the file
	// system's clock leaves its time as it was. A file system whose times
	// are whole seconds (FAT, HFS+, some network shares) ticks every one
	// or two of them.
	racy = 2 * time.Second
	// fineRacy is racy on a file system whose times hold parts of a
	// second: its clock ticks in at most a few milliseconds (a kernel's
	// tick, exFAT's 10 ms).
	fineRacy = 100 * time.Millisecond
)

// racyFor is racy for a version whose modification time is mod and
// change time change (nanoseconds; 0 where the system gives none): a
// time with a part of a second shows a file system that keeps such parts.
// Two whole seconds could be chance, as they could be a coarse clock, so
// they get the longer margin.
func racyFor(mod time.Time, change int64) time.Duration {
	if mod.Nanosecond() != 0 || change%int64(time.Second) != 0 {
		return fineRacy
	}
	return racy
}

// stamp is what a folder or an ignore file looked like to a walk: its
// change time too, which a file rewritten at its size with its time set
// back does not keep.
type stamp struct {
	exists bool
	mod    time.Time
	size   int64
	change int64
}

func stampOf(p string) stamp {
	l, err := lookAt(p)
	if err != nil {
		return stamp{}
	}
	return l.stamp()
}

// targetStampOf returns, when p is a link, what the file it leads to
// looks like: .git/info/exclude is read through a link (follows), and the
// file it leads to is written without a change to the link. It returns
// the zero stamp for anything else, and for a link that leads nowhere.
func targetStampOf(p string) stamp {
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return stamp{}
	}
	fi, err := os.Stat(p)
	if err != nil {
		return stamp{}
	}
	return stampFrom(fi)
}

// hiddenList is the paths of a workspace that commands must not see: files
// and folders whose names hold secrets, and what .gitignore ignores. One
// walk finds them, and is made again only when something it saw changed:
// names appear and disappear only by changing a folder, and rules only by
// changing an ignore file. Where the system can watch folders (inotify),
// whether any folder changed since the walk costs one read, however many
// there are, and a look at the times of the ignore files that exist and
// of .git/info/exclude; elsewhere, and when the watch cannot be had, it
// costs a look at the time of every folder too.
type hiddenList struct {
	mu    sync.Mutex
	paths []string
	// dirs and files are made anew by each walk, and not changed after
	// it: ignoreStamps hands them out.
	dirs []string // the folders the walk read
	// stamps holds the times of dirs when they are not watched; nil
	// while they are.
	stamps  map[string]stamp
	files   map[string]stamp // the ignore files it read: those its folders' names showed, and exclude
	exclude string           // of those, the one in no folder the walk read
	// excludeTarget is what the file exclude leads to looked like, when
	// it is a link (targetStampOf).
	excludeTarget stamp
	watch         *folderWatch
	watching      bool // every folder in dirs is watched
	// looks is what the folders the start's walk read looked like, all
	// watched since before then (see surveyStat); nil when the walk did
	// not take them over, or the watch was given up.
	looks map[string]readFolder
	// seen is whether the watch reported a change since the walk, kept
	// until the next walk: more than one check reads it (see events).
	seen     bool
	noWatch  bool // look at the folders' times even where they could be watched, for tests
	walked   bool
	distrust bool // something changed too close to the walk to trust its time
	walks    int  // how many walks were made
	reads    int  // how many folders they read, for tests
	scan     int  // the entries a walk looks at, if not maxSecretScan, for tests
	watchMax int  // the folders the watch takes before it fails, if not 0, for tests
	keepMax  int  // the same of the watch of the start's walk
	err      error
}

// ErrHideTooMany is wrapped by the error of Hidden when what commands
// must not see cannot be hidden in full: no command may run then.
var ErrHideTooMany = errors.New("too many secret or ignored paths to hide")

// Hidden returns the paths in the workspace that commands must not see,
// for a sandbox to hide: those whose names hold secrets
// (fence.SecretName) and those the workspace's .gitignore files and the
// repository's exclude file (excludeOf) ignore, or ignored when the run started, under this
// path or, renamed since, another, a folder standing for everything in
// it. It leaves out the git directory and
// folders named node_modules that nothing ignores. It fails closed: it
// looks at no more than 100,000 entries and hides whole the top-level
// folders it did not finish looking at; past 200 paths it hides the
// folders that hold the deepest instead, and when even the top-level
// entries to hide are more than 200 it returns an error that wraps
// ErrHideTooMany, as it returns one when it cannot look at the
// workspace: the caller must then run no command. The list is found once
// and found again only when a folder it looked at, or an ignore file,
// changed.
func (w *Workspace) Hidden() ([]string, error) {
	h := w.hidden
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.walked || h.distrust || h.changed() {
		h.walk(w)
	}
	if h.err != nil {
		return nil, h.err
	}
	return slices.Clone(h.paths), nil
}

// changed reports whether a folder or an ignore file the last walk saw is
// not as it was. An ignore file that was not there needs no look: made,
// it changes its folder, which the watch or the folder's times show; so
// files holds none of a folder whose names showed none. The others are
// looked at each time, whether written under their name or another (a
// link): the watch does not report writes.
func (h *hiddenList) changed() bool {
	for p, st := range h.files {
		if (st.exists || p == h.exclude) && stampOf(p) != st {
			return true
		}
	}
	if targetStampOf(h.exclude) != h.excludeTarget {
		return true
	}
	if h.watching {
		return h.events()
	}
	for p, st := range h.stamps {
		if stampOf(p) != st {
			return true
		}
	}
	return false
}

func (h *hiddenList) walk(w *Workspace) {
	h.walks++
	began := time.Now()
	// As many folders as the last walk, or the census, saw.
	size := max(len(h.dirs), w.census.size())
	h.paths, h.err, h.dirs, h.files = nil, nil, make([]string, 0, size), make(map[string]stamp) // few folders hold an ignore file
	if h.watch == nil {
		h.watch = newFolderWatch()
		// A Workspace has no Close: its watch goes when it does.
		runtime.AddCleanup(h, func(fw *folderWatch) { fw.close() }, h.watch)
	}
	// The rules of the start are read before the first command, by a walk
	// of their own: the folders it read, watched since, need not be read
	// again when none changed. Where folders are not watched, each is
	// taken as that walk read it, just before, when a look at it now finds
	// the times it had before that walk read it, which had settled by
	// then: nothing changed in it since (see unchanged).
	var keep *readFolders
	if !w.started.Load() {
		keep = newReadFolders(size, !h.noWatch)
		keep.max = h.keepMax
	}
	start := w.beginWith(keep)
	known := keep.still()
	h.seen = false
	h.looks = nil
	// lookedAt is when the walk began that looked at the folders before
	// it read them: the start's, when this one took them unwatched.
	lookedAt := began
	switch {
	case known != nil && keep.watched():
		h.watch.take(keep.fw)
		h.watching, h.looks = true, known
	case known != nil:
		h.watching, lookedAt = false, keep.began
	default:
		keep.close()
		h.watching = !h.noWatch && h.watch.reset()
	}
	h.stamps = nil
	if !h.watching {
		h.stamps = make(map[string]stamp, size)
	}
	root, err := os.OpenRoot(w.root)
	if err != nil {
		h.walked = false
		h.err = fmt.Errorf("finding what commands must not see: %w", err)
		return
	}
	defer root.Close()
	// The walk reads a folder before it decides anything in it: the
	// rules are frozen, and each folder's loaded as it is read.
	ig := w.ignores(root)
	// Its marks are asked for in the same order: a chain of them is
	// enough.
	ig.frozen = true
	var marks folderChain[ruleMark]
	layout := gitdir.Find(w.root)
	ig.layout = &layout // the rules find the exclude file by it too
	h.exclude = excludeOf(w.root, layout)
	h.files[h.exclude] = stampOf(h.exclude)
	h.excludeTarget = targetStampOf(h.exclude)
	var secrets, ignored, unseen []string
	// The folders read where nothing moved in, from the root down to the
	// last one read: the walk goes depth first, so a folder's entries are
	// classified while it is held.
	var unmoved folderChain[bool]
	seen, cut, lost := 0, "", false
	// A folder is read as the start's walk read it, or through the
	// census: either may give only the entries a walk does something
	// with (see census), chosen under the start's rules. They are all
	// this walk needs when the rules that apply to the folder are still
	// those, and the start's look at the identity of every file (see
	// protects) is not needed: else every entry is read.
	read := func(dir string) ([]fs.DirEntry, error) {
		k := known[dir]
		var l folderList
		ok := k.taken()
		if ok {
			l = keep.listOf(k)
		} else {
			h.reads++
			var err error
			if l, err = w.census.look(dir, nil); err != nil {
				return nil, err
			}
		}
		rel := below(w.root, dir)
		// Nothing moved in or was linked anew in a folder the start's
		// walk read and watched since, when it had not changed for a
		// while when that walk looked at it (a protected file linked in
		// before that look, while the walk went on elsewhere, was read
		// as a name like any other), or in one as it was then.
		still := ok && start.steady(rel) || start != nil && len(start.protected) > 0 && start.unmoved(dir, rel)
		unmoved.push(dir, still)
		if !ig.none(rel, l.entries) {
			ig.load(rel)
		}
		if l.whole {
			return l.entries, nil
		}
		was, marked := start.mark(rel)
		if !marked || !l.chosenUnder(was) || markIn(&marks, ig, rel) != was || start.linked || len(start.protected) > 0 && !still {
			h.reads++
			l, err := w.census.whole(dir, nil)
			if ok {
				// Its names are read now, not taken: what moved in since
				// the start's walk read them shows by the folder's times,
				// looked at after the read, as above.
				unmoved.push(dir, start != nil && start.unmoved(dir, rel))
			}
			return l.entries, err
		}
		seen += l.count - len(l.entries) // looked at by the walk that kept them
		return l.entries, nil
	}
	// classify notes p when commands must not see it, and reports whether
	// the walk goes on into it: not into what is hidden, the git
	// directory, nor node_modules that nothing ignores.
	classify := func(p string, d fs.DirEntry) bool {
		if d.IsDir() && (layout.Holds(p) || d.Name() == ".git") {
			return false
		}
		if secretName(d.Name()) != "" {
			secrets = append(secrets, p)
			return false
		}
		if ignoredNowOrAtStart(ig, start, below(w.root, p), d.IsDir()) || start.protects(d, unmoved.of(filepath.Dir(p))) {
			ignored = append(ignored, p)
			return false
		}
		return d.IsDir() && d.Name() != "node_modules"
	}
	walkTree(w.root, read, func(p string, d fs.DirEntry) error {
		if p != w.root {
			if seen++; seen > cmp.Or(h.scan, maxSecretScan) {
				cut = p
				return filepath.SkipAll
			}
			if !classify(p, d) {
				return skip(d)
			}
		}
		if d.IsDir() {
			// Watched before its names are read: a name made after the
			// read is a change. A watched folder needs no time. One the
			// start's walk read is watched already; unwatched, it is
			// taken only unchanged since, and read again else.
			k := known[p]
			if !h.watching && k.taken() && !k.unchanged(p, lookedAt) {
				delete(known, p)
				k = readFolder{}
			}
			if h.watching && !k.taken() && (h.watchMax > 0 && len(h.dirs) >= h.watchMax || !h.watch.add(p)) {
				lost = h.unwatch()
			}
			h.dirs = append(h.dirs, p)
			if !h.watching {
				h.stamps[p] = k.stamp(p)
			}
		}
		return nil
	}, func(dir string, entries []fs.DirEntry, err error) {
		if err != nil {
			unmoved.push(dir, false)
		}
		// A folder whose names hold no ignore file has none: made, it
		// changes the folder (see changed, ignoreFilesChanged).
		if err != nil || !ig.none(below(w.root, dir), entries) {
			gi := gitdir.Join(dir, ".gitignore")
			h.files[gi] = stampOf(gi)
		}
	})
	// The shallowest ignored paths are the likeliest to be the user's own
	// settings; the deepest, build output.
	slices.SortStableFunc(ignored, func(a, b string) int {
		return strings.Count(a, string(filepath.Separator)) - strings.Count(b, string(filepath.Separator))
	})
	if cut != "" {
		// The walk stopped inside the top-level entry that holds cut:
		// that entry and those after it, which it never reached, are
		// hidden whole when folders, by their names when files.
		first, _, _ := strings.Cut(filepath.ToSlash(w.Rel(cut)), "/")
		entries, err := os.ReadDir(w.root)
		if err != nil {
			h.walked = false
			h.err = fmt.Errorf("finding what commands must not see: %w", err)
			return
		}
		for _, e := range entries {
			if e.Name() < first {
				continue
			}
			p := filepath.Join(w.root, e.Name())
			if classify(p, e) {
				unseen = append(unseen, p)
			}
		}
	}
	all := append(append(secrets, ignored...), unseen...)
	h.paths = fold(w.root, all, maxHidden)
	if h.paths == nil && len(all) > 0 {
		h.err = fmt.Errorf("%w: the workspace root holds more than %d files and folders that are secret or that .gitignore ignores, more than a command's sandbox can hide, so no command runs; move them into a folder, or remove them", ErrHideTooMany, maxHidden)
	}
	h.walked = true
	w.census.save(false) // a census not kept costs the next run a walk, nothing more
	h.distrust = lost || recent(h.files, began) || h.excludeTarget.exists && !settled(h.excludeTarget, began)
	if !h.watching {
		h.distrust = h.distrust || recent(h.stamps, lookedAt)
	}
}

// folderChain holds a value for each folder from a walk's root down to
// the last one pushed: a walk that goes depth first needs those of the
// folders above where it is, not one for every folder.
type folderChain[T any] struct {
	dirs []string
	vals []T
}

// push holds v for dir, after it lets go of the folders that do not hold
// dir.
func (c *folderChain[T]) push(dir string, v T) {
	for n := len(c.dirs); n > 0 && !holdsPath(c.dirs[n-1], dir); n-- {
		c.dirs, c.vals = c.dirs[:n-1], c.vals[:n-1]
	}
	c.dirs, c.vals = append(c.dirs, dir), append(c.vals, v)
}

// of returns the value held for dir, or the zero value.
func (c *folderChain[T]) of(dir string) T {
	v, _ := c.find(dir)
	return v
}

// find returns the value held for dir, and whether there is one.
func (c *folderChain[T]) find(dir string) (T, bool) {
	for i := len(c.dirs) - 1; i >= 0; i-- {
		if c.dirs[i] == dir {
			return c.vals[i], true
		}
	}
	var zero T
	return zero, false
}

// holdsPath reports whether dir lies in the folder up, a path of the
// same walk: both absolute, or both from its root ("" for it),
// slash-separated.
func holdsPath(up, dir string) bool {
	if len(dir) <= len(up) || dir[:len(up)] != up {
		return false
	}
	return up == "" || dir[len(up)] == '/' || dir[len(up)] == filepath.Separator || os.IsPathSeparator(up[len(up)-1])
}

// events reports whether the watch saw a folder change since the walk.
func (h *hiddenList) events() bool {
	h.seen = h.seen || h.watch.changed()
	return h.seen
}

// unwatch gives up the watch in the middle of a walk, when a folder
// could not be added to it: the folders watched so far get their times,
// taken now, and a change the watch saw before that, which their times
// may not show, is reported.
func (h *hiddenList) unwatch() (changed bool) {
	h.stamps = make(map[string]stamp, len(h.dirs))
	for _, d := range h.dirs {
		h.stamps[d] = stampOf(d)
	}
	changed = h.events()
	h.watching, h.looks = false, nil
	h.watch.close()
	return changed
}

// surveyStat returns how a survey for repositories that begins now
// looks at a folder (gitdir.Surveys.StatWith): a folder the walk of the
// start looked at, and watched from before then, has the names it had
// then while the watch saw no change in any folder, and is given as it
// looked; any other is looked at now.
func (w *Workspace) surveyStat() func(string) (fs.FileInfo, error) {
	h := w.hidden
	h.mu.Lock()
	looks := h.looks
	if looks != nil && (!h.watching || h.events()) {
		looks = nil
	}
	h.mu.Unlock()
	return func(dir string) (fs.FileInfo, error) {
		if f := looks[dir]; f.fi != nil {
			return f.fi, nil
		}
		l, err := lookAt(dir)
		if err != nil {
			return nil, err
		}
		return &l, nil
	}
}

// recent reports whether one of stamps changed so close to when a walk
// began that a later change could leave its time as it was.
func recent(stamps map[string]stamp, began time.Time) bool {
	for _, st := range stamps {
		if st.exists && !settled(st, began) {
			return true
		}
	}
	return false
}

// fold returns paths, all inside root, in no more than limit paths that
// cover them: paths inside another of the list are dropped, and while
// there are too many, each path deeper than the deepest level kept is
// replaced by its folder at that level. It returns nil when even the
// entries right in root are more than limit.
func fold(root string, paths []string, limit int) []string {
	parts := func(p string) []string {
		rel, _ := filepath.Rel(root, p)
		return strings.Split(rel, string(filepath.Separator))
	}
	level := 0
	for _, p := range paths {
		level = max(level, len(parts(p)))
	}
	paths = outermost(root, paths)
	for len(paths) > limit {
		if level <= 1 {
			return nil
		}
		level--
		out := make([]string, 0, len(paths))
		for _, p := range paths {
			if ps := parts(p); len(ps) > level {
				p = filepath.Join(append([]string{root}, ps[:level]...)...)
			}
			out = append(out, p)
		}
		paths = outermost(root, out)
	}
	return paths
}

// outermost returns paths, in their order, without repeats and without
// those inside another of them: hiding a folder hides what it holds, and
// a sandbox cannot hide a path inside a folder it has already hidden.
func outermost(root string, paths []string) []string {
	set := make(map[string]bool, len(paths))
	for _, p := range paths {
		set[p] = true
	}
	out := paths[:0:0]
	kept := make(map[string]bool, len(paths))
	for _, p := range paths {
		inside := false
		for d := filepath.Dir(p); len(d) > len(root); d = filepath.Dir(d) {
			if set[d] {
				inside = true
				break
			}
		}
		if !inside && !kept[p] {
			kept[p] = true
			out = append(out, p)
		}
	}
	return out
}

// ignoredNowOrAtStart reports whether the rules of now, or those read
// when the run started, ignore rel itself (its folders were not).
func ignoredNowOrAtStart(now, start *ignores, rel string, isDir bool) bool {
	if _, ok := now.decide(rel, isDir); ok {
		return true
	}
	if start == nil {
		return false
	}
	_, ok := start.decide(rel, isDir)
	return ok
}

// below returns abs, a path a walk of root found in it, relative to root
// with forward slashes, as Workspace.Rel does, without its checks.
func below(root, abs string) string {
	return filepath.ToSlash(strings.TrimPrefix(abs[len(root):], string(filepath.Separator)))
}

func skip(d fs.DirEntry) error {
	if d.IsDir() {
		return filepath.SkipDir
	}
	return nil
}

// ignoreStamps are the ignore files the last walk of Hidden read or
// would read (every folder's .gitignore, and .git/info/exclude), with what
// each looked like then.
type ignoreStamps struct {
	files   map[string]stamp // those the walk's folders' names showed, and exclude
	dirs    []string         // the folders the walk read: one's .gitignore not in files was not there
	exclude string
	target  stamp // what exclude leads to, when a link (targetStampOf)
	walk    int   // which walk of Hidden they come from
}

// ignoreStamps returns the ignore files the last walk of Hidden read or
// would read. The walk's own lists are handed out, not copied: the next
// walk makes others.
func (w *Workspace) ignoreStamps() ignoreStamps {
	h := w.hidden
	h.mu.Lock()
	defer h.mu.Unlock()
	return ignoreStamps{files: h.files, dirs: h.dirs, exclude: h.exclude, target: h.excludeTarget, walk: h.walks}
}

// ignoreFilesChanged returns the ignore files of before, relative to the
// root and sorted, that are not as they were: written, made or removed.
// Where the walk's folders are watched, and the watch saw none of them
// change, only the ignore files that existed are looked at, and
// .git/info/exclude, in no folder watched: one made or removed would be a
// change the watch sees. Else each folder's is.
func (w *Workspace) ignoreFilesChanged(before ignoreStamps) []string {
	h := w.hidden
	h.mu.Lock()
	// A walk since before was taken may have reset the watch: all are
	// looked at then.
	quick := h.watching && before.walk == h.walks && !h.events()
	h.mu.Unlock()
	var out []string
	for p, st := range before.files {
		if (!quick || p == before.exclude || st.exists) && stampOf(p) != st || p == before.exclude && targetStampOf(p) != before.target {
			out = append(out, w.Rel(p))
		}
	}
	if !quick {
		for _, dir := range before.dirs {
			gi := gitdir.Join(dir, ".gitignore")
			if _, ok := before.files[gi]; !ok && stampOf(gi).exists {
				out = append(out, w.Rel(gi))
			}
		}
	}
	slices.Sort(out)
	return out
}
