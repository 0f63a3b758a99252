package tools

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"harness/fence"
	"harness/gitdir"
)

// census is what the walks of a workspace read of its folders (each
// folder's names and their types), kept between runs in the state folder
// (never in the workspace) so that a run need not read again a folder
// that did not change since. A folder's names change only with the
// folder: a name made, removed or renamed in it sets its change time,
// which no program can set back, as the folder's identity (device and
// inode) tells it from another folder moved to its path. So a folder is
// taken from the census only when all of these are as the census saw
// them, and they had not changed for a while then: a change within the
// tick of the clock that stamps them would leave them as they were (see
// racy). The census holds names only: what files hold, ignore files
// included, is read from the disk every run, and so is each entry's
// identity where a walk looks at it.
//
// Of a folder, the file keeps only the entries a walk does something
// with (see kept): its folders, the names every walk looks at whatever
// the rules (secrets, .git, the shape of a git directory, .gitignore),
// and those the ignore rules that applied to the folder ignored, with a
// fingerprint of those rules (ruleMark). A walk takes them for the whole
// folder only under the same rules; under others, it reads the folder
// from the disk. So an unchanged folder costs a run a look at its times
// and its few kept entries, not a pass over all of its names.
//
// The file is refused whole, and every folder read from the disk, when it
// is not a regular file that the user owns and that nobody else may write,
// when it does not hold what its checksum says, or when it is another
// workspace's: a census that cannot be trusted costs a walk, never a
// protection. Its methods do nothing on nil, and read from the disk.
type census struct {
	// loaded reads the file when the census is first used: a run that
	// walks nothing never pays for it.
	loaded  sync.Once
	mu      sync.Mutex
	file    string // where it is kept; "" keeps it in memory only
	root    string
	folders map[string]*censusFolder                        // by absolute path
	dirty   bool                                            // a folder was read from the disk, or forgotten
	reads   int                                             // folders read from the disk, for tests
	settle  func(mod time.Time, change int64) time.Duration // racyFor, but in tests
}

// censusFolder is one folder as the census saw it.
type censusFolder struct {
	mark  folderMark
	count int // how many entries it holds
	// entries is every entry, sorted by name, when this run read them
	// from the disk; nil when only kept is known.
	entries []fs.DirEntry
	// kept is what a walk does something with (see keptEntries), sorted
	// by name: the entries the ignore rules of rules ignored among them.
	// It is chosen by a walk under those rules, or, with rules zero, holds
	// only what every walk looks at.
	kept  []fs.DirEntry
	rules ruleMark
	used  bool // looked at by this run
}

// ruleMark is the fingerprint of the ignore rules that apply to the
// entries of a folder at a path from the root (markIn): the rules of the
// folders above it, the root's with the global excludes and the
// repository's exclude file, and its own. Two folders at the same path
// with the same mark have the same rules: what one's walk decided of an
// entry holds for the other's entry of the same name and kind. SHA-256,
// so that no ignore file can be written to give other rules a mark seen
// before. Zero stands for none known.
type ruleMark [sha256.Size]byte

// folderList is what a walk is given of a folder: every entry, or the kept
// ones (see censusFolder), sorted by name.
type folderList struct {
	entries []fs.DirEntry
	whole   bool // entries holds every entry
	// rules is, when not whole, the mark of the rules kept was chosen
	// under: the census's own, which a walk that keeps many lists shares.
	rules *ruleMark
	count int // how many entries the folder holds
}

// chosenUnder reports whether l holds the entries a walk does something
// with under the rules of mark, whether every entry or those kept under
// them.
func (l folderList) chosenUnder(mark ruleMark) bool {
	return l.whole || l.rules != nil && *l.rules == mark
}

// walkedName reports whether every walk looks at an entry whatever the
// rules, by its name: a secret's name or .git, the shape of a git
// directory, or the folder's ignore file. A change to what it looks at
// beside the lists walkedPolicy marks must change censusMagic.
func walkedName(name string) bool {
	return isIgnoreFile(name) || secretName(name) != "" || gitdir.Surveyed(name)
}

// walkedPolicy is the mark of the names walkedName looks at: the patterns
// of secret names and the shape of a git directory. It begins the mark of
// the rules of every folder (markIn), so that a census kept by a
// harness that knew other names is not trusted: a folder's kept entries
// would lack a name that is secret now.
var walkedPolicy = sync.OnceValue(func() ruleMark {
	h := sha256.New()
	for _, list := range [][]string{fence.SecretNames(), gitdir.ShapeNames()} {
		h.Write(binary.AppendUvarint(nil, uint64(len(list))))
		for _, name := range list {
			h.Write(binary.AppendUvarint(nil, uint64(len(name))))
			h.Write([]byte(name))
		}
	}
	var mark ruleMark
	h.Sum(mark[:0])
	return mark
})

