package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// verdicts keeps what Secret decided of each path, with what the answer
// depended on, so that a path asked about again is decided again only when
// one of those changed: the approval step and then the tool ask about the
// same file within a moment, and a model reads the same files again and
// again.
//
// An answer depends on the names in each folder from the root to the path
// (which ignore files, .git and the path itself are there), on what the
// ignore files that are there hold, on .git's folders when it is one, and
// on the path's own identity and link count (a file linked to a protected
// one is protected, see Workspace.secret), which only its change time
// shows: where the system gives none, nothing is kept. A folder's names
// change only with its change time, which no program sets back, and a
// file's text or link count only with its own: so each is kept as it
// looked (folderStamp), and the answer holds while all of them look the
// same. An answer decided after the rules of the start were read holds as
// long: what they protect by identity is at the path it had (renamed, a
// file or folder changes its folder), a file with more names excepted,
// which the start is read for before it is decided. One decided before
// them is not given once they are read: they may protect what the rules of
// the moment do not (what they ignored then, by its identity). An ignore
// file that is a link is no look to keep an answer by: at
// .git/info/exclude, the file it leads to is written, and its rules
// change, with no change to the link. As for the census, a look is trusted
// only when what it saw had not changed for a while (settled): a change
// within the same tick of the file system's clock would not show. A path
// with an unsettled look, without an identity, or whose repository is not
// a plain .git folder (a .git file or link, or a commondir, points
// elsewhere) is decided every time.
type verdicts struct {
	mu sync.Mutex
	m  map[string]verdict // by absolute path
	// absent holds the paths that were not there when their folder looked
	// as it holds (see dependsOn).
	absent  map[string]folderStamp
	decided int // how many answers were decided in full, for tests
	looked  int // how many paths they looked at, for tests
}

// verdict is one answer of Secret and what it depended on.
type verdict struct {
	why     string
	started bool   // the start's rules were read when it was decided
	looks   []look // the path itself last
}

// look is a path as a verdict saw it.
type look struct {
	path string
	st   folderStamp
}

// maxVerdicts bounds the paths verdicts keeps answers for; past it, it
// forgets them all and starts again.
const maxVerdicts = 4096

func (v *verdicts) get(abs string) (verdict, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	got, ok := v.m[abs]
	return got, ok
}

func (v *verdicts) put(abs string, got verdict) {
	v.mu.Lock()
	defer v.mu.Unlock()
	putBounded(&v.m, abs, got, maxVerdicts)
}

// gone reports whether p was not there when its folder looked as in.
func (v *verdicts) gone(p string, in folderStamp) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	was, ok := v.absent[p]
	return ok && was == in
}

// goneFrom notes that p is not there in its folder, which looks as in.
func (v *verdicts) goneFrom(p string, in folderStamp) {
	v.mu.Lock()
	defer v.mu.Unlock()
	putBounded(&v.absent, p, in, maxVerdicts)
}

func (v *verdicts) count() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.looked++
}

// holds reports whether the answer still holds: every path looks as it
// did. It returns the path's own information, as it looks now.
func (got verdict) holds() (fs.FileInfo, bool) {
	var fi fs.FileInfo
	for _, l := range got.looks {
		var err error
		if fi, err = os.Lstat(l.path); err != nil {
			return nil, false
		}
		if st, ok := fileStampOf(fi); !ok || st != l.st {
			return nil, false
		}
	}
	return fi, true
}

// dependsOn returns what the answer of Secret for abs, a path inside the
// workspace other than its root, depends on (see verdicts), looked at
// now, and the path's own information; false when the answer cannot be
// kept: something it depends on changed too recently, has no identity,
// cannot be looked at, or is not there (abs itself, or a folder on the
// way to it), or the repository is not a plain .git folder.
func (w *Workspace) dependsOn(abs string, now time.Time) ([]look, fs.FileInfo, bool) {
	looks := make([]look, 0, 6)
	// see looks at p, a name in the folder whose look is in (nil for the
	// root): false when it cannot be trusted. A path that is not there is
	// trusted, and needs no look of its own: its folder's shows when it
	// is made. So one that was not there when its folder looked as it
	// does now is not there still, and is not looked at again.
	see := func(p string, in *folderStamp) (fs.FileInfo, *folderStamp, bool) {
		if in != nil && w.verdicts.gone(p, *in) {
			return nil, nil, true
		}
		w.verdicts.count()
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			if in != nil {
				w.verdicts.goneFrom(p, *in)
			}
			return nil, nil, true
		}
		if err != nil {
			return nil, nil, false
		}
		// Without a change time (some systems give none), a file
		// rewritten at its size with its time set back, or linked anew,
		// looks as it did: nothing is kept then.
		st, ok := versionOf(fi, now)
		if !ok || st.change == 0 {
			return nil, nil, false
		}
		looks = append(looks, look{p, st})
		return fi, &looks[len(looks)-1].st, true
	}
	// rules looks at the ignore file p, in the folder whose look is in:
	// false for a link too (see verdicts).
	rules := func(p string, in *folderStamp) bool {
		fi, _, ok := see(p, in)
		return ok && (fi == nil || fi.Mode()&fs.ModeSymlink == 0)
	}
	// folder looks at the folder p and its ignore file.
	folder := func(p string, in *folderStamp) (*folderStamp, bool) {
		fi, st, ok := see(p, in)
		if !ok || fi == nil || !fi.IsDir() {
			return nil, false
		}
		return st, rules(filepath.Join(p, ".gitignore"), st)
	}
	if !w.contains(abs) {
		return nil, nil, false
	}
	dir, rest := w.root, below(w.root, abs)
	top, ok := folder(dir, nil)
	if rest == "" || !ok {
		return nil, nil, false
	}
	// The repository's: git finds a .git folder where it is, and its
	// exclude file in it.
	git := filepath.Join(w.root, ".git")
	switch fi, st, ok := see(git, top); {
	case !ok:
		return nil, nil, false
	case fi != nil:
		if !fi.IsDir() {
			return nil, nil, false // a file or link that points elsewhere
		}
		if common, _, ok := see(filepath.Join(git, "commondir"), st); !ok || common != nil {
			return nil, nil, false
		}
		info := filepath.Join(git, "info")
		switch fi, st, ok := see(info, st); {
		case !ok || fi != nil && !fi.IsDir():
			return nil, nil, false
		case fi != nil:
			if !rules(filepath.Join(info, "exclude"), st) {
				return nil, nil, false
			}
		}
	}
	in := top
	for {
		seg, more, deeper := strings.Cut(rest, "/")
		if !deeper {
			break
		}
		dir, rest = filepath.Join(dir, seg), more
		if in, ok = folder(dir, in); !ok {
			return nil, nil, false
		}
	}
	fi, _, ok := see(abs, in)
	if !ok || fi == nil || fi.Mode()&fs.ModeSymlink != 0 {
		return nil, nil, false
	}
	return looks, fi, true
}
