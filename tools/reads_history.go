package tools

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

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

// historyList remembers the paths git's history and index hold, for one
// state of the repository's references, index and reflogs.
type historyList struct {
	mu    sync.Mutex
	state string   // the state they were listed at; "" for none
	paths []string // from the workspace root, sorted
}

// HistorySecrets returns the paths, from the root, that git's history
// and index hold and the workspace protects (Secret: a secret's name, an
// ignore rule of now or of the run's start), of those that one of specs
// reaches (guard.Covers, guard.Reads.History). History is what the
// references, their reflogs and the index reach: every commit of every
// branch, tag and stash and the files they held. In a workspace that is
// a folder of a larger repository, only the paths inside it count.
// Without a repository, or without git, it returns none. The paths are
// listed by git (rev-list --objects) the first time a command that
// prints history asks, and again only when a reference, a reflog or the
// index changed; git is run without the user's and the system's
// configuration and with the repository's file-system monitor off, so
// that no program the configuration names runs. When they cannot be
// listed, it returns an error: the caller must then take history to
// hold protected files.
func (w *Workspace) HistorySecrets(ctx context.Context, specs []string) ([]string, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	paths, err := w.historyPaths(ctx)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(w.root)
	if err != nil {
		return nil, fmt.Errorf("cannot open the workspace: %w", err)
	}
	defer root.Close()
	ig := w.ignores(root)
	var out []string
	for _, p := range paths {
		if !slices.ContainsFunc(specs, func(s string) bool { return guard.Covers(s, p) }) {
			continue
		}
		if w.secret(ig, filepath.Join(w.root, filepath.FromSlash(p)), false) != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// historyPaths returns the paths history holds, from the root, listing
// them when the repository's state changed since they were last listed.
func (w *Workspace) historyPaths(ctx context.Context) ([]string, error) {
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
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, nil // no git, no command that prints its history
	}
	h := w.history
	h.mu.Lock()
	defer h.mu.Unlock()
	state, settled := repoState(l)
	if state == h.state && h.state != "" {
		return h.paths, nil
	}
	paths, err := listHistory(ctx, git, l, prefix)
	if err != nil {
		return nil, err
	}
	h.state, h.paths = "", paths
	if settled {
		h.state = state
	}
	return paths, nil
}

// listHistory runs git to list the paths of every object the references,
// their reflogs and the index reach, keeping those under prefix (a
// folder of the repository, with its "/", or "" for all) without it.
func listHistory(ctx context.Context, git string, l gitdir.Layout, prefix string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, maxHistoryTime)
	defer cancel()
	cmd := exec.CommandContext(ctx, git, "-c", "core.fsmonitor=false", "--no-replace-objects",
		"rev-list", "--all", "--reflog", "--indexed-objects", "--objects", "--missing=allow-any")
	cmd.Dir = filepath.Dir(l.Dot)
	cmd.Env = gitEnv(l.Git)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git rev-list: %w", err)
	}
	seen := make(map[string]bool)
	var paths []string
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var tooMany error
	for sc.Scan() {
		_, p, ok := strings.Cut(sc.Text(), " ")
		if !ok || p == "" || seen[p] {
			continue
		}
		rel, inside := strings.CutPrefix(p, prefix)
		if !inside || rel == "" {
			continue
		}
		if len(paths) == maxHistoryPaths {
			tooMany = errHistoryTooLarge
			break
		}
		seen[p] = true
		paths = append(paths, rel)
	}
	scanErr := sc.Err()
	if tooMany != nil || scanErr != nil {
		cancel()
	}
	waitErr := cmd.Wait()
	switch {
	case tooMany != nil:
		return nil, tooMany
	case scanErr != nil:
		return nil, fmt.Errorf("git rev-list: %w", scanErr)
	case waitErr != nil:
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) && len(paths) == 0 && ctx.Err() == nil {
			// A repository without a commit has no history: rev-list
			// fails on no reference, and the index is empty.
			if noCommits(l) {
				return nil, nil
			}
		}
		return nil, fmt.Errorf("git rev-list: %w", waitErr)
	}
	slices.Sort(paths)
	return paths, nil
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
// history or index (guard.Reads.History), reads protected files, and
// the protected paths it reaches, or "" when it reaches none. This holds
// whatever the sandbox: git reads its own objects, which no sandbox
// hides. When history's paths cannot be listed, the line counts as
// reading protected files, unnamed.
func (c *checked) historyReads(ctx context.Context) (string, []string) {
	if len(c.history) == 0 {
		return "", nil
	}
	names, err := c.ws.HistorySecrets(ctx, c.history)
	switch {
	case err != nil:
		return fmt.Sprintf("it prints files from git's history or index, whose paths could not be listed to check them for protected files (%v)", err), nil
	case len(names) == 0:
		return "", nil
	}
	shown := names
	more := ""
	if len(shown) > maxHistoryNames {
		shown, more = shown[:maxHistoryNames], fmt.Sprintf(" and %d more", len(names)-maxHistoryNames)
	}
	return "it prints files from git's history or index, which holds protected files: " + strings.Join(shown, ", ") + more, names
}