// keptEntries returns the entries of a folder that a walk does something
// with under rules that ignore what ignored reports: its folders, the
// names every walk looks at (walkedName), and what the rules ignore.
// ignored may be nil: no rules.
func keptEntries(entries []fs.DirEntry, ignored func(fs.DirEntry) bool) []fs.DirEntry {
	var kept []fs.DirEntry
	for _, e := range entries {
		if e.IsDir() || walkedName(e.Name()) || ignored != nil && ignored(e) {
			kept = append(kept, e)
		}
	}
	return kept
}

// folderMark is what tells that a folder's names did not change: its
// identity and its times.
type folderMark struct {
	id     id
	mod    int64
	change int64
}

// markOf returns fi's mark, and false where the system gives no identity
// or no change time: there the census keeps nothing.
func markOf(fi fs.FileInfo) (folderMark, bool) {
	fid, ok := fileID(fi)
	ch := changeTime(fi)
	if !ok || ch == 0 {
		return folderMark{}, false
	}
	return folderMark{id: fid, mod: fi.ModTime().UnixNano(), change: ch}, true
}

// settledBy reports whether m had not changed for as long as settle
// says of its times before t.
func (m folderMark) settledBy(t time.Time, settle func(time.Time, int64) time.Duration) bool {
	old := t.Add(-settle(time.Unix(0, m.mod), m.change)).UnixNano()
	return m.mod < old && m.change < old
}

// keptEntry is an entry of a folder as the census kept it.
type keptEntry struct {
	dir, name string
	typ       fs.FileMode
	// path is the entry's path, when a folder the census kept: the path
	// that folder is kept under, which every walk and survey then shares
	// in the place of one each made by joining dir and name.
	path string
}

func (e *keptEntry) Name() string               { return e.name }
func (e *keptEntry) IsDir() bool                { return e.typ.IsDir() }
func (e *keptEntry) Type() fs.FileMode          { return e.typ }
func (e *keptEntry) Info() (fs.FileInfo, error) { return os.Lstat(e.Path()) }

// Path returns the entry's path: dir and name joined.
func (e *keptEntry) Path() string {
	if e.path != "" {
		return e.path
	}
	return gitdir.Join(e.dir, e.name)
}

// loadCensus returns the census of the workspace at root kept in file,
// or an empty one when there is none to trust (see census).
// It reads file when first used.
func loadCensus(file, root string) *census {
	return &census{file: file, root: root, folders: make(map[string]*censusFolder), settle: racyFor}
}

// size returns how many folders the census holds, read from its file
// or since: about how many a walk of the workspace reads.
func (c *census) size() int {
	if c == nil {
		return 0
	}
	c.load()
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.folders)
}

// load reads the census's file, once.
func (c *census) load() {
	c.loaded.Do(func() {
		if c.file == "" {
			return
		}
		data, ok := readOwnFile(c.file)
		if !ok {
			return
		}
		if folders, err := decodeCensus(data, c.root); err == nil {
			c.mu.Lock()
			c.folders = folders
			c.mu.Unlock()
		}
	})
}

