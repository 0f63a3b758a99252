package tools

import (
	"context"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"harness/fence"
	"harness/guard"
	"harness/protocol"
)

// Bounds of what Sources reads.
const (
	// maxScan bounds the bytes of one file whose text is checked for
	// secrets before a call reads it.
	maxScan = 4 << 20
	// maxReads bounds the files named as read by one command.
	maxReads = 256
)

// outputPrefix starts the name Sources gives a kept result, which no path
// from the root starts with in practice; a kept result wins over a file
// of the same name.
const outputPrefix = "output:"

// Sources names what a call reads, and says what their text seems to
// hold, so that the approval step can decide secrecy for a whole file
// once, whichever part or transformation of it a call would send
// (approve.Config's Reads and Leak).
type Sources struct {
	ws     *Workspace
	policy *guard.Policy
	out    *Outputs
	// seesHidden, when set and true, says that commands run where they
	// can see what Workspace.Hidden lists (no sandbox hides it).
	seesHidden func() bool
	leaks      leakCache // what files seemed to hold, by version
}

// NewSources returns the Sources of the tools of ws, whose commands
// policy checks, and whose long results out keeps (out may be nil).
func NewSources(ws *Workspace, policy *guard.Policy, out *Outputs) *Sources {
	return &Sources{ws: ws, policy: policy, out: out}
}

// CommandsSeeHidden tells s that commands see the paths Workspace.Hidden
// lists whenever see reports true, as they do without a sandbox (--sandbox
// none): a command that reads a folder then reads the protected files in
// it, and Reads and Secret name them.
func (s *Sources) CommandsSeeHidden(see func() bool) { s.seesHidden = see }

// Secret returns why call would read a path the workspace keeps from the
// model, or "": for read_file, list_files and edit_file as
// Workspace.SecretRead says; for bash, when commands see hidden paths
// (CommandsSeeHidden), the protected files in the folders it reads, such
// as grep -r ” . does. The approval step asks the user about such calls.
func (s *Sources) Secret(call protocol.Call) string {
	if call.Name != bashName {
		return s.ws.SecretRead(call)
	}
	command, _ := call.Args["command"].(string)
	_, hidden, err := s.commandReads(context.Background(), command)
	if err != nil {
		return "what it reads could not be found (" + err.Error() + ")"
	}
	if len(hidden) == 0 {
		return ""
	}
	return "it reads folders that hold protected files, which commands can see without a sandbox: " + strings.Join(hidden, ", ")
}

// Reads names what call would read: the file of read_file and edit_file,
// as a path from the root with symlinks resolved; for bash, the regular
// files among the paths whose contents the guard finds its command may
// read (guard.Policy.Reads: rev .env, xxd key, tr a b < x, not ls x); for
// read_output, the kept result it pages, as "output:" and its reference.
// Folders a command searches (grep -r) are not named: their files reach
// the model only through the check of the command's output, except the
// protected files in them when commands see those (CommandsSeeHidden).
func (s *Sources) Reads(ctx context.Context, call protocol.Call) []string {
	switch call.Name {
	case readName, editName:
		p, _ := call.Args["path"].(string)
		if old, _ := call.Args["old_text"].(string); call.Name == editName && old == "" {
			return nil // creates a file; reads none
		}
		abs, err := s.ws.Resolve(p)
		if err != nil {
			return nil
		}
		return []string{s.ws.Rel(abs)}
	case outputName:
		ref, _ := call.Args["ref"].(string)
		return []string{outputPrefix + ref}
	case bashName:
		command, _ := call.Args["command"].(string)
		files, hidden, _ := s.commandReads(ctx, command) // Secret says when it could not
		return append(files, hidden...)
	}
	return nil
}

// commandReads returns the regular files command reads, and, when
// commands see hidden paths, the hidden paths inside the folders it reads,
// each as a path from the root; or the error that kept it from finding
// them: the approval step's check, run first, refuses a command the guard
// refuses, but the guard's own time limit may end this later check of a
// command that passed that one, and then nothing is known of what it
// reads.
func (s *Sources) commandReads(ctx context.Context, command string) (files, hidden []string, err error) {
	if s.policy == nil {
		return nil, nil, nil
	}
	root, err := os.OpenRoot(s.ws.root)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	paths, err := s.policy.Reads(ctx, command, commandPaths{ws: s.ws, ig: s.ws.ignores(root)})
	if err != nil {
		return nil, nil, err
	}
	var folders []string
	for _, p := range paths {
		abs, err := s.ws.Resolve(p)
		if err != nil {
			continue
		}
		fi, err := os.Stat(abs)
		switch {
		case err != nil:
		case fi.Mode().IsRegular() && len(files) < maxReads && !slices.Contains(files, s.ws.Rel(abs)):
			files = append(files, s.ws.Rel(abs))
		case fi.IsDir():
			folders = append(folders, s.ws.Rel(abs))
		}
	}
	if len(folders) == 0 || s.seesHidden == nil || !s.seesHidden() {
		return files, nil, nil
	}
	all, err := s.ws.Hidden()
	if err != nil {
		// The protected paths could not all be listed: the folders the
		// command reads stand for them, so the call is still asked about.
		return files, folders, nil
	}
	for _, h := range all {
		rel := s.ws.Rel(h)
		if slices.ContainsFunc(folders, func(f string) bool { return f == "." || strings.HasPrefix(rel, f+"/") }) {
			hidden = append(hidden, rel)
		}
	}
	return files, hidden, nil
}

// Leak returns what the text of a name Reads gave seems to hold, as
// fence.Leak says of it ("a private key", ...), or "" when it holds none
// or cannot be read: of a file, its first 4 MiB. A file's answer is kept
// for as long as the file stays the same version (its identity, size and
// times), so that paging through a large file reads it for this once; a
// version changed so recently that a change within the same tick of the
// clock would not show is read every time. It never blocks on a named
// pipe.
func (s *Sources) Leak(name string) string {
	if ref, ok := strings.CutPrefix(name, outputPrefix); ok && s.out != nil {
		if text, ok := s.out.Kept(ref); ok {
			return fence.Leak(text)
		}
	}
	abs, err := s.ws.Resolve(name)
	if err != nil {
		return ""
	}
	root, rel, err := s.ws.within(abs)
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
	v, settled := versionOf(fi, time.Now())
	if what, ok := s.leaks.get(abs, v); ok {
		return what
	}
	// Read into once, not copied again, through a buffer no larger than
	// the file.
	size := int(min(fi.Size(), maxScan)) + 1
	var text strings.Builder
	text.Grow(size)
	if _, err := io.CopyBuffer(&text, io.LimitReader(f, maxScan), make([]byte, min(size, 32<<10))); err != nil {
		return ""
	}
	what := fence.Leak(text.String())
	if now, err := f.Stat(); err == nil && settled {
		if after, _ := versionOf(now, time.Now()); after == v {
			s.leaks.put(abs, v, what)
		}
	}
	return what
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
	if c.files == nil || len(c.files) >= maxLeakCache {
		c.files = make(map[string]leakVerdict)
	}
	c.files[abs] = leakVerdict{v, what}
}
