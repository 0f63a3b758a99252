// Package journal keeps what the file tools change in a conversation, so
// that it can be shown and undone. A Journal is a loop.Tools middleware,
// under the approval gate, around the tools: before a turn's first write
// to a file (a call of edit_file or write_file, as tools.FileWritten
// says) it keeps a copy of the file, so that Undo can put the file back
// and Diff can show what the conversation changed; and it keeps the diff
// of each write until TakeDiff takes it. Commands may change files too:
// it does not track those changes, but when a turn ends it notes what
// each file the turn wrote holds, and Undo leaves alone a file that holds
// something else since.
//
// It is also a loop.Hook, to know which turn a write belongs to. Every
// check that a path lies inside the workspace is fence's.
package journal

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"harness/approve"
	"harness/fence"
	"harness/loop"
	"harness/protocol"
	"harness/tools"
	"harness/xdg"
)

// Journal is the tools under the approval gate, remembering what the file
// tools change (see the package documentation).
type Journal struct {
	tools loop.Tools
	ws    *tools.Workspace
	// dir is where the copies go, made at the first copy; "" keeps no
	// copies (with -p there is no /undo).
	dir string

	mu    sync.Mutex
	turn  int               // the main conversation's turn under way
	turns []changes         // the turns that wrote files, oldest first
	diffs map[string]string // of each write, by call id, until shown
	// previewed are the calls whose diff the approval question showed,
	// by id: it is not shown again after the write.
	previewed map[string]bool
	copies    int
}

// changes are the files one turn wrote, as they were before it and as it
// left them, and the folders it made for them.
type changes struct {
	turn  int
	files []snapshot
	dirs  []string // absolute; made by the turn for the files it wrote
}

// snapshot is a file as it was before a turn first wrote it.
type snapshot struct {
	name    string // relative to the workspace root
	abs     string
	existed bool
	mode    fs.FileMode
	copy    string // the copy of its content, when it existed
	lost    string // why no copy could be kept, if so
	// left is the file as the turn left it, taken when the turn ended:
	// /undo puts back only a file that still holds it.
	left fileSum
}

// fileSum is what a file held at some moment, by a hash of its content.
type fileSum struct {
	known  bool // taken, and the file could be read
	exists bool
	sum    [sha256.Size]byte
}

// sumFile returns what the file at abs holds now. It does not block on a
// named pipe, which it takes as unreadable.
func sumFile(abs string) fileSum {
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return fileSum{known: true}
	}
	if err != nil {
		return fileSum{}
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fileSum{}
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fileSum{}
	}
	s := fileSum{known: true, exists: true}
	h.Sum(s.sum[:0])
	return s
}

var (
	_ loop.Tools = (*Journal)(nil)
	_ loop.Hook  = (*Journal)(nil)
)

// New returns the journal of ts in ws, keeping its copies in a folder of
// its own in the folder undo of dir ("" keeps none: there is nothing to
// undo), named for this run (xdg.RunDir, which first removes the folders
// there of runs now gone).
func New(ts loop.Tools, ws *tools.Workspace, dir string) *Journal {
	if dir != "" {
		dir = xdg.RunDir(filepath.Join(dir, "undo"))
	}
	return &Journal{tools: ts, ws: ws, dir: dir, diffs: make(map[string]string), previewed: make(map[string]bool)}
}

// Specs returns the specs of the tools j wraps.
func (j *Journal) Specs() []protocol.ToolSpec { return j.tools.Specs() }

// Run runs call; a call that writes a file is watched: the file is kept
// before the turn's first write to it, and diffed before and after.
func (j *Journal) Run(ctx context.Context, call protocol.Call) protocol.Result {
	path, ok := tools.FileWritten(call)
	if !ok {
		return j.tools.Run(ctx, call)
	}
	abs, err := j.ws.Resolve(path)
	if err != nil {
		return j.tools.Run(ctx, call)
	}
	before := tools.ReadText(abs)
	missing := j.missingDirs(abs)
	kept := j.keep(abs)
	res := j.tools.Run(ctx, call)
	if !res.Wrote {
		if kept {
			j.forget(abs)
		}
		return res
	}
	j.made(missing)
	after := tools.ReadText(abs)
	if why := j.ws.Secret(abs); why != "" {
		before.Unshown = "it is " + why
	}
	j.mu.Lock()
	j.diffs[call.ID] = tools.Unified(j.ws.Rel(abs), before, after)
	j.mu.Unlock()
	return res
}