// readOwnFile returns what file holds, when it is a regular file, not a
// link, that the user owns and nobody else may write.
func readOwnFile(file string) ([]byte, bool) {
	named, err := os.Lstat(file)
	if err != nil || !named.Mode().IsRegular() {
		return nil, false
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !os.SameFile(named, fi) || fi.Mode().Perm()&0o022 != 0 || !ownedByUser(fi) || fi.Size() > maxCensusFile {
		return nil, false
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, false
	}
	return data, true
}

// read returns what a survey needs of dir's entries, sorted by name, and
// how many entries it holds: the kept ones (see censusFolder) when dir is
// as the census saw it, else every entry, read from the disk, and kept.
// fi is what os.Lstat just told of dir, before any of its names were
// read; nil has read look.
func (c *census) read(dir string, fi fs.FileInfo) ([]fs.DirEntry, int, error) {
	l, err := c.look(dir, fi)
	return l.entries, l.count, err
}

// look returns what a walk is given of dir: the census's, when dir is as it saw it
// (see census), else every entry, read from the disk, and kept. fi is
// what os.Lstat just told of dir, before any of its names were read;
// nil has look take it.
func (c *census) look(dir string, fi fs.FileInfo) (folderList, error) {
	if c == nil {
		return disk(dir)
	}
	if fi == nil {
		l, err := lookAt(dir)
		if err != nil {
			return disk(dir)
		}
		fi = &l
	}
	c.load()
	mark, ok := markOf(fi)
	c.mu.Lock()
	kept := c.folders[dir]
	if ok && kept != nil && kept.mark == mark {
		kept.used = true
		l := folderList{entries: kept.entries, whole: true, count: kept.count}
		if kept.entries == nil {
			l = folderList{entries: kept.kept, rules: &kept.rules, count: kept.count}
		}
		c.mu.Unlock()
		return l, nil
	}
	c.mu.Unlock()
	return c.readDisk(dir, mark, ok)
}

// whole returns every entry of dir, whose list look gave as kept
// entries, taken under fi's mark: those read this run, else read from
// the disk now.
func (c *census) whole(dir string, fi fs.FileInfo) (folderList, error) {
	if c == nil || fi == nil {
		return disk(dir)
	}
	mark, ok := markOf(fi)
	c.mu.Lock()
	if f := c.folders[dir]; ok && f != nil && f.mark == mark && f.entries != nil {
		c.mu.Unlock()
		return folderList{entries: f.entries, whole: true, count: f.count}, nil
	}
	c.mu.Unlock()
	return c.readDisk(dir, mark, ok)
}

// readDisk reads dir's entries from the disk, and keeps them under mark,
// taken before they were read, when known (ok) and settled.
func (c *census) readDisk(dir string, mark folderMark, ok bool) (folderList, error) {
	c.mu.Lock()
	c.reads++
	c.mu.Unlock()
	now := time.Now()
	l, err := disk(dir)
	if err != nil || !ok {
		return l, err
	}
	// The mark was taken before the names were read: a change while
	// they are read shows next time.
	// A folder whose mark had not settled may change again within the
	// clock's tick, unseen: it is not kept.
	c.mu.Lock()
	if mark.settledBy(now, c.settle) {
		c.folders[dir] = &censusFolder{mark: mark, count: l.count, entries: l.entries, used: true}
	} else {
		delete(c.folders, dir)
	}
	c.dirty = true
	c.mu.Unlock()
	return l, nil
}

// disk returns every entry of dir, read from the disk.
func disk(dir string) (folderList, error) {
	entries, err := os.ReadDir(dir)
	return folderList{entries: entries, whole: true, count: len(entries)}, err
}

// choose has the census keep, of dir, the entries kept that a walk
// chose from every entry of it under the rules of rules (see
// keptEntries), for the next run to take under the same rules. It
// changes only a folder read whole this run: look hands out the rules of
// the others by pointer (folderList.rules), and they must not change
// under a list that holds them.
func (c *census) choose(dir string, rules ruleMark, kept []fs.DirEntry) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if f := c.folders[dir]; f != nil && f.entries != nil && f.rules != rules {
		f.rules, f.kept = rules, kept
		c.dirty = true
	}
}

// maxCensus bounds the entries a census keeps on disk, and
// maxCensusFile the size of a file read as one: a census of maxCensus
// entries of long names fits in it.
const (
	maxCensus      = 2 * maxSecretScan
	maxCensusFile  = 256 << 20
	maxCensusCount = 1 << 31 // entries one folder may hold, as the census tells
)

// save writes the census to its file, when it changed: the folders whose
// marks had settled, and, with prune, only those this run looked at,
// written to a new file that then takes the place of the old, so that a
// reader finds the old census or the new one whole. Only a walk that
// looked at every folder the census may hold, as the run's first survey
// for repositories does, may prune: one that skips what is ignored would
// drop the folders inside it, to be read from the disk again next run.
func (c *census) save(prune bool) error {
	if c == nil || c.file == "" {
		return nil
	}
	c.load() // or an empty census would replace the file
	c.mu.Lock()
	defer c.mu.Unlock()
	for dir, f := range c.folders {
		if prune && !f.used {
			delete(c.folders, dir)
			c.dirty = true
		}
	}
	if !c.dirty {
		return nil
	}
	data, ok := encodeCensus(c.root, c.folders)
	if !ok {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.file), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.file), ".census-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	c.dirty = false
	return nil
}

// censusMagic begins a census file; a change of the format changes it.
const censusMagic = "harness census 3\n"

// errCensus is why a census file is refused.
var errCensus = errors.New("not a census of this workspace")

// encodeCensus returns the file of a census of root: the magic, the root,
// each folder (its path, mark, how many entries it holds, the mark of the
// rules its entries were kept under and those entries, each a type and a
// name), and the SHA-256 of all that. It reports false past maxCensus
// entries kept.
func encodeCensus(root string, folders map[string]*censusFolder) ([]byte, bool) {
	dirs := slices.Sorted(maps.Keys(folders))
	var b []byte
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = append(b, censusMagic...)
	str(root)
	b = binary.AppendUvarint(b, uint64(len(dirs)))
	n := 0
	for _, dir := range dirs {
		f := folders[dir]
		kept, rules := f.kept, f.rules
		if rules == (ruleMark{}) && f.entries != nil {
			// No walk chose: what every walk looks at, under no rules.
			kept, rules = keptEntries(f.entries, nil), ruleMark{}
		}
		if n += len(kept); n > maxCensus {
			return nil, false
		}
		str(dir)
		m := f.mark
		b = binary.AppendUvarint(b, m.id.dev)
		b = binary.AppendUvarint(b, m.id.ino)
		b = binary.AppendVarint(b, m.mod)
		b = binary.AppendVarint(b, m.change)
		count := f.count
		if f.entries != nil {
			count = len(f.entries)
		}
		b = binary.AppendUvarint(b, uint64(count))
		b = append(b, rules[:]...)
		b = binary.AppendUvarint(b, uint64(len(kept)))
		for _, e := range kept {
			b = binary.AppendUvarint(b, uint64(e.Type()))
			str(e.Name())
		}
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...), true
}

