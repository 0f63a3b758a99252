package tools

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"harness/fence"
	"harness/gitdir"
	"harness/guard"
)

// Bounds of the listing of history's paths.
const (
	// maxHistoryTime bounds the time git may take to list them.
	maxHistoryTime = 20 * time.Second
	// maxHistoryPaths bounds how many it may hold: past them, history
	// counts as holding protected files it could not name.
	maxHistoryPaths = 1_000_000
)

// errHistoryTooLarge is the error of a history with more paths than
// maxHistoryPaths.
var errHistoryTooLarge = fmt.Errorf("history holds more than %d paths", maxHistoryPaths)

// historyList remembers the objects git's history and index hold, for
// one state of the repository's references, index and reflogs, and what
// the text of each blob seemed to hold, for as long as the workspace
// lives (an object's text never changes).
type historyList struct {
	mu      sync.Mutex
	state   string          // the state they were listed at; "" for none
	objects []historyObject // by path from the workspace root, sorted
	leaks   map[string]string
	lists   int    // how many times git listed them, for tests
	scanMax int64  // the bytes one call reads, if not maxHistoryScan, for tests
	git     string // the git program, once found
}

// historyObject is an object of history and the path, from the
// workspace root, git first found it at.
type historyObject struct{ id, path string }

// HistoryFile is a path of git's history that a command printing it
// would read a secret at: one the workspace protects, or one whose text,
// in some commit or in the index, looks like it holds a secret.
type HistoryFile struct {
	Path string
	// Leak is what its text seemed to hold (fence.Leak), or "" for a
	// path the workspace protects.
	Leak string
}

// HistorySecrets returns the paths, from the root, that git's history
// and index hold, of those one of specs reaches (guard.Covers,
// guard.Reads.History), at which a command that prints them would print
// a secret: those the workspace protects (Secret: a secret's name, an
// ignore rule of now or of the run's start), and those whose text, in
// some commit or in the index, looks like it holds a secret
// (fence.Leak). History is what the references, their reflogs and the
// index reach: every commit of every branch, tag and stash and the files
// they held. In a workspace that is a folder of a larger repository,
// only the paths inside it count. Without a repository, or without git,
// it returns none.
//
// Git lists history's files, each blob at every path it had (log --raw,
// ls-files --stage), the first time a command that prints history asks,
// and again only when a reference, a reflog or the index changed; it reads the text of each blob once (cat-file
// --batch), at most maxHistoryScan bytes a call, so that a large history
// is read over several. Git runs without the user's and the system's
// configuration, with the repository's file-system monitor and signature
// checks off and no external diff or text conversion, so that no program
// a configuration names runs; a partial clone, whose missing objects git
// would fetch, is not read. When the paths cannot be
// listed or the text not all read, it returns an error: the caller must
// then take history to hold secrets.
func (w *Workspace) HistorySecrets(ctx context.Context, specs []string) ([]HistoryFile, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	h := w.history
	h.mu.Lock()
	defer h.mu.Unlock()
	run, err := w.historyObjects(ctx)
	if err != nil || run == nil {
		return nil, err
	}
	root, err := os.OpenRoot(w.root)
	if err != nil {
		return nil, fmt.Errorf("cannot open the workspace: %w", err)
	}
	defer root.Close()
	ig := w.ignores(root)
	var out []HistoryFile
	var unread []string // the ids of blobs to read, at paths not protected
	protected := make(map[string]bool)
	for _, o := range h.objects {
		if !slices.ContainsFunc(specs, func(s string) bool { return guard.Covers(s, o.path) }) {
			continue
		}
		secret, seen := protected[o.path]
		if !seen {
			secret = w.secret(ig, filepath.Join(w.root, filepath.FromSlash(o.path)), false) != ""
			protected[o.path] = secret
			if secret {
				out = append(out, HistoryFile{Path: o.path})
			}
		}
		if _, ok := h.leaks[o.id]; !secret && !ok {
			unread = append(unread, o.id)
		}
	}
	scanErr := run.scan(ctx, unread, cmp.Or(h.scanMax, maxHistoryScan), h.keep)
	leaky := make(map[string]bool)
	for _, o := range h.objects {
		if what := h.leaks[o.id]; what != "" && !protected[o.path] && !leaky[o.path] &&
			slices.ContainsFunc(specs, func(s string) bool { return guard.Covers(s, o.path) }) {
			leaky[o.path] = true
			out = append(out, HistoryFile{Path: o.path, Leak: what})
		}
	}
	return out, scanErr
}