// Event keeps the turn of the main conversation under way: the writes of
// the conversations its calls start (helpers) belong to it. Their diffs
// are not shown, and are dropped when their call ends.
func (j *Journal) Event(e loop.Event) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case e.Kind == loop.TurnStarted && e.Origin == "":
		j.turn = e.Turn
	case e.Kind == loop.TurnEnded && e.Origin == "":
		j.left(e.Turn)
	case e.Kind == loop.CallEnded && e.Origin != "":
		delete(j.diffs, e.Call.ID)
		delete(j.previewed, e.Call.ID)
	}
	return nil
}

// left takes, as the turn that just ended left them, what the files it
// wrote hold. Called with j.mu held.
func (j *Journal) left(turn int) {
	if n := len(j.turns); n > 0 && j.turns[n-1].turn == turn {
		files := j.turns[n-1].files
		for i := range files {
			files[i].left = sumFile(files[i].abs)
		}
	}
}

// missingDirs returns the folders inside the workspace, above the file at
// abs, that do not exist yet, the deepest first.
func (j *Journal) missingDirs(abs string) []string {
	if j.dir == "" {
		return nil
	}
	var out []string
	for d := filepath.Dir(abs); j.inside(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		out = append(out, d)
	}
	return out
}

// inside reports whether abs is inside the workspace root, and not the
// root itself.
func (j *Journal) inside(abs string) bool {
	return fence.Within(j.ws.Root(), abs) && !fence.Within(abs, j.ws.Root())
}

// made notes, among the folders that were missing before a write, those
// that exist after it: the turn made them.
func (j *Journal) made(missing []string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.turns) == 0 || j.turns[len(j.turns)-1].turn != j.turn {
		return
	}
	cur := &j.turns[len(j.turns)-1]
	for _, d := range missing {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() && !slices.Contains(cur.dirs, d) {
			cur.dirs = append(cur.dirs, d)
		}
	}
}

// TakeDiff returns the diff of the write of call id, once, unless the
// approval question already showed it (Decided); "" for a call that wrote
// no file.
func (j *Journal) TakeDiff(id string) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	d := j.diffs[id]
	if j.previewed[id] {
		d = ""
	}
	delete(j.diffs, id)
	delete(j.previewed, id)
	return d
}

// Decided notes the approval questions that showed a call's diff, as the
// approval gate decides them (approve.Config.Record), so that TakeDiff
// does not show it again.
func (j *Journal) Decided(d approve.Decision) {
	if d.Outcome.Asked() && d.Question.Detail != "" {
		j.mu.Lock()
		j.previewed[d.Call.ID] = true
		j.mu.Unlock()
	}
}

// keep copies the file at abs before the turn's first write to it, and
// reports whether this was that first write.
func (j *Journal) keep(abs string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.dir == "" {
		return false
	}
	if n := len(j.turns); n == 0 || j.turns[n-1].turn != j.turn {
		j.turns = append(j.turns, changes{turn: j.turn})
	}
	cur := &j.turns[len(j.turns)-1]
	if slices.ContainsFunc(cur.files, func(s snapshot) bool { return s.abs == abs }) {
		return false
	}
	s := snapshot{name: j.ws.Rel(abs), abs: abs}
	if fi, err := os.Stat(abs); err == nil {
		s.existed, s.mode = true, fi.Mode().Perm()
		j.copies++
		s.copy = filepath.Join(j.dir, strconv.Itoa(j.copies))
		if err := copyFile(s.copy, abs); err != nil {
			s.copy, s.lost = "", err.Error()
		}
	}
	cur.files = append(cur.files, s)
	return true
}

