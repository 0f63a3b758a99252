package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"harness/loop"
	"harness/protocol"
	"harness/record"
)

// ErrInUse is wrapped when another process has the session open.
var ErrInUse = errors.New("the session is open in another harness")

// ErrNoSource is returned by a Writer that was never given the
// conversation to follow.
var ErrNoSource = errors.New("session: the writer follows no conversation")

// Source is the conversation a Writer saves: a *loop.Agent. View is read
// at every request, call and turn end, and its messages kept as what the
// file holds, so it must not copy them (loop.Agent.View does not) and must
// never change a message it has shown.
type Source interface {
	View() loop.State
}

// Writer saves one conversation into its session file as it goes: it is
// the loop.Hook of the Agent it follows (see the package doc for when it
// writes). After a failed write every later one fails too.
type Writer struct {
	mu    sync.Mutex
	store *Store
	id    string
	start *record.Start // to write first, until the file exists
	f     *os.File
	src   Source
	saved []protocol.Message // the conversation as the file has it
	dirty bool               // written since the last sync
	// turn and step are the main conversation's step under way, for the
	// lines a helper's end adds to it.
	turn, step int
	// first is the conversation as it stood before the first request of a
	// session whose file does not exist yet: it is written, with that
	// request's line, once the reply has come.
	first *loop.State
	err   error
	// buf holds the lines of a batch as enc encodes them, kept from one
	// batch to the next (under mu) so that a step's lines cost no buffer
	// of their own.
	buf bytes.Buffer
	enc *json.Encoder
	// dirSynced is closed when the folder's sync that made the new file's
	// name durable is done: it runs while the first lines are written,
	// and is waited for where the file is synced. nil once waited for, or
	// when there is none.
	dirSynced chan struct{}
}

// Create starts a new session for a conversation described by start (its
// Session and Format are set here). Its file is created once the first
// step has completed: when its reply has come, or at Save.
func (s *Store) Create(start record.Start) *Writer {
	go readyLines()
	return &Writer{store: s, id: newID(s.now()), start: &start}
}

// Continue opens the session id to continue it: it returns what it holds,
// and a Writer that appends to it, once its incomplete last step (if any)
// is cut off. The Writer holds the session until it is closed; while
// another does, Continue returns an error wrapping ErrInUse.
func (s *Store) Continue(id string) (*Writer, *Saved, error) {
	if !IsID(id) {
		return nil, nil, fmt.Errorf("%w: %q is not a session id", ErrNotFound, id)
	}
	f, err := os.OpenFile(s.Path(id), os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, nil, err
	}
	sv, err := continueFile(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("session %s: %w", id, err)
	}
	return &Writer{store: s, id: id, f: f, saved: sv.State.Messages}, sv, nil
}

// continueFile locks and reads a session file, and cuts it back to its
// last complete step.
func continueFile(f *os.File) (*Saved, error) {
	if err := lock(f); err != nil {
		return nil, err
	}
	sv, err := read(f)
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(sv.end); err != nil {
		return nil, err
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, sv.end-1); err != nil {
		return nil, err
	}
	if last[0] != '\n' { // a complete line cut just before its newline
		if _, err := f.Write([]byte("\n")); err != nil {
			return nil, err
		}
	}
	return sv, nil
}

// Save writes st as a new session of its own, named name, described by
// start, and returns it. The conversation goes on being saved where it
// was: Save copies it, it does not move it. A name that is not valid
// (CheckName) is refused, and so is one that a session of the same
// workspace already has: the error wraps ErrNameTaken, and is a
// *TakenError naming that session.
func (s *Store) Save(name string, start record.Start, st loop.State) (Info, error) {
	if err := CheckName(name); err != nil {
		return Info{}, err
	}
	if have, err := s.Find(start.Workspace, name); err == nil {
		return Info{}, &TakenError{Name: name, ID: have.ID}
	} else if !errors.Is(err, ErrNotFound) {
		return Info{}, err
	}
	start.Name = name
	w := s.Create(start)
	w.Follow(staticSource(st))
	if err := w.commit("turn_end", st.Turn, 0, true); err != nil {
		w.Close()
		return Info{}, err
	}
	if err := w.Close(); err != nil {
		return Info{}, err
	}
	info, _ := s.info(w.id, "")
	return info, info.Err
}

type staticSource loop.State

func (s staticSource) View() loop.State { return loop.State(s) }

// ID is the session's id.
func (w *Writer) ID() string { return w.id }

// Follow sets the conversation w saves: the Agent w is a hook of, once it
// is built.
func (w *Writer) Follow(src Source) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.src = src
}

