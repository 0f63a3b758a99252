package session

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"harness/protocol"
	"harness/record"
)

// ErrNotFound is wrapped when no session has the id or name asked for.
var ErrNotFound = errors.New("no such session")

// Store is the folder that holds the sessions.
type Store struct {
	dir string
	now func() time.Time
	// syncDir makes a new file's name in dir durable (syncDir, but for
	// tests).
	syncDir func(dir string)
}

// Open returns the store in dir, creating the folder (0700) if it is
// missing. The error names the folder.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the session folder %s: %w", dir, err)
	}
	return &Store{dir: dir, now: time.Now, syncDir: syncDir}, nil
}

// Dir is the store's folder.
func (s *Store) Dir() string { return s.dir }

// Path is the file of the session id.
func (s *Store) Path(id string) string { return filepath.Join(s.dir, id+".jsonl") }

// idPattern is compiled when first needed, not before main: most runs
// never ask.
var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{8}-[0-9]{6}-[0-9a-f]{4}$`) })

// IsID reports whether ref has the form of a session id, as opposed to a
// name given with Save.
func IsID(ref string) bool { return idPattern().MatchString(ref) }

// MaxName is the most bytes a session's name may have.
const MaxName = 64

var (
	// ErrName is wrapped by the errors about a name a session cannot have.
	ErrName = errors.New("not a valid session name")
	// ErrNameTaken is wrapped when a session of the workspace already has
	// the name asked for.
	ErrNameTaken = errors.New("the name is taken")
)

// CheckName returns an error wrapping ErrName, saying why, unless name can
// name a session: at most MaxName bytes of printable text, with no slash or
// backslash, not starting with a dot or a space nor ending with a space,
// and not of the form of an id (which would find the session by id).
func CheckName(name string) error {
	why := ""
	switch {
	case name == "":
		why = "it is empty"
	case len(name) > MaxName:
		why = fmt.Sprintf("it is longer than %d bytes", MaxName)
	case !utf8.ValidString(name):
		why = "it is not UTF-8 text"
	case strings.ContainsAny(name, `/\`):
		why = "it holds a slash"
	case strings.HasPrefix(name, "."):
		why = "it starts with a dot"
	case strings.TrimSpace(name) != name:
		why = "it starts or ends with a space"
	case strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }):
		why = "it holds a control character"
	case IsID(name):
		why = "it has the form of a session id"
	default:
		return nil
	}
	return fmt.Errorf("%w: %q: %s", ErrName, name, why)
}

// TakenError says which session already has a name.
type TakenError struct {
	Name string
	ID   string // the session that has it
}

func (e *TakenError) Error() string {
	return fmt.Sprintf("session %s is already named %q", e.ID, e.Name)
}

func (e *TakenError) Unwrap() error { return ErrNameTaken }

// newID returns a fresh id for a session started at t. Its digits need
// not be unguessable, only unlikely to be another's (create takes another
// when they are): the runtime's generator, seeded at start, gives them
// without the first use of a secure one.
func newID(t time.Time) string {
	n := rand.Uint32()
	b := [2]byte{byte(n >> 8), byte(n)}
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// Info describes a session for a listing.
type Info struct {
	ID        string
	Name      string // "" unless it was saved under a name
	Workspace string
	Model     string
	Backend   string
	Started   time.Time
	Updated   time.Time // when the file last changed
	Turns     int       // turns started, as of the last complete step
	Prompt    string    // the first thing the user said in it
	// Err says why the session cannot be continued, when it cannot; the
	// fields above are set as far as they could be read.
	Err error
}

// List returns the sessions of workspace, or of every workspace when
// workspace is "", oldest first. A session that cannot be read is listed
// with its Err, under "" only unless its workspace could be read.
func (s *Store) List(workspace string) ([]Info, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("listing sessions: %w", err)
	}
	var infos []Info
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || !IsID(id) || !e.Type().IsRegular() {
			continue
		}
		info, ok := s.info(id, workspace)
		if ok {
			infos = append(infos, info)
		}
	}
	slices.SortFunc(infos, func(a, b Info) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return infos, nil
}

// Latest returns the session of workspace that changed last, of those
// not saved under a name: a named one is a copy (Save), and the latest
// conversation is the one it was copied from. It wraps ErrNotFound when
// the workspace has none.
func (s *Store) Latest(workspace string) (Info, error) {
	infos, err := s.List(workspace)
	if err != nil {
		return Info{}, err
	}
	infos = slices.DeleteFunc(infos, func(i Info) bool { return i.Name != "" })
	if len(infos) == 0 {
		return Info{}, fmt.Errorf("%w for %s", ErrNotFound, workspace)
	}
	return slices.MaxFunc(infos, func(a, b Info) int {
		if c := a.Updated.Compare(b.Updated); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	}), nil
}

// Find returns the session ref names: an id (of any workspace), or else
// the name of a session of workspace given with Save (the one that changed
// last, when several have it). It wraps ErrNotFound when there is none.
func (s *Store) Find(workspace, ref string) (Info, error) {
	if IsID(ref) {
		if _, err := os.Stat(s.Path(ref)); err != nil {
			return Info{}, fmt.Errorf("%w: %s", ErrNotFound, ref)
		}
		info, _ := s.info(ref, "")
		return info, nil
	}
	infos, err := s.List(workspace)
	if err != nil {
		return Info{}, err
	}
	infos = slices.DeleteFunc(infos, func(i Info) bool { return i.Name != ref })
	if len(infos) == 0 {
		return Info{}, fmt.Errorf("%w: no session of %s is named %q", ErrNotFound, workspace, ref)
	}
	return slices.MaxFunc(infos, func(a, b Info) int { return a.Updated.Compare(b.Updated) }), nil
}

// Load reads the session id, without changing it.
func (s *Store) Load(id string) (*Saved, error) {
	if !IsID(id) {
		return nil, fmt.Errorf("%w: %q is not a session id", ErrNotFound, id)
	}
	f, err := os.Open(s.Path(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sv, err := read(f)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	return sv, nil
}

// headLines bounds the lines info reads for the first prompt.
const headLines = 8

// info reads what a listing shows of session id; ok is false when its
// workspace is known and is not workspace (unless that is "").
func (s *Store) info(id, workspace string) (info Info, ok bool) {
	info.ID = id
	f, err := os.Open(s.Path(id))
	if err != nil {
		info.Err = err
		return info, workspace == ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		info.Err = err
		return info, workspace == ""
	}
	info.Updated = st.ModTime()
	// The start line is read apart: the scanner stops at one of a format
	// it does not know, and the listing still shows whose it is.
	br := bufio.NewReader(f)
	raw, err := br.ReadBytes('\n')
	if len(raw) == 0 {
		info.Err = ErrEmpty
		return info, workspace == ""
	}
	var l record.Line
	if err := json.Unmarshal(raw, &l); err != nil || l.Type != "start" || l.Start == nil || l.Session == "" {
		info.Err = fmt.Errorf("%w: it does not begin with a start line", ErrInvalid)
		return info, workspace == ""
	}
	info.Name, info.Workspace, info.Model, info.Backend, info.Started = l.Name, l.Workspace, l.Model, l.Backend, l.Time
	if workspace != "" && info.Workspace != workspace {
		return info, false
	}
	if l.Format != record.Format {
		info.Err = &record.FormatError{Line: 1, Format: l.Format}
		return info, true
	}
	// Lines that do not read are left for Load to report.
	sc := record.NewScanner(br)
	for n := 1; err == nil && n < headLines && sc.Scan(); n++ {
		if l := sc.Line(); l.Type == "message" && l.Role == string(protocol.User) {
			info.Prompt = l.Content
			break
		}
	}
	turns, found := lastTurn(f, st.Size())
	if !found {
		info.Err = ErrEmpty
	}
	info.Turns = turns
	return info, true
}

// lastTurn finds the turn of the last request or turn_end line of a
// session, reading only as much of its end as it must. Lines are found by
// their start: a line is one JSON object, and "type" is its first field.
func lastTurn(f io.ReaderAt, size int64) (turn int, found bool) {
	for window := int64(16 << 10); ; window *= 2 {
		start := max(0, size-window)
		buf := make([]byte, size-start)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return 0, false
		}
		lines := bytes.Split(buf, []byte("\n"))
		first := 0
		if start > 0 {
			first = 1 // the window may begin inside a line
		}
		for i := len(lines) - 1; i >= first; i-- {
			l := lines[i]
			if !bytes.HasPrefix(l, []byte(`{"type":"request"`)) && !bytes.HasPrefix(l, []byte(`{"type":"turn_end"`)) {
				continue
			}
			var c struct {
				Turn   int
				Origin string
			}
			if json.Unmarshal(l, &c) == nil && c.Origin == "" {
				return c.Turn, true
			}
		}
		if start == 0 {
			return 0, false
		}
	}
}