// forget drops the copy of abs just kept for a write that wrote nothing.
func (j *Journal) forget(abs string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	cur := &j.turns[len(j.turns)-1]
	i := slices.IndexFunc(cur.files, func(s snapshot) bool { return s.abs == abs })
	if i < 0 {
		return
	}
	if c := cur.files[i].copy; c != "" {
		os.Remove(c)
	}
	cur.files = slices.Delete(cur.files, i, i+1)
	if len(cur.files) == 0 {
		j.turns = j.turns[:len(j.turns)-1]
	}
}

// Diff returns what the file tools changed in the conversation, as one
// unified diff from each file as it was before its first change to the
// file as it is now, by file name; "" when nothing changed.
func (j *Journal) Diff() string {
	j.mu.Lock()
	first := make(map[string]snapshot)
	for _, t := range j.turns {
		for _, s := range t.files {
			if _, ok := first[s.abs]; !ok {
				first[s.abs] = s
			}
		}
	}
	j.mu.Unlock()
	snaps := slices.SortedFunc(func(yield func(snapshot) bool) {
		for _, s := range first {
			if !yield(s) {
				return
			}
		}
	}, func(a, b snapshot) int { return cmp.Compare(a.name, b.name) })
	var b strings.Builder
	for _, s := range snaps {
		before := s.state()
		if why := j.ws.Secret(s.abs); why != "" {
			before.Unshown = "it is " + why
		}
		b.WriteString(tools.Unified(s.name, before, tools.ReadText(s.abs)))
	}
	return b.String()
}

// state is the file as the snapshot kept it.
func (s snapshot) state() tools.FileText {
	switch {
	case !s.existed:
		return tools.FileText{}
	case s.lost != "":
		return tools.FileText{Exists: true, Unshown: "no copy was kept: " + s.lost}
	}
	return tools.ReadText(s.copy)
}

// Undone is what Undo did with the changes of one turn.
type Undone struct {
	Turn int
	Done []string // what was put back, a line each: "restored a.txt"
	Kept []Kept   // the files not put back
}

// Kept is a file that Undo did not put back, and why.
type Kept struct {
	Name string
	Why  string // for the user, with how to see what putting it back would undo
	// Changed is set when the file was left as it is because it changed
	// after the turn, rather than because it could not be put back.
	Changed bool
}

// Undo puts back the files that the last turn which wrote any changed, as
// they were before that turn, removes the folders it made for them that
// are empty now, and forgets that turn, so that the next undo goes one turn
// further back. A file that no longer holds what the turn left in it (you
// or a command changed it since) is not put back: that would lose the
// change; its copy is kept until Close, for a diff.
func (j *Journal) Undo() Undone {
	j.mu.Lock()
	if len(j.turns) == 0 {
		j.mu.Unlock()
		return Undone{}
	}
	last := j.turns[len(j.turns)-1]
	j.turns = j.turns[:len(j.turns)-1]
	j.mu.Unlock()
	u := Undone{Turn: last.turn}
	for _, s := range last.files {
		what, err := j.restore(s)
		var ch *changedError
		switch {
		case errors.As(err, &ch):
			u.Kept = append(u.Kept, Kept{Name: s.name, Changed: true, Why: j.changedWhy(s, ch, last.turn)})
			continue // its copy stays, for the diff
		case err != nil:
			u.Kept = append(u.Kept, Kept{Name: s.name, Why: fmt.Sprintf("%s could not be put back: %v", s.name, err)})
		default:
			u.Done = append(u.Done, what)
		}
		if s.copy != "" {
			os.Remove(s.copy)
		}
	}
	u.Done = append(u.Done, j.removeDirs(last.dirs)...)
	return u
}

// changedError says that a file no longer holds what the turn left in it.
type changedError struct {
	gone    bool // it was removed since
	unknown bool // what the turn left in it is not known
}

func (e *changedError) Error() string { return "it changed after the turn" }

// changedWhy says why the file of s was left as it is, and how to see what
// putting it back would undo.
func (j *Journal) changedWhy(s snapshot, ch *changedError, turn int) string {
	why := fmt.Sprintf("%s was left as it is: it changed after turn %d (you or a command changed it), and putting it back would lose that", s.name, turn)
	switch {
	case ch.unknown:
		why = fmt.Sprintf("%s was left as it is: what turn %d left in it is not known, so putting it back could lose a later change", s.name, turn)
	case ch.gone:
		why = fmt.Sprintf("%s was left as it is: it was removed after turn %d", s.name, turn)
	}
	switch {
	case !s.existed:
		return why + "; the turn created it: remove it yourself if it should go"
	case s.copy == "":
		return why
	}
	return fmt.Sprintf("%s; its copy from before the turn is kept until the REPL ends: diff -u %s %s", why, quotePath(s.copy), quotePath(s.abs))
}