// Event saves the conversation before each request and at the end of each
// turn, and syncs it at the end of each turn. A new session's first
// request is saved once its reply has come: a conversation whose first
// request failed leaves no file.
func (w *Writer) Event(e loop.Event) error {
	if e.Origin != "" {
		return nil // a nested conversation's
	}
	switch e.Kind {
	case loop.StepStarted:
		w.mu.Lock()
		w.turn, w.step = e.Turn, e.Step
		if w.f == nil && w.start != nil && w.err == nil && w.src != nil {
			st := w.src.View()
			w.first = &st
			w.mu.Unlock()
			return nil
		}
		w.mu.Unlock()
		return w.commit("request", e.Turn, e.Step, false)
	case loop.Replied:
		w.mu.Lock()
		first := w.first
		w.first = nil
		w.mu.Unlock()
		if first == nil {
			return nil
		}
		return w.commitFrom(staticSource(*first), "request", e.Turn, e.Step, false)
	case loop.TurnEnded:
		w.mu.Lock()
		first := w.first
		w.first = nil
		w.mu.Unlock()
		if first != nil || w.f == nil && w.start != nil {
			return nil // no step completed: there is nothing to save yet
		}
		return w.commit("turn_end", e.Turn, e.Step, true)
	case loop.CallStarted, loop.CallEnded:
		return w.pending()
	}
	return nil
}

// pending writes the messages of the step under way that the file lacks,
// with no line that marks them complete: the reply before its calls run,
// and each call's result once it has ended. A session killed while calls
// ran then says which had ended (Saved.Unfinished, Saved.CutCalls).
func (w *Writer) pending() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.f == nil || w.src == nil {
		return nil
	}
	b := w.batch()
	st, err := w.catchUp(b, w.src.View(), w.turn, w.step)
	if err != nil {
		w.err = err
		return err
	}
	if b.buf.Len() == 0 {
		return nil
	}
	w.err = w.flush(b, st.Messages, false)
	return w.err
}

// Close syncs and closes the file, if it was created, and lets the
// session go.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = fmt.Errorf("session %s: %w", w.id, os.ErrClosed)
	}
	if w.f == nil {
		return nil
	}
	var err error
	if w.dirty {
		err = w.f.Sync()
	}
	w.waitDir()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	return err
}

// commit writes, in one write, the lines that bring the file to the
// followed conversation and the line typ that marks it complete.
func (w *Writer) commit(typ string, turn, step int, sync bool) error {
	return w.commitFrom(nil, typ, turn, step, sync)
}

// commitFrom commits the conversation as src has it, or, when src is nil,
// as the followed one has it.
func (w *Writer) commitFrom(src Source, typ string, turn, step int, sync bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.src == nil {
		return ErrNoSource
	}
	if src == nil {
		src = w.src
	}
	w.err = w.write(src, typ, turn, step, sync)
	return w.err
}

func (w *Writer) write(src Source, typ string, turn, step int, sync bool) error {
	b := w.batch()
	st, err := w.catchUp(b, src.View(), turn, step)
	if err != nil {
		return err
	}
	size := 0
	for _, m := range st.Messages {
		size += len(m.Content)
	}
	calls := st.Calls
	if err := b.add(&record.Line{Type: typ, Turn: st.Turn, Step: step, Messages: len(st.Messages), Bytes: size,
		CallsSoFar: &calls, Usage: record.UsageOf(st.Usage)}); err != nil {
		return err
	}
	return w.flush(b, st.Messages, sync)
}

// batch is lines to write together, with one time.
type batch struct {
	now time.Time
	buf *bytes.Buffer
	enc *json.Encoder
}

// batch starts a batch in w's buffer. The caller holds w.mu until the
// batch is written.
func (w *Writer) batch() batch {
	if w.enc == nil {
		w.enc = json.NewEncoder(&w.buf)
	}
	w.buf.Reset()
	return batch{now: w.store.now().UTC(), buf: &w.buf, enc: w.enc}
}

// add encodes l as a line of b: what json.Marshal makes of it and a
// newline, without a copy of its own.
func (b batch) add(l *record.Line) error {
	l.Time = b.now
	return b.enc.Encode(l)
}

// readyLines has encoding/json make, once, what encodes a line (it makes
// it at a type's first use, for every type a line may hold): a new
// session's first lines are written once the first reply has come, and
// the run waits for them there, so Create has it made meanwhile.
var readyLines = sync.OnceFunc(func() {
	json.NewEncoder(io.Discard).Encode(&record.Line{Start: &record.Start{}})
})

// maxKept is the most a Writer keeps of the buffer of its last batch.
const maxKept = 1 << 20

