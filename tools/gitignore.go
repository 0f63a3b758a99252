package tools

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"harness/gitdir"
)

// maxIgnoreFile bounds how much of one .gitignore file is read.
const maxIgnoreFile = 256 << 10

// ignoreRule is one pattern line of a .gitignore file.
type ignoreRule struct {
	dir     string   // the folder of the file, slash-separated, "" for the root
	segs    []string // the pattern split at slashes; "**" matches any folders
	negate  bool     // !pattern
	dirOnly bool     // pattern/
	text    string   // the line, for messages
	source  string   // the file, for messages
}

// parseIgnore reads the rules of the .gitignore file at source (a path
// relative to the workspace root) found in folder dir, as gitignore(5)
// describes them.
func parseIgnore(r io.Reader, dir, source string) []ignoreRule {
	var rules []ignoreRule
	sc := bufio.NewScanner(io.LimitReader(r, maxIgnoreFile))
	sc.Buffer(make([]byte, 0, 4096), maxIgnoreFile)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		text := line
		line = trimTrailingSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		rule := ignoreRule{dir: dir, text: text, source: source}
		if line[0] == '!' {
			rule.negate, line = true, line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			rule.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		// A pattern with a slash before its end is anchored to its folder;
		// one without matches a name at any depth.
		if strings.Contains(line, "/") {
			line = strings.TrimPrefix(line, "/")
		} else {
			line = "**/" + line
		}
		for _, s := range strings.Split(line, "/") {
			if s != "" {
				rule.segs = append(rule.segs, strings.ReplaceAll(s, "[!", "[^"))
			}
		}
		rules = append(rules, rule)
	}
	return rules
}

// trimTrailingSpace removes the spaces at the end of line that no
// backslash escapes.
func trimTrailingSpace(line string) string {
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
		line = line[:len(line)-1]
	}
	return line
}

// match reports whether the rule matches rel, a slash-separated path from
// the workspace root, which is a folder when isDir.
func (r ignoreRule) match(rel string, isDir bool) bool {
	if r.dir != "" {
		if !strings.HasPrefix(rel, r.dir+"/") {
			return false
		}
		rel = rel[len(r.dir)+1:]
	}
	return r.matchSegs(strings.Split(rel, "/"), isDir)
}

// matchSegs is match for the segments of a path from the rule's folder.
func (r ignoreRule) matchSegs(segs []string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	return matchSegs(r.segs, segs)
}

