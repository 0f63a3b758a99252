package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"harness/fence"
)

// outputPrefix starts the name an inspection gives a kept result, which
// no path from the root starts with in practice; a kept result wins over
// a file of the same name.
const outputPrefix = "output:"

// Sources says what the text of a file, or of a kept result, seems to
// hold, so that the approval step can decide secrecy for a whole file
// once, whichever part or transformation of it a call would send
// (approve.Config.Leak, for the names of approve.Inspection.Reads).
type Sources struct {
	ws    *Workspace
	out   *Outputs
	leaks leakCache // what files seemed to hold, by version
	now   func() time.Time
}

// NewSources returns the Sources of the files of ws, and of the long
// results out keeps (out may be nil).
func NewSources(ws *Workspace, out *Outputs) *Sources {
	return &Sources{ws: ws, out: out, now: time.Now}
}

// Leak returns what the text of a name an inspection read gave seems to hold, as
// fence.Leak says of it ("a private key", ...), or "" when it holds none
// or cannot be read: of a file, all of its text, read in chunks. A file's answer is kept
// for as long as the file stays the same version (its identity, size and
// times), so that paging through a large file reads it for this once; a
// version changed so recently that a change within the same tick of the
// clock would not show is read every time. It never blocks on a named
// pipe. A file read_file would show whole is read in one buffer, kept
// for read_file to take while the file stays that version, in place of
// reading it again (see held).
func (s *Sources) Leak(name string) string {
	if ref, ok := strings.CutPrefix(name, outputPrefix); ok && s.out != nil {
		if text, ok := s.out.Kept(ref); ok {
			return fence.Leak(text)
		}
	}
	root, rel, abs, err := s.open(name)
	if err != nil {
		return ""
	}
	defer root.Close()
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	v, settled := versionOf(fi, s.now())
	if what, ok := s.leaks.get(abs, v); ok {
		return what
	}
	// The whole file, a chunk at a time: a secret past its first
	// megabytes is sent as surely as one at its start. One that read_file
	// shows at once is read in one buffer, which read_file takes.
	what, text, err := leakOf(f, fi.Size(), fi.Size() <= maxReadBytes)
	if err != nil {
		return ""
	}
	if !settled {
		return what // not kept: no need to look at the file again
	}
	if now, err := f.Stat(); err == nil {
		if after, _ := versionOf(now, s.now()); after == v {
			s.leaks.put(abs, v, what)
			if text != nil {
				s.ws.held.put(abs, v, text)
			}
		}
	}
	return what
}

// open opens the workspace root and returns it with the path of name
// relative to it, and the absolute path name names. A clean relative name
// with no "..", as an inspection gives a file of the workspace, is taken
// as it is: the root opens it without leaving the workspace whatever
// symlinks it meets, so resolving it first would only walk it once more.
// Any other is resolved first (Workspace.Resolve): cleaning "link/../x"
// by its text would name another file than the one behind the link.
func (s *Sources) open(name string) (*os.Root, string, string, error) {
	if rel := filepath.FromSlash(name); rel != "" && filepath.IsLocal(rel) && filepath.Clean(rel) == rel {
		root, err := os.OpenRoot(s.ws.root)
		return root, rel, filepath.Join(s.ws.root, rel), err
	}
	abs, err := s.ws.Resolve(name)
	if err != nil {
		return nil, "", "", err
	}
	root, rel, err := s.ws.within(abs)
	return root, rel, abs, err
}

// versionOf returns the version fi describes (its identity, size, and
// modification and change times: writing a file changes its change time,
// whatever is done to its modification time after), and whether it is
// settled (see settled). A file without an identity is never settled.
func versionOf(fi fs.FileInfo, now time.Time) (folderStamp, bool) {
	v, ok := fileStampOf(fi)
	return v, ok && settled(v.stamp, now)
}

// leakCache holds what files' text seemed to hold, by absolute path, each
// for one version of its file.
type leakCache struct {
	mu    sync.Mutex
	files map[string]leakVerdict
}

type leakVerdict struct {
	v    folderStamp
	what string
}

// maxLeakCache bounds the files leakCache keeps answers for; past it, it
// forgets them all and starts again.
const maxLeakCache = 4096

func (c *leakCache) get(abs string, v folderStamp) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	got, ok := c.files[abs]
	if !ok || got.v != v {
		return "", false
	}
	return got.what, true
}

func (c *leakCache) put(abs string, v folderStamp, what string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	putBounded(&c.files, abs, leakVerdict{v, what}, maxLeakCache)
}

// putBounded puts v under k in *m, which it makes, or makes anew, and so
// forgets every other entry, when it holds max: a cache that a long run
// cannot grow past max entries.
func putBounded[K comparable, V any](m *map[K]V, k K, v V, max int) {
	if *m == nil || len(*m) >= max {
		*m = make(map[K]V)
	}
	(*m)[k] = v
}