// decodeCensus reads a census file of root (see encodeCensus). The paths
// and names it returns are parts of data, which must not change after.
func decodeCensus(data []byte, root string) (map[string]*censusFolder, error) {
	if len(data) < sha256.Size {
		return nil, errCensus
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if want := sha256.Sum256(body); !bytes.Equal(want[:], sum) {
		return nil, errCensus
	}
	if !bytes.HasPrefix(body, []byte(censusMagic)) {
		return nil, errCensus
	}
	// One string for all the names, data itself: each name is a part of
	// it. Its checksum was taken above, and nothing writes it after.
	text := unsafe.String(unsafe.SliceData(body), len(body))
	at := len(censusMagic)
	bad := false
	uv := func() uint64 {
		v, n := binary.Uvarint(body[at:])
		if n <= 0 {
			bad = true
			return 0
		}
		at += n
		return v
	}
	sv := func() int64 {
		v, n := binary.Varint(body[at:])
		if n <= 0 {
			bad = true
			return 0
		}
		at += n
		return v
	}
	str := func() string {
		n := uv()
		if bad || n > uint64(len(body)-at) {
			bad = true
			return ""
		}
		s := text[at : at+int(n)]
		at += int(n)
		return s
	}
	if str() != root || bad {
		return nil, errCensus
	}
	count := uv()
	// Each folder takes at least the bytes of its rules' mark: no more
	// records are made than the file can hold.
	if bad || count > uint64(len(body)/len(ruleMark{})) {
		return nil, errCensus
	}
	folders := make(map[string]*censusFolder, count)
	records := make([]censusFolder, count) // in one allocation
	total := uint64(0)
	var slab []keptEntry // the entries of many folders, in one allocation
	for i := range count {
		dir := str()
		f := &records[i]
		f.mark.id.dev, f.mark.id.ino = uv(), uv()
		f.mark.mod, f.mark.change = sv(), sv()
		count := uv()
		if bad || len(body)-at < len(f.rules) {
			return nil, errCensus
		}
		at += copy(f.rules[:], body[at:])
		n := uv()
		if total += n; bad || total > maxCensus || n > count || count > maxCensusCount || !cleanInside(root, dir) {
			return nil, errCensus
		}
		f.count = int(count)
		f.kept = make([]fs.DirEntry, n)
		if uint64(cap(slab)-len(slab)) < n {
			// Most folders keep a few entries, or none: a slab serves
			// many, and one that keeps many has its own.
			slab = make([]keptEntry, 0, max(n, 256))
		}
		for i := range f.kept {
			typ := fs.FileMode(uv())
			name := str()
			if bad || typ&^fs.ModeType != 0 || !validName(name) || i > 0 && name <= f.kept[i-1].Name() {
				return nil, errCensus
			}
			slab = append(slab, keptEntry{dir: dir, name: name, typ: typ})
			f.kept[i] = &slab[len(slab)-1]
		}
		folders[dir] = f
	}
	if at != len(body) {
		return nil, errCensus
	}
	// Each folder kept is an entry of the folder above it: that entry
	// takes its path.
	for dir := range folders {
		up := filepath.Dir(dir)
		f := folders[up]
		if dir == root || f == nil {
			continue
		}
		// dir is clean: up and name joined.
		name := strings.TrimPrefix(dir[len(up):], string(filepath.Separator))
		i, found := slices.BinarySearchFunc(f.kept, name, func(e fs.DirEntry, name string) int { return strings.Compare(e.Name(), name) })
		if !found {
			continue
		}
		if e, ok := f.kept[i].(*keptEntry); ok && e.IsDir() {
			e.path = dir
		}
	}
	return folders, nil
}

// cleanInside reports whether dir is root or a clean path inside it.
func cleanInside(root, dir string) bool {
	if dir == root {
		return true
	}
	return filepath.Clean(dir) == dir && len(dir) > len(root) && dir[:len(root)] == root && (dir[len(root)] == filepath.Separator || root[len(root)-1] == filepath.Separator)
}

// validName reports whether name can be one entry of a folder.
func validName(name string) bool {
	return name != "" && name != "." && name != ".." && !bytes.ContainsAny([]byte(name), "/\x00"+string(filepath.Separator))
}