// keep notes what the text of the object id seemed to hold.
func (h *historyList) keep(id, what string) {
	putBounded(&h.leaks, id, what, maxHistoryPaths)
}

// gitRun is how the harness runs git on the workspace's repository.
type gitRun struct {
	git    string
	layout gitdir.Layout
}

func (g gitRun) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, g.git, append([]string{"-c", "core.fsmonitor=false", "-c", "log.showSignature=false", "--no-replace-objects"}, args...)...)
	cmd.Dir = filepath.Dir(g.layout.Dot)
	cmd.Env = gitEnv(g.layout.Git)
	return cmd
}

// historyObjects brings h.objects, h being w.history and locked, up to
// date, listing them when the repository's state changed since they were
// last listed. It returns how to run git on the repository, or nil
// without a repository or git.
func (w *Workspace) historyObjects(ctx context.Context) (*gitRun, error) {
	l, prefix := gitdir.Find(w.root), ""
	if l.Git == "" {
		l = enclosing(w.root)
		if l.Git == "" {
			return nil, nil
		}
		rel, err := filepath.Rel(filepath.Dir(l.Dot), w.root)
		if err != nil {
			return nil, err
		}
		prefix = filepath.ToSlash(rel) + "/"
	}
	if w.history.git == "" {
		git, err := fence.LookPath("git", w.root) // never a git the workspace holds: it would run outside the sandbox
		if err != nil {
			return nil, nil // no git, no command that prints its history
		}
		w.history.git = git
	}
	run := &gitRun{git: w.history.git, layout: l}
	if run.partial() {
		return nil, errPartialClone
	}
	h := w.history
	state, settled := repoState(l)
	if state == h.state && h.state != "" {
		return run, nil
	}
	h.lists++
	objects, err := run.list(ctx, prefix)
	if err != nil {
		return nil, err
	}
	h.state, h.objects = "", objects
	if settled {
		h.state = state
	}
	return run, nil
}