// quotePath quotes p for a shell when it holds anything but plain path
// characters.
func quotePath(p string) string {
	if strings.IndexFunc(p, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@,", r))
	}) < 0 {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// removeDirs removes the folders of dirs that are empty, the deepest
// first, through the workspace root, and says what it did.
func (j *Journal) removeDirs(dirs []string) []string {
	if len(dirs) == 0 {
		return nil
	}
	dirs = slices.Clone(dirs)
	slices.SortFunc(dirs, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	root, err := os.OpenRoot(j.ws.Root())
	if err != nil {
		return []string{fmt.Sprintf("the folders the turn made were left: %v", err)}
	}
	defer root.Close()
	var done []string
	for _, d := range dirs {
		if !j.inside(d) {
			continue
		}
		rel, err := filepath.Rel(j.ws.Root(), d)
		if err != nil {
			continue
		}
		name := filepath.ToSlash(rel) + "/"
		switch err := root.Remove(rel); {
		case err == nil:
			done = append(done, "removed the folder "+name+" (the turn made it)")
		case errors.Is(err, fs.ErrNotExist):
		default:
			done = append(done, "left the folder "+name+": the turn made it, but it is not empty")
		}
	}
	return done
}

// restore puts the file of s back as it was, through the workspace root,
// and says what it did. A file that no longer holds what the turn left in
// it is left as it is: the error is a *changedError.
func (j *Journal) restore(s snapshot) (string, error) {
	if !j.inside(s.abs) {
		return "", fmt.Errorf("it is %w", tools.ErrOutsideWorkspace)
	}
	rel, err := filepath.Rel(j.ws.Root(), s.abs)
	if err != nil {
		return "", err
	}
	now := sumFile(s.abs)
	switch {
	case !s.existed && !now.exists && now.known:
		return s.name + " is gone already (the turn created it)", nil
	case !s.left.known:
		return "", &changedError{unknown: true}
	case now != s.left:
		return "", &changedError{gone: now.known && !now.exists}
	}
	root, err := os.OpenRoot(j.ws.Root())
	if err != nil {
		return "", err
	}
	defer root.Close()
	if !s.existed {
		if err := root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		return "removed " + s.name + " (the turn created it)", nil
	}
	if s.lost != "" {
		return "", errors.New("no copy was kept: " + s.lost)
	}
	src, err := os.Open(s.copy)
	if err != nil {
		return "", err
	}
	defer src.Close()
	if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return "", err
	}
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".undo-tmp")
	dst, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, s.mode)
	if err != nil {
		return "", err
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Chmod(tmp, s.mode)
	}
	if err == nil {
		err = root.Rename(tmp, rel)
	}
	if err != nil {
		root.Remove(tmp)
		return "", err
	}
	return "restored " + s.name, nil
}

// Reset forgets every change, for a new conversation.
func (j *Journal) Reset() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.turns, j.turn = nil, 0
	clear(j.diffs)
	clear(j.previewed)
	if j.dir != "" {
		os.RemoveAll(j.dir)
	}
}

// Close removes the copies.
func (j *Journal) Close() {
	if j.dir != "" {
		os.RemoveAll(j.dir)
	}
}

// maxCopy bounds the size of a file the journal keeps a copy of.
const maxCopy = 64 << 20

// copyFile copies the regular file src to dst, a new file only its owner
// can read, making dst's folder. It does not block on a named pipe, and
// copies no file over maxCopy.
func copyFile(dst, src string) error {
	in, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	switch {
	case err != nil || !fi.Mode().IsRegular():
		return errors.New("it is not a regular file")
	case fi.Size() > maxCopy:
		return fmt.Errorf("it is over %d MiB", maxCopy>>20)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