// catchUp adds to b the lines that bring the file to the conversation st,
// creating the file and its start line first if it does not exist yet,
// and returns st.
func (w *Writer) catchUp(b batch, st loop.State, turn, step int) (loop.State, error) {
	if w.f == nil {
		if err := w.create(); err != nil {
			return st, err
		}
		w.start.Session, w.start.Format = w.id, record.Format
		if err := b.add(&record.Line{Type: "start", Start: w.start}); err != nil {
			return st, err
		}
		w.start = nil
	}
	keep := 0
	for keep < len(w.saved) && keep < len(st.Messages) && w.saved[keep] == st.Messages[keep] {
		keep++
	}
	if keep < len(w.saved) {
		if err := b.add(&record.Line{Type: "replace", Turn: turn, Step: step, Keep: &keep}); err != nil {
			return st, err
		}
	}
	for _, m := range st.Messages[keep:] {
		if err := b.add(&record.Line{Type: "message", Turn: turn, Step: step, Role: string(m.Role), Content: m.Content}); err != nil {
			return st, err
		}
	}
	return st, nil
}

// flush writes b with one write call; the file then holds msgs.
func (w *Writer) flush(b batch, msgs []protocol.Message, sync bool) error {
	_, err := w.f.Write(b.buf.Bytes())
	if b.buf.Cap() > maxKept {
		*b.buf = bytes.Buffer{}
	}
	if err != nil {
		return fmt.Errorf("saving session %s: %w", w.id, err)
	}
	w.saved, w.dirty = msgs, true
	if sync {
		if err := w.f.Sync(); err != nil {
			return fmt.Errorf("saving session %s: %w", w.id, err)
		}
		w.waitDir()
		w.dirty = false
	}
	return nil
}

// Child saves the conversation of a helper that the call origin of the
// followed conversation started, as its turn is over: the main
// conversation's messages the file lacks first (the one that holds the
// call among them), then the helper's messages and a turn_end line, all
// with its origin, in one write. They belong to the step under way: if it
// never completes, they go with it. Like every write, a failure is
// returned by the Writer's later writes too, so the turn that follows
// fails when it would save.
func (w *Writer) Child(origin string, st loop.State) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.src == nil {
		return ErrNoSource
	}
	w.err = w.writeChild(origin, st)
	return w.err
}

func (w *Writer) writeChild(origin string, child loop.State) error {
	b := w.batch()
	main, err := w.catchUp(b, w.src.View(), w.turn, w.step)
	if err != nil {
		return err
	}
	size := 0
	for _, m := range child.Messages {
		size += len(m.Content)
		if err := b.add(&record.Line{Type: "message", Turn: child.Turn, Origin: origin, Role: string(m.Role), Content: m.Content}); err != nil {
			return err
		}
	}
	calls := child.Calls
	if err := b.add(&record.Line{Type: "turn_end", Turn: child.Turn, Origin: origin, Messages: len(child.Messages), Bytes: size,
		CallsSoFar: &calls, Usage: record.UsageOf(child.Usage)}); err != nil {
		return err
	}
	return w.flush(b, main.Messages, false)
}

// Model saves that the model to answers from turn on, after from. Before
// the file exists, the start line it will begin with names to instead.
func (w *Writer) Model(turn int, from, to string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.f == nil && w.start != nil {
		w.start.Model = to
		return nil
	}
	b := w.batch()
	if err := b.add(&record.Line{Type: "model", Turn: turn, From: from, To: to}); err != nil {
		return err
	}
	w.err = w.flush(b, w.saved, true)
	return w.err
}

// Note saves a note for the model, made after turn: what a command
// changed behind its back (files /undo put back), which it is told with
// the next input (see Saved.Note). A session that has no file yet keeps
// none: it has had no step, so nothing for a command to take back.
func (w *Writer) Note(turn int, text string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.f == nil {
		return nil
	}
	b := w.batch()
	if err := b.add(&record.Line{Type: "note", Turn: turn, Text: text}); err != nil {
		return err
	}
	w.err = w.flush(b, w.saved, true)
	return w.err
}

// create creates the file of a new session, under a new id if its own is
// taken.
func (w *Writer) create() error {
	for range 10 {
		f, err := os.OpenFile(w.store.Path(w.id), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
		if errors.Is(err, os.ErrExist) {
			w.id = newID(w.store.now())
			continue
		}
		if err != nil {
			return fmt.Errorf("creating session %s: %w", w.id, err)
		}
		if err := lock(f); err != nil {
			f.Close()
			return fmt.Errorf("creating session %s: %w", w.id, err)
		}
		// The name is made durable beside the first write, not before
		// it: both are done when the file is first synced.
		synced, dir, syncDir := make(chan struct{}), w.store.dir, w.store.syncDir
		go func() {
			defer close(synced)
			syncDir(dir)
		}()
		w.f, w.dirSynced = f, synced
		return nil
	}
	return fmt.Errorf("creating a session in %s: %w", w.store.dir, os.ErrExist)
}

// waitDir waits for the sync of the folder of a file just created, if
// one is under way. The caller holds w.mu.
func (w *Writer) waitDir() {
	if w.dirSynced != nil {
		<-w.dirSynced
		w.dirSynced = nil
	}
}

// syncDir makes a new file's name in dir durable, where the system can.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

var _ loop.Hook = (*Writer)(nil)
var _ io.Closer = (*Writer)(nil)