// matchSegs matches path segments against pattern segments, "**" standing
// for any number of segments (at least one when it ends the pattern).
//
// It fills a table of which pattern suffix matches which name suffix, one
// row at a time, so its cost is len(pat)×len(name) segment matches
// whatever the pattern: a backtracking match of a rule of many "**"
// against a deep path would take exponential time, and rules come from
// files the model may write.
// segMatch reports whether one name matches one segment of a pattern, as
// path.Match does; the usual segments, a plain name and *.ext, without it.
func segMatch(pat, name string) bool {
	const meta = `*?[\`
	switch {
	case !strings.ContainsAny(pat, meta):
		return pat == name
	case pat[0] == '*' && !strings.ContainsAny(pat[1:], meta):
		return strings.HasSuffix(name, pat[1:]) // a name holds no slash for * to stop at
	}
	ok, err := path.Match(pat, name)
	return err == nil && ok
}

func matchSegs(pat, name []string) bool {
	pat = collapseStars(pat)
	fixed := 0
	for _, p := range pat {
		if p != "**" {
			fixed++
		}
	}
	if fixed > len(name) {
		return false // every other segment takes one of name's
	}
	n := len(name)
	// next[j] tells whether pat[i+1:] matches name[j:], row[j] whether
	// pat[i:] does.
	next, row := make([]bool, n+1), make([]bool, n+1)
	next[n] = true
	for i := len(pat) - 1; i >= 0; i-- {
		switch {
		case pat[i] == "**" && i == len(pat)-1:
			for j := range row {
				row[j] = j < n
			}
		case pat[i] == "**":
			row[n] = next[n]
			for j := n - 1; j >= 0; j-- {
				row[j] = next[j] || row[j+1]
			}
		default:
			row[n] = false
			for j := n - 1; j >= 0; j-- {
				row[j] = next[j+1] && segMatch(pat[i], name[j])
			}
		}
		next, row = row, next
	}
	return next[0]
}

// collapseStars returns pat with each run of "**" made one: two match
// exactly what one does.
func collapseStars(pat []string) []string {
	var out []string
	for i, p := range pat {
		if p == "**" && i > 0 && pat[i-1] == "**" {
			if out == nil {
				out = append([]string(nil), pat[:i]...)
			}
			continue
		}
		if out != nil {
			out = append(out, p)
		}
	}
	if out == nil {
		return pat
	}
	return out
}

// ignores holds the .gitignore rules of a workspace as they are read, for
// the time of one call: files change, so rules are never kept longer,
// except those read when the run started (see startIgnores).
type ignores struct {
	root  *os.Root
	rules map[string][]ignoreRule // by folder, "" for the root
	// frozen rules read no more files: a folder not read yet has none.
	// A walk that reads every folder before it decides anything in it
	// freezes them from the start, and loads the rules of each folder
	// whose names hold an ignore file (see load): the many folders
	// without one then take no room.
	frozen bool
	layout *gitdir.Layout // the repository's, found on first use
	// excluded names the repository's exclude file (see exclude), found
	// on first use.
	excluded string
	// global are the rules of the user's global excludes file, which
	// come before the root's own (see globalExcludes).
	global []ignoreRule
	// files, when not nil, keeps what ignore files held between checks.
	files *ruleFiles
	// protected holds, for the rules of the start, the files and folders
	// they ignored and those whose names hold secrets, by identity, with
	// the path each had: renamed or linked elsewhere, each stays secret.
	protected map[id]string
	// linked is set when one of the protected files had other names
	// (hard links) when the rules were read.
	linked bool
	// folders is what the start's walk kept of each folder it read: the
	// mark of its rules, and what it looked like (see startFolders).
	// Nil for other rules.
	folders *startFolders
}

// folderStamp is what a folder looked like: its times, and its identity,
// which tells it from another folder renamed to its path.
type folderStamp struct {
	stamp
	id id
}

// folderStampOf returns what the folder p looks like now, and false when
// it cannot be told apart from another folder later.
func folderStampOf(p string) (folderStamp, bool) {
	l, err := lookAt(p)
	if err != nil {
		return folderStamp{}, false
	}
	return folderStamp{l.stamp(), l.id}, l.hasID
}

// fileStampOf returns what the file fi describes looks like, and false when
// it cannot be told apart from another file later (it has no identity).
func fileStampOf(fi fs.FileInfo) (folderStamp, bool) {
	fid, ok := fileID(fi)
	return folderStamp{stampFrom(fi), fid}, ok
}

// stampFrom returns the stamp of the file fi describes.
func stampFrom(fi fs.FileInfo) stamp {
	return stamp{exists: true, mod: fi.ModTime(), size: fi.Size(), change: changeTime(fi)}
}

// id is a file's identity on its system (see fileID).
type id struct{ dev, ino uint64 }

// startIgnores reads the ignore rules of every folder of the workspace at
// root, looking at no more than limit entries (not inside .git nor inside
// what is ignored), and keeps them for the run. A path they ignore stays
// secret whatever the ignore files say later: an edit of .gitignore,
// approved or made by a command, can add protection but never take it
// away during the run. Nor can a rename: what they ignored, and what has
// a secret's name, is kept by identity too (see movedFrom).
//
// With keep, the walk watches each folder before it reads it, where
// folders are watched, and keeps what it read (readFolders), for the walk
// of what commands must not see to take over. began is when the walk
// began.
func startIgnores(root string, global []ignoreRule, limit int, keep *readFolders, began time.Time) *ignores {
	return startIgnoresReading(root, global, limit, keep, nil, began)
}

// startIgnoresReading is startIgnores that reads a folder's entries
// through c, which keeps them (nil reads them from the disk).
func startIgnoresReading(root string, global []ignoreRule, limit int, keep *readFolders, c *census, began time.Time) *ignores {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil
	}
	defer r.Close()
	ig := newIgnores(r)
	ig.global, ig.frozen = global, true
	size := c.size() // about how many folders the walk reads
	ig.protected, ig.folders = make(map[id]string), newStartFolders(size)
	if keep != nil {
		keep.began = began
	}
	seen := 0
	// The walk reads folders by their path, which gives each entry's
	// type without a look at the entry (an os.Root's folders look at
	// every one), and opens no ignore file that a folder's names show it
	// does not hold; those it holds are read through the root.
	// A folder is looked at once, before its names are read: what it
	// looked like is the folder's stamp and the census's mark.
	var looked struct {
		dir string
		fi  fs.FileInfo
	}
	var looks lookSlab // what keep keeps of each folder
	// A folder the census kept is taken as it kept it, the entries a walk
	// does something with, when the rules that apply to it are those it
	// was kept under; else every entry is read, and those are chosen.
	read := func(dir string) ([]fs.DirEntry, error) {
		var fi fs.FileInfo
		if looked.dir == dir {
			fi = looked.fi
		}
		l, err := c.look(dir, fi)
		if err != nil {
			return nil, err
		}
		rel := below(root, dir)
		if !ig.none(rel, l.entries) { // its ignore file is among what is kept
			ig.load(rel)
		}
		mark := markIn(ig.folders, ig, rel)
		if !l.chosenUnder(mark) {
			if l, err = c.whole(dir, fi); err != nil {
				return nil, err
			}
		}
		if l.whole {
			c.choose(dir, mark, keptEntries(l.entries, func(e fs.DirEntry) bool {
				_, ignored := ig.decide(path.Join(rel, e.Name()), e.IsDir())
				return ignored
			}))
		} else {
			seen += l.count - len(l.entries) // looked at by the walk that kept them
		}
		keep.keep(dir, l)
		return l.entries, nil
	}
	walkTree(root, read, func(abs string, d fs.DirEntry) error {
		if seen++; seen > limit {
			return fs.SkipAll
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		if abs != root {
			p := below(root, abs)
			if d.IsDir() && d.Name() == ".git" {
				return fs.SkipDir
			}
			// The folders above p are not ignored, or the walk would not be
			// in them: p's own rules decide.
			if _, ignored := ig.decide(p, d.IsDir()); ignored || secretName(d.Name()) != "" {
				if fi, err := d.Info(); err == nil {
					if fid, ok := fileID(fi); ok {
						ig.protected[fid] = p
						ig.linked = ig.linked || !fi.IsDir() && links(fi) > 1
					}
				}
				return skip(d) // what is in it is protected by its folder
			}
		}
		if d.IsDir() {
			// Before its names are read: a change after shows.
			keep.watch(abs)
			l, err := lookAt(abs)
			if err != nil {
				looked.dir, looked.fi = abs, nil
				return nil
			}
			fi := looks.keep(l)
			looked.dir, looked.fi = abs, fi
			keep.look(abs, fi)
			if m, ok := markOf(fi); ok && m.settledBy(began, racyFor) {
				ig.folders.look(below(root, abs), m)
			}
		}
		return nil
	}, func(dir string, entries []fs.DirEntry, err error) {
		if err != nil {
			ig.load(below(root, dir))
		}
	})
	ig.root = nil
	return ig
}

// startFolders is what the start's walk kept of each folder it read, by
// its path from the root ("" for it): the mark of the ignore rules that
// apply to its entries (see ruleMark), and, when it had not changed for a
// while, what it looked like just before its names were read (see
// unmoved): its identity and times, as the census marks it. The rules are
// kept for the whole run, so no more is kept, and each folder takes one
// slot of a map and one of each list: a map for each would take twice
// the room.
type startFolders struct {
	at    map[string]int32 // each folder's place in the lists
	rules []ruleMark       // zero where not known
	looks []folderMark     // zero where it had not settled
}

func newStartFolders(size int) *startFolders {
	return &startFolders{at: make(map[string]int32, size), rules: make([]ruleMark, 0, size), looks: make([]folderMark, 0, size)}
}

// slot returns rel's place in the lists, made when it has none.
func (f *startFolders) slot(rel string) int32 {
	i, ok := f.at[rel]
	if !ok {
		i = int32(len(f.rules))
		f.at[rel] = i
		f.rules, f.looks = append(f.rules, ruleMark{}), append(f.looks, folderMark{})
	}
	return i
}

func (f *startFolders) find(rel string) (ruleMark, bool) {
	i, ok := f.at[rel]
	if !ok || f.rules[i] == (ruleMark{}) {
		return ruleMark{}, false
	}
	return f.rules[i], true
}

func (f *startFolders) push(rel string, mark ruleMark) {
	i := f.slot(rel) // before f.rules is read: slot may grow it
	f.rules[i] = mark
}

// look keeps what folder rel looked like, once it had settled.
func (f *startFolders) look(rel string, m folderMark) {
	i := f.slot(rel)
	f.looks[i] = m
}

// looked returns what folder rel looked like, when it had settled.
func (f *startFolders) looked(rel string) (folderMark, bool) {
	i, ok := f.at[rel]
	if !ok || f.looks[i] == (folderMark{}) {
		return folderMark{}, false
	}
	return f.looks[i], true
}

// marksKept is where markIn keeps the marks it made: every folder's
// (startFolders), or, for a walk that goes depth first, those of the
// folders above where it is (folderChain).
type marksKept interface {
	find(rel string) (ruleMark, bool)
	push(rel string, mark ruleMark)
}

// markIn returns the mark of folder rel under ig, made from those of the
// folders above it, which kept holds or is given.
func markIn(kept marksKept, ig *ignores, rel string) ruleMark {
	if mark, ok := kept.find(rel); ok {
		return mark
	}
	parent := walkedPolicy()
	if rel != "" {
		up := ""
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			up = rel[:i]
		}
		parent = markIn(kept, ig, up)
	}
	mark := markWith(parent, rel, ig.forDir(rel))
	kept.push(rel, mark)
	return mark
}

// markWith returns the mark of folder rel whose own rules are rules,
// under the mark parent of the folder above it (walkedPolicy for the
// root).
func markWith(parent ruleMark, rel string, rules []ignoreRule) ruleMark {
	// Every string goes in with its length, so that no rule's text (which
	// may hold any byte but a newline) can read as several rules.
	var buf [512]byte // most folders' fit, without the heap
	b := append(buf[:0], parent[:]...)
	b = appendString(b, rel)
	b = binary.AppendUvarint(b, uint64(len(rules)))
	for _, r := range rules {
		b = appendString(appendString(b, r.source), r.text)
	}
	return sha256.Sum256(b)
}

// appendString appends s to b, after its length.
func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// unmoved reports whether the folder dir, whose names were just read and
// whose path from the root is rel, is as the start read it: no name was
// made, removed or renamed in it since, which would have changed its
// change time, so that nothing moved in nor was linked there anew.
func (ig *ignores) unmoved(dir, rel string) bool {
	if ig.folders == nil {
		return false
	}
	was, ok := ig.folders.looked(rel)
	if !ok {
		return false
	}
	l, err := lookAt(dir)
	if err != nil {
		return false
	}
	now, ok := markOf(&l)
	return ok && now == was
}

// steady reports whether folder rel had not changed for a while when the
// start's walk looked at it: a name made in it during that walk, before
// the look, would have shown in its times.
func (ig *ignores) steady(rel string) bool {
	if ig == nil || ig.folders == nil {
		return false
	}
	_, ok := ig.folders.looked(rel)
	return ok
}

// mark returns the mark of the rules the start read for folder rel (see
// ruleMark), and whether it read that folder.
func (ig *ignores) mark(rel string) (ruleMark, bool) {
	if ig == nil || ig.folders == nil {
		return ruleMark{}, false
	}
	return ig.folders.find(rel)
}

// settled reports whether st changed long enough before a walk began that
// a later change must show in its times.
func settled(st stamp, began time.Time) bool {
	old := began.Add(-racyFor(st.mod, st.change))
	return st.mod.Before(old) && time.Unix(0, st.change).Before(old)
}

// protects reports whether d, an entry of the workspace, is a file or
// folder the start protected, wherever it is now (see movedFrom). It
// looks at d, unless unmoved says that no entry moved, nor was linked
// anew, since the rules were read, and d is no folder: a file can then
// have a protected identity under another path only as a link that was
// there then, and the start saw none.
func (ig *ignores) protects(d fs.DirEntry, unmoved bool) bool {
	if ig == nil || len(ig.protected) == 0 || unmoved && !ig.linked && !d.IsDir() {
		return false
	}
	fi, err := d.Info()
	if err != nil {
		return false
	}
	fid, ok := fileID(fi)
	_, protected := ig.protected[fid]
	return ok && protected
}

// movedFrom returns the path that the file at rel, or a folder it lies
// in, had when the run started, when that path was protected and rel is
// not it: the file was renamed, or linked, out of its protection. root is
// the workspace's. A path that does not exist, and anything on a system
// without file identities, returns "". What is inside a protected
// folder is known by the folder's identity only: moved out of it, or
// linked from outside it, a file is known by its path alone. A protected
// file removed during the run may leave its identity to a new file, which
// is then protected too: the mistake is on the safe side.
func (ig *ignores) movedFrom(root, rel string) string {
	if ig == nil || len(ig.protected) == 0 {
		return ""
	}
	p, at := root, ""
	for _, seg := range strings.Split(rel, "/") {
		p, at = filepath.Join(p, seg), path.Join(at, seg)
		l, err := lookAt(p)
		if err != nil || !l.hasID {
			return ""
		}
		if was, ok := ig.protected[l.id]; ok && was != at {
			return was
		}
	}
	return ""
}

func newIgnores(root *os.Root) *ignores {
	return &ignores{root: root, rules: make(map[string][]ignoreRule)}
}

// git returns the layout of the repository of the workspace at root,
// found once for the rules' lifetime.
func (ig *ignores) git(root string) gitdir.Layout {
	if ig.layout == nil {
		l := gitdir.Find(root)
		ig.layout = &l
	}
	return *ig.layout
}

// forDir returns the rules that come from folder dir: its .gitignore, and
// for the root also the user's global excludes and the repository's
// exclude file (see exclude), which come first, in that order, as git
// reads them.
func (ig *ignores) forDir(dir string) []ignoreRule {
	if rules, ok := ig.rules[dir]; ok || ig.frozen {
		return rules
	}
	return ig.load(dir)
}

// load reads the rules of folder dir, as forDir does, frozen or not.
func (ig *ignores) load(dir string) []ignoreRule {
	if rules, ok := ig.rules[dir]; ok {
		return rules
	}
	var rules []ignoreRule
	files := []string{path.Join(dir, ".gitignore")}
	if dir == "" {
		rules = append(rules, ig.global...)
		files = []string{ig.exclude(), ".gitignore"}
	}
	for _, name := range files {
		rules = append(rules, ig.parsed(name, dir)...)
	}
	ig.rules[dir] = rules
	return rules
}

// none reports whether folder dir, not the root, has no ignore file, by
// its entries as just read: frozen rules (the only ones that ask) need
// not look for one.
func (ig *ignores) none(dir string, entries []fs.DirEntry) bool {
	return dir != "" && !holdsIgnoreFile(entries)
}

// excludeFile is the repository's own ignore file, by its path from the
// root, where the root's .git is its git directory.
const excludeFile = ".git/info/exclude"

// excludeOf returns the file git reads the repository's own ignore rules
// from, for the workspace at root with the repository l: info/exclude in
// the common directory. That is .git/info/exclude where .git is the git
// directory, and elsewhere for a worktree (its main repository's) or a
// submodule (in the git directory of the repository above it).
func excludeOf(root string, l gitdir.Layout) string {
	if l.Common == "" {
		return filepath.Join(root, filepath.FromSlash(excludeFile))
	}
	return filepath.Join(l.Common, "info", "exclude")
}

// excludeName returns the name the rules give the exclude file at path,
// of the workspace at root, both to read it by and in what they say: its
// path from the root, slash-separated, where it lies in the workspace
// (excludeFile, mostly), else path itself, absolute.
func excludeName(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return path
}

// ExcludeFile returns the file git reads the ignore rules of the
// repository of the workspace at root from (see excludeOf), at path, and
// the name to tell the user for it, as the rules name it in what they say
// (see excludeName): in a worktree or a submodule, the file is outside
// the workspace and named by its absolute path.
func ExcludeFile(root string) (path, name string) {
	path = excludeOf(root, gitdir.Find(root))
	return path, excludeName(root, path)
}

// exclude names the repository's own ignore file as the rules read it
// (see excludeName).
func (ig *ignores) exclude() string {
	if ig.root == nil {
		return excludeFile
	}
	if ig.excluded == "" {
		root := ig.root.Name()
		ig.excluded = excludeName(root, excludeOf(root, ig.git(root)))
	}
	return ig.excluded
}

// follows reports whether the rules of the ignore file name, a path from
// the root or an absolute one outside the workspace, are read through a
// link there, as git reads them: at the repository's exclude file, not at
// a .gitignore, which git skips when it is a link. In the workspace, a
// link can only be followed where it is relative and stays in it
// (os.Root follows no other), lest a link planted there show the rules
// a file outside holds; the exclude file of a worktree or a submodule,
// outside, is read as git reads it, through any link.
func (ig *ignores) follows(name string) bool { return filepath.IsAbs(name) || name == ig.exclude() }

// stat looks at the ignore file name as look (Lstat or Stat of ig.root)
// would, through the workspace's root, or, for an absolute name, the
// exclude file outside it, through any link.
func (ig *ignores) stat(name string, look func(string) (fs.FileInfo, error)) (fs.FileInfo, error) {
	if filepath.IsAbs(name) {
		return os.Stat(name)
	}
	return look(name)
}

// open opens the ignore file name as stat looks at it.
func (ig *ignores) open(name string) (*os.File, error) {
	if filepath.IsAbs(name) {
		return os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	}
	return ig.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// parsed returns the rules of the ignore file name, of folder dir: those
// ig.files kept, when the file is as it was then, else those read now.
// Like read, it follows a link only where git does (follows).
func (ig *ignores) parsed(name, dir string) []ignoreRule {
	if ig.files == nil {
		data, _ := ig.read(name)
		return parseIgnore(bytes.NewReader(data), dir, name)
	}
	look := ig.root.Lstat
	if ig.follows(name) {
		look = ig.root.Stat
	}
	fi, err := ig.stat(name, look)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	looked, _ := fileStampOf(fi)
	if rules, ok := ig.files.get(name, looked); ok {
		return rules
	}
	data, read := ig.read(name)
	rules := parseIgnore(bytes.NewReader(data), dir, name)
	if read == nil {
		return rules
	}
	// Kept by what the file read looked like, which may be another than
	// the one looked at above, had it been replaced in between. A file
	// changed in the tick of the clock its time shows may change again
	// and keep that time: it is kept only once that tick is past.
	if st, _ := fileStampOf(read); settled(st.stamp, time.Now()) {
		ig.files.put(name, st, rules)
	}
	return rules
}

// ruleFiles keeps the rules of each ignore file of a workspace, read once
// and read again when the file's size, times or identity change, so that
// each check of a path does not read and parse them anew.
type ruleFiles struct {
	mu sync.Mutex
	m  map[string]keptRules
}

// keptRules are the rules of an ignore file, with what it looked like
// when they were read: a file rewritten at its size, its time set back,
// still has another change time.
type keptRules struct {
	st    folderStamp
	rules []ignoreRule
}

func (f *ruleFiles) get(name string, st folderStamp) ([]ignoreRule, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k, ok := f.m[name]
	if !ok || k.st != st {
		return nil, false
	}
	return k.rules, true
}

func (f *ruleFiles) put(name string, st folderStamp, rules []ignoreRule) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = make(map[string]keptRules)
	}
	f.m[name] = keptRules{st: st, rules: rules}
}

// read returns what the ignore file name holds, and what the file it read
// looked like; nothing for what is not a regular file, or a link where
// git reads through none (follows).
func (ig *ignores) read(name string) ([]byte, fs.FileInfo) {
	// A link is read through only where git reads through it (follows).
	var named fs.FileInfo
	if !ig.follows(name) {
		fi, err := ig.root.Lstat(name)
		if err != nil || !fi.Mode().IsRegular() {
			return nil, nil
		}
		named = fi
	}
	// Without blocking: a named pipe put where .gitignore goes must not
	// hang every tool that checks for secrets.
	f, err := ig.open(name)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || named != nil && !os.SameFile(named, fi) {
		return nil, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreFile))
	if err != nil {
		return nil, nil
	}
	return data, fi
}

// ignored returns the rule that makes rel ignored, or false. A path inside
// an ignored folder is ignored, as git never looks inside one.
func (ig *ignores) ignored(rel string, isDir bool) (ignoreRule, bool) {
	if ig == nil {
		return ignoreRule{}, false
	}
	segs := strings.Split(rel, "/")
	for i := range segs {
		prefix := strings.Join(segs[:i+1], "/")
		last := i == len(segs)-1
		if rule, ok := ig.decide(prefix, !last || isDir); ok {
			return rule, true
		}
	}
	return ignoreRule{}, false
}

// anyRules reports whether a folder above rel, the root included, has
// rules, reading them as decide does.
func (ig *ignores) anyRules(rel string) bool {
	end := 0 // of the folder looked at next, in rel
	for {
		if len(ig.forDir(rel[:max(end-1, 0)])) > 0 {
			return true
		}
		i := strings.IndexByte(rel[end:], '/')
		if i < 0 {
			return false
		}
		end += i + 1
	}
}

// decide applies the rules of the folders above rel to rel alone: the last
// rule that matches wins, deeper files after shallower ones.
func (ig *ignores) decide(rel string, isDir bool) (ignoreRule, bool) {
	if !ig.anyRules(rel) {
		return ignoreRule{}, false // most folders have none: no need to split rel
	}
	var last ignoreRule
	found := false
	segs := strings.Split(rel, "/")
	end := 0 // of the folder whose rules apply next, in rel
	for i := range segs {
		dir := rel[:max(end-1, 0)] // the first i segments
		for _, r := range ig.forDir(dir) {
			if r.dir == dir && r.matchSegs(segs[i:], isDir) || r.dir != dir && r.match(rel, isDir) {
				last, found = r, true
			}
		}
		end += len(segs[i]) + 1
	}
	return last, found && !last.negate
}