// list runs git to list the files the references, their reflogs and
// the index reach, each blob at every path it has had, keeping those
// under prefix (a folder of the repository, with its "/", or "" for
// all) without it: git log --raw of every commit against each parent
// (the root commits against nothing), and git ls-files --stage. A blob
// at two paths is listed at both, so that a pathspec reaching either
// reaches it.
func (g gitRun) list(ctx context.Context, prefix string) ([]historyObject, error) {
	ctx, cancel := context.WithTimeout(ctx, maxHistoryTime)
	defer cancel()
	seen := make(map[historyObject]bool)
	var objects []historyObject
	add := func(id, p string) error {
		rel, inside := strings.CutPrefix(p, prefix)
		o := historyObject{id: id, path: rel}
		if !inside || rel == "" || seen[o] {
			return nil
		}
		if len(objects) == maxHistoryPaths {
			return errHistoryTooLarge
		}
		seen[o] = true
		objects = append(objects, o)
		return nil
	}
	// :100644 100644 OLD NEW M, then the path.
	var header []string
	err := g.fields(ctx, func(tok string) error {
		tok = strings.TrimLeft(tok, "\n")
		if strings.HasPrefix(tok, ":") {
			header = strings.Fields(tok)
			return nil
		}
		h := header
		header = nil
		if len(h) < 5 || strings.HasPrefix(h[1], "160") || strings.Trim(h[3], "0") == "" {
			return nil // a submodule's commit, or a file deleted
		}
		return add(h[3], tok)
	}, "log", "--all", "--reflog", "--root", "--diff-merges=separate", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-show-signature", "--format=", "--raw", "--no-abbrev", "-z")
	if err != nil {
		if noCommits(g.layout) {
			return nil, nil // no commit and no index: nothing to list
		}
		return nil, err
	}
	// 100644 ID 0, a tab, then the path.
	err = g.fields(ctx, func(tok string) error {
		meta, p, ok := strings.Cut(tok, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || strings.HasPrefix(f[0], "160") {
			return nil
		}
		return add(f[1], p)
	}, "ls-files", "--stage", "-z")
	if err != nil {
		return nil, err
	}
	slices.SortFunc(objects, func(a, b historyObject) int { return strings.Compare(a.path, b.path) })
	return objects, nil
}

// fields runs git with args, giving each NUL-terminated field of its
// output to use, and stops it at use's first error.
func (g gitRun) fields(ctx context.Context, use func(string) error, args ...string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := g.command(ctx, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git %s: %w", args[0], err)
	}
	r := bufio.NewReaderSize(out, 64<<10)
	var stop error
	for {
		tok, err := r.ReadString(0)
		if tok = strings.TrimSuffix(tok, "\x00"); tok != "" {
			if stop = use(tok); stop != nil {
				break
			}
		}
		if err != nil {
			if err != io.EOF {
				stop = fmt.Errorf("git %s: %w", args[0], err)
			}
			break
		}
	}
	if stop != nil {
		cancel()
	}
	waitErr := cmd.Wait()
	switch {
	case stop != nil:
		return stop
	case waitErr != nil:
		return fmt.Errorf("git %s: %w", args[0], waitErr)
	}
	return nil
}

// maxWholeBlob bounds the blobs scan reads whole to check them; larger
// ones are read in chunks (fence.LeakReader).
const maxWholeBlob = 1 << 20

// errHistoryTime is the error of a scan that ran out of its time.
var errHistoryTime = fmt.Errorf("reading history's text takes more than the %v one call may take; later calls read the rest", maxHistoryTime)

// errPartialClone is the error of a scan of a partial clone's objects.
var errPartialClone = errors.New("the repository is a partial clone, whose missing objects git would fetch to read them")

// partial reports whether the repository is a partial clone, whose
// missing objects git fetches from a remote when asked for them: its
// configuration sets extensions.partialClone.
func (g gitRun) partial() bool {
	data, err := os.ReadFile(filepath.Join(g.layout.Common, "config"))
	if err != nil {
		return false
	}
	_, ok := gitdir.Value(string(data), "extensions", "partialClone")
	return ok
}

// maxHistoryScan bounds the bytes of objects one call of scan reads.
const maxHistoryScan = 256 << 20

// errHistoryScan is the error of a scan that could not read every
// object it was given within its bounds.
var errHistoryScan = fmt.Errorf("history holds more text than the %d MiB one call reads to check it for secrets; later calls read the rest", maxHistoryScan>>20)

// scan reads the objects ids with git cat-file --batch, giving keep what
// the text of each blob seems to hold (fence.Leak), "" for the others.
// It stops before reading more than limit bytes, or after
// maxHistoryTime, returning an error.
func (g gitRun) scan(ctx context.Context, ids []string, limit int64, keep func(id, what string)) error {
	if len(ids) == 0 {
		return nil
	}
	outer := ctx
	ctx, cancel := context.WithTimeout(ctx, maxHistoryTime)
	defer cancel()
	cmd := g.command(ctx, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	go func() {
		w := bufio.NewWriter(in)
		for _, id := range ids {
			if _, err := w.WriteString(id + "\n"); err != nil {
				break
			}
		}
		w.Flush()
		in.Close()
	}()
	r := bufio.NewReaderSize(out, 64<<10)
	var read int64
	var stop error
	var buf []byte
	for done := 0; done < len(ids); done++ {
		header, err := r.ReadString('\n')
		if err != nil {
			stop = fmt.Errorf("git cat-file: %w", err)
			break
		}
		f := strings.Fields(header)
		if len(f) == 2 && f[1] == "missing" {
			continue // git cannot print it now; not kept, so read if it comes back
		}
		var size int64
		if len(f) != 3 {
			stop = fmt.Errorf("git cat-file: unexpected %q", strings.TrimSpace(header))
			break
		}
		if _, err := fmt.Sscan(f[2], &size); err != nil || size < 0 {
			stop = fmt.Errorf("git cat-file: unexpected %q", strings.TrimSpace(header))
			break
		}
		if read > 0 && read+size > limit {
			stop = errHistoryScan // a blob larger than limit is read alone
			break
		}
		read += size
		body := io.LimitReader(r, size)
		what := ""
		switch {
		case f[1] != "blob":
		case size <= maxWholeBlob:
			// Most blobs are small: read whole into the one buffer,
			// not through LeakReader's chunks of a megabyte each.
			buf = slices.Grow(buf[:0], int(size))[:size]
			if _, err := io.ReadFull(body, buf); err != nil {
				stop = fmt.Errorf("git cat-file: %w", err)
				break
			}
			what = fence.Leak(string(buf))
		default:
			what, err = fence.LeakReader(body, size)
			if err != nil {
				stop = fmt.Errorf("git cat-file: %w", err)
			}
		}
		if stop != nil {
			break
		}
		if _, err := io.Copy(io.Discard, body); err != nil {
			stop = fmt.Errorf("git cat-file: %w", err)
			break
		}
		if _, err := r.Discard(1); err != nil { // the newline after the text
			stop = fmt.Errorf("git cat-file: %w", err)
			break
		}
		keep(f[0], what)
	}
	if stop != nil {
		cancel()
	}
	waitErr := cmd.Wait()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && outer.Err() == nil:
		return errHistoryTime
	case stop != nil:
		return stop
	case waitErr != nil:
		return fmt.Errorf("git cat-file: %w", waitErr)
	}
	return nil
}

// noCommits reports whether the repository has no reference and no
// index: nothing history could hold.
func noCommits(l gitdir.Layout) bool {
	if _, err := os.Lstat(filepath.Join(l.Git, "index")); err == nil {
		return false
	}
	if _, err := os.Lstat(filepath.Join(l.Common, "packed-refs")); err == nil {
		return false
	}
	empty := true
	filepath.WalkDir(filepath.Join(l.Common, "refs"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			empty = false
			return filepath.SkipAll
		}
		return nil
	})
	return empty
}

// gitEnv is the environment the harness runs git in: the process's, but
// for git's own variables, with the git directory named, no
// configuration but the repository's, no prompt and no fetching of
// missing objects.
func gitEnv(gitDir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env, "GIT_DIR="+gitDir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_TERMINAL_PROMPT=0", "GIT_NO_LAZY_FETCH=1", "GIT_OPTIONAL_LOCKS=0")
}

// repoState returns what the paths of history depend on, as a string:
// the stamps of HEAD, the index, packed-refs and every file under refs
// and logs, in the git directory and the common one; and whether they
// are settled, changed longer ago than a tick of the clock could hide.
func repoState(l gitdir.Layout) (string, bool) {
	var b strings.Builder
	settledAll := true
	now := time.Now()
	add := func(p string) {
		st := stampOf(p)
		fmt.Fprintf(&b, "%s\x00%v\x00%d\x00%d\x00%d\n", p, st.exists, st.mod.UnixNano(), st.size, st.change)
		if st.exists && now.Sub(st.mod) < 2*time.Second {
			settledAll = false
		}
	}
	dirs := []string{l.Git}
	if l.Common != "" && l.Common != l.Git {
		dirs = append(dirs, l.Common)
	}
	for _, d := range dirs {
		for _, f := range []string{"HEAD", "index", "packed-refs"} {
			add(filepath.Join(d, f))
		}
		for _, sub := range []string{"refs", "logs"} {
			filepath.WalkDir(filepath.Join(d, sub), func(p string, e fs.DirEntry, err error) error {
				if err == nil {
					add(p)
				}
				return nil
			})
		}
	}
	return b.String(), settledAll
}

// maxHistoryNames bounds the protected paths of history a question
// names; the inspection's reads hold them all.
const maxHistoryNames = 20

// historyReads returns why the line, which prints files from git's
// history or index (guard.Reads.History), reads secrets, or "" when it
// reaches none, and the protected paths it reaches, which a "no" then
// withholds as it does a read of them; a path whose text only in
// history looked secret is not among them, so that its text of now can
// still be read. This holds whatever
// the sandbox: git reads its own objects, which no sandbox hides. When
// history cannot be checked in full, the line counts as reading secrets,
// whichever could not be named.
func (c *checked) historyReads(ctx context.Context) (string, []string) {
	if len(c.history) == 0 {
		return "", nil
	}
	found, err := c.ws.HistorySecrets(ctx, c.history)
	var protected, leaky, names []string
	for _, f := range found {
		if f.Leak == "" {
			protected = append(protected, f.Path)
			names = append(names, f.Path)
		} else {
			leaky = append(leaky, fmt.Sprintf("%s (%s)", f.Path, f.Leak))
		}
	}
	var whys []string
	if len(protected) > 0 {
		whys = append(whys, "it prints files from git's history or index, which holds protected files: "+listNames(protected))
	}
	if len(leaky) > 0 {
		whys = append(whys, "it prints files from git's history or index whose text there looks like it holds a secret: "+listNames(leaky))
	}
	if err != nil {
		whys = append(whys, fmt.Sprintf("it prints files from git's history or index, which could not all be checked for secrets (%v)", err))
	}
	return strings.Join(whys, "; "), names
}

// listNames joins names for a question, at most maxHistoryNames of them.
func listNames(names []string) string {
	if len(names) <= maxHistoryNames {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxHistoryNames], ", "), len(names)-maxHistoryNames)
}
