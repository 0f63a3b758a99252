package tools

import (
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
	// not see, to find what an ignore file's change would expose.
	maxSecretScan = 50000
	// maxHidden bounds how many paths are hidden from a command: bwrap
	// takes time that grows faster than their number (about 50 ms for
	// 100, 1.3 s for 500). Secrets by name come first, then ignored paths
	// from the shallowest.
	maxHidden = 200
	// racy is how close to a walk a folder may have changed for the walk
	// to be trusted later: a change within the same tick of the file
	// system's clock leaves its time as it was.
	racy = 2 * time.Second
)

// stamp is what a folder or an ignore file looked like to a walk.
type stamp struct {
	exists bool
	mod    time.Time
	size   int64
}

func stampOf(p string) stamp {
	fi, err := os.Lstat(p)
	if err != nil {
		return stamp{}
	}
	return stamp{exists: true, mod: fi.ModTime(), size: fi.Size()}
}

// hiddenList is the paths of a workspace that commands must not see: files
// and folders whose names hold secrets, and what .gitignore ignores. One
// walk finds them, and is made again only when something it saw changed:
// names appear and disappear only by changing a folder, and rules only by
// changing an ignore file. Where the system can watch folders (inotify),
// whether any folder changed since the walk costs one read, however many
// there are; elsewhere, and when the watch cannot be had, it costs a look
// at the time of every folder. The ignore files the walk read, and
// .git/info/exclude, are few: their times are looked at every time.
type hiddenList struct {
	mu       sync.Mutex
	paths    []string
	dirs     map[string]stamp // the folders the walk read
	files    map[string]stamp // the ignore files it read or would read
	watch    *folderWatch
	watching bool // every folder in dirs is watched
	noWatch  bool // look at the folders' times even where they could be watched, for tests
	walked   bool
	distrust bool // something changed too close to the walk to trust its time
	walks    int  // how many walks were made, for tests
}

// Hidden returns the paths in the workspace that commands must not see,
// for a sandbox to hide: those whose names hold secrets
// (fence.SecretName) and those the workspace's .gitignore files and
// .git/info/exclude ignore, or ignored when the run started, a folder
// standing for everything in it. It
// looks at no more than 50,000 entries, leaves out the git directory and
// folders named node_modules that nothing ignores, and returns at most 200
// paths, secrets by name first. The list is found once and found again
// only when a folder it looked at, or an ignore file, changed.
func (w *Workspace) Hidden() []string {
	h := w.hidden
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.walked || h.distrust || h.changed() {
		h.walk(w)
	}
	return slices.Clone(h.paths)
}

// changed reports whether a folder or an ignore file the last walk saw is
// not as it was.
func (h *hiddenList) changed() bool {
	for p, st := range h.files {
		if stampOf(p) != st {
			return true
		}
	}
	if h.watching {
		return h.watch.changed()
	}
	for p, st := range h.dirs {
		if stampOf(p) != st {
			return true
		}
	}
	return false
}

func (h *hiddenList) walk(w *Workspace) {
	h.walks++
	began := time.Now()
	h.paths, h.dirs, h.files = nil, make(map[string]stamp), make(map[string]stamp)
	if h.watch == nil {
		h.watch = newFolderWatch()
		// A Workspace has no Close: its watch goes when it does.
		runtime.AddCleanup(h, func(fw *folderWatch) { fw.close() }, h.watch)
	}
	h.watching = !h.noWatch && h.watch.reset()
	root, err := os.OpenRoot(w.root)
	if err != nil {
		h.walked = false
		return
	}
	defer root.Close()
	ig := newIgnores(root)
	layout := gitdir.Find(w.root)
	exclude := filepath.Join(w.root, ".git", "info", "exclude")
	h.files[exclude] = stampOf(exclude)
	var secrets, ignored []string
	seen := 0
	filepath.WalkDir(w.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if layout.Holds(p) || d.Name() == ".git" {
				return filepath.SkipDir
			}
		}
		if p != w.root {
			if seen++; seen > maxSecretScan {
				return filepath.SkipAll
			}
			rel := w.Rel(p)
			if secretName(d.Name()) != "" {
				secrets = append(secrets, p)
				return skip(d)
			}
			if ignoredNowOrAtStart(ig, w.start, rel, d.IsDir()) {
				ignored = append(ignored, p)
				return skip(d)
			}
			if d.IsDir() && d.Name() == "node_modules" {
				return filepath.SkipDir
			}
		}
		if d.IsDir() {
			// Watched before its names are read: a name made after the
			// read is a change.
			if h.watching && !h.watch.add(p) {
				h.watching = false
				h.watch.close()
			}
			h.dirs[p] = stampOf(p)
		} else if d.Name() == ".gitignore" {
			h.files[p] = stampOf(p)
		}
		return nil
	})
	// The shallowest ignored paths are the likeliest to be the user's own
	// settings; the deepest, build output.
	slices.SortStableFunc(ignored, func(a, b string) int {
		return strings.Count(a, string(filepath.Separator)) - strings.Count(b, string(filepath.Separator))
	})
	h.paths = append(secrets, ignored...)
	if len(h.paths) > maxHidden {
		h.paths = h.paths[:maxHidden]
	}
	h.walked = true
	h.distrust = recent(h.files, began)
	if !h.watching {
		h.distrust = h.distrust || recent(h.dirs, began)
	}
}

// recent reports whether one of stamps changed so close to when a walk
// began that a later change could leave its time as it was.
func recent(stamps map[string]stamp, began time.Time) bool {
	for _, st := range stamps {
		if st.exists && st.mod.After(began.Add(-racy)) {
			return true
		}
	}
	return false
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

func skip(d fs.DirEntry) error {
	if d.IsDir() {
		return filepath.SkipDir
	}
	return nil
}
