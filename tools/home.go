package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"harness/fence"
	"harness/sandbox"
	"harness/xdg"
)

// homeWhy says why the home folder's settings (fence.HomeSetting) are
// not written.
const homeWhy = "it is one of the home folder's settings (an entry whose name starts with a dot, ~/bin, or the system's folder of user settings), which programs read and act on when they start: the user's next go, cargo, python, shell or login would run what was written, outside any sandbox"

// homePlaces returns the places that run later (see place) when root, a
// real path, holds home, the home folder: home itself, whose settings
// (fence.HomeSetting) are written by no tool, whether they exist or not;
// the folders of path, the folders of PATH, that lie in home, but for
// home itself, and the folder a bin among them lies in, unless that is
// home (~/go for ~/go/bin, whose pkg/mod Go's builds compile, a conda's
// lib for its bin); and where a setting of home, or an entry of one of its
// setting folders (~/.config/nvim), links to, when that is elsewhere in
// root (a dotfiles folder). None is home or a folder it lies in: a link
// to the home folder does not make all of it a setting.
func homePlaces(root, home string, path []string) []place {
	if !filepath.IsAbs(home) {
		return nil
	}
	real, err := realPath(home, 0)
	if err != nil || !fence.Within(root, real) {
		return nil
	}
	out := []place{{real, homeWhy, homeFolder, false}}
	add := func(p, why string) {
		if !fence.Within(root, p) || fence.Within(p, real) || fence.HomeSetting(real, p) || slices.ContainsFunc(out[1:], func(x place) bool { return fence.Within(x.path, p) }) {
			return
		}
		out = append(out, place{p, why, runsLater, false})
	}
	for _, d := range path {
		if !filepath.IsAbs(d) {
			continue
		}
		r, err := realPath(d, 0)
		if err != nil || r == real || !fence.Within(real, r) {
			continue
		}
		if prefix := filepath.Dir(r); filepath.Base(r) == "bin" && prefix != real {
			add(prefix, "it holds a folder of PATH, and what its programs load when they run (a toolchain's libraries, Go's module cache in ~/go), outside any sandbox")
		}
		add(r, "it is a folder of PATH: the user's shell runs the programs in it by name, outside any sandbox")
	}
	for _, link := range homeLinks(real) {
		add(link, "one of the home folder's settings links to it, so programs read and act on what is there when they start, outside any sandbox")
	}
	return out
}

// homeLinks returns where the symlinks among the settings of home (a
// real path) lead, and those among the entries of its setting folders,
// resolved: one level deeper than home's entries, since tools and
// dotfile managers link ~/.config/nvim to a folder of their own.
func homeLinks(home string) []string {
	var out []string
	follow := func(p string) {
		if r, err := realPath(p, 0); err == nil && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	for _, e := range homeEntries(home) {
		p := filepath.Join(home, e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			follow(p)
		case e.IsDir():
			entries, _ := os.ReadDir(p)
			for _, e := range entries {
				if e.Type()&os.ModeSymlink != 0 {
					follow(filepath.Join(p, e.Name()))
				}
			}
		}
	}
	return out
}

// homeEntries returns the entries of home that are among its settings
// (fence.HomeSetting), as they are now.
func homeEntries(home string) []fs.DirEntry {
	entries, err := os.ReadDir(home)
	if err != nil {
		return nil
	}
	return slices.DeleteFunc(entries, func(e fs.DirEntry) bool { return !fence.HomeSetting(home, filepath.Join(home, e.Name())) })
}

// laterPlace returns why abs, a path inside the workspace with its
// symlinks resolved, is or lies in a place that runs later (see
// placeKind), or "". Only writes are refused there: reading the home
// folder's settings is decided as reading any file is.
func (w *Workspace) laterPlace(abs string) string {
	for _, p := range w.places {
		switch {
		case p.kind == homeFolder && fence.HomeSetting(p.path, abs):
			return p.why
		case p.kind == runsLater && fence.Within(p.path, abs):
			return p.why
		}
	}
	return ""
}

// checkLater refuses to write abs, shown to the model as name, when it is
// or lies in a place that runs later (laterPlace).
func (w *Workspace) checkLater(abs, name string) error {
	if why := w.laterPlace(abs); why != "" {
		return fail(ErrProtected, "%s is %s, since the workspace holds the home folder: %s. Nothing was written; leave it to the user", name, ErrProtected, why)
	}
	return nil
}

// homeSnap is what a command found of the places that run later before
// it ran, for undo to take out what it made there.
type homeSnap struct {
	w       *Workspace
	home    string               // the home folder, or "" when the workspace does not hold it
	before  map[string]homeEntry // its entries, by name
	missing []string             // the places that run later that did not exist
}

// homeEntry is what an entry of the home folder was.
type homeEntry struct {
	fi   os.FileInfo // its own, not where it links to
	link string      // what it holds, when it is a symlink
}

// readHome returns the entries of the folder home, by name.
func readHome(home string) map[string]homeEntry {
	entries, err := os.ReadDir(home)
	if err != nil {
		return nil
	}
	out := make(map[string]homeEntry, len(entries))
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue
		}
		var link string
		if fi.Mode()&os.ModeSymlink != 0 {
			link, _ = os.Readlink(filepath.Join(home, e.Name()))
		}
		out[e.Name()] = homeEntry{fi, link}
	}
	return out
}

// snapHome returns what the places that run later hold before a command.
// Commands see those that exist read-only (ownPaths); what undo looks
// for is what a command could still do: make a new setting in the home
// folder (~/.cargo where there was none), or a folder of PATH that was
// not there, or replace a setting that is a symlink (a dotfile manager's
// ~/.bashrc), since a sandbox protects where a link leads, not the link.
func (w *Workspace) snapHome() homeSnap {
	s := homeSnap{w: w}
	for _, p := range w.places {
		switch p.kind {
		case homeFolder:
			s.home, s.before = p.path, readHome(p.path)
		case runsLater:
			if _, err := os.Lstat(p.path); err != nil {
				s.missing = append(s.missing, p.path)
			}
		}
	}
	return s
}

// undo puts back what a command changed, since s was taken, among the
// home folder's settings and where a place that runs later was missing,
// whatever the sandbox let it do. A setting that was an entry of the
// home folder under another name is renamed back (mv code .code); one
// that is new is taken out into the state folder (setAside), but for the
// folders that lead to the harness's own settings and state, which the
// harness may have made meanwhile; a setting that was a symlink is made the same
// link again, what the command put in its place taken out (where it led
// is untouched). A setting the command rewrote in place is left alone:
// commands see those read-only, and outside a sandbox a program that
// rewrites its own (git config --global) is no attack to undo by
// deleting the user's file. undo returns what it put back, as paths
// from the root, and tells the user (note) and the turn's report
// (changedAlso).
func (s homeSnap) undo(ctx context.Context) ([]string, error) {
	if s.home == "" {
		return nil, nil
	}
	now := readHome(s.home)
	var fix []string
	for name, e := range now {
		old, ok := s.before[name]
		if fence.HomeSetting(s.home, filepath.Join(s.home, name)) && (!ok || old.link != "" && (e.link != old.link || !os.SameFile(e.fi, old.fi))) {
			fix = append(fix, name)
		}
	}
	for name, old := range s.before {
		if _, ok := now[name]; !ok && old.link != "" && fence.HomeSetting(s.home, filepath.Join(s.home, name)) {
			fix = append(fix, name) // a link taken away
		}
	}
	slices.Sort(fix)
	var made []string
	var errs []error
	aside := "" // where what the command made goes (setAside)
	for _, name := range fix {
		p := filepath.Join(s.home, name)
		made = append(made, p)
		if e, ok := now[name]; ok {
			if from := s.movedFrom(now, e); from != "" {
				errs = append(errs, os.Rename(p, filepath.Join(s.home, from)))
				now[from] = e
			} else {
				errs = append(errs, s.w.prune(p, &aside))
			}
		}
		// A link moved over or taken away is made again, whatever took
		// its place went back.
		if old, ok := s.before[name]; ok && old.link != "" {
			errs = append(errs, os.Symlink(old.link, p))
		}
	}
	for _, p := range s.missing {
		if _, err := os.Lstat(p); err == nil && !slices.ContainsFunc(made, func(m string) bool { return fence.Within(m, p) }) {
			made = append(made, p)
			errs = append(errs, s.w.prune(p, &aside))
		}
	}
	if len(made) == 0 {
		return nil, nil
	}
	names := make([]string, len(made))
	for i, p := range made {
		names[i] = s.w.Rel(p)
	}
	err := errors.Join(errs...)
	changedAlso(ctx, names...)
	if err != nil {
		note(ctx, "the command made or replaced %s, among the home folder's settings, which run later outside any sandbox; not all of it could be put back (%v): look at it before running anything", strings.Join(names, ", "), err)
	} else {
		note(ctx, "the command made or replaced %s, among the home folder's settings, which run later outside any sandbox; it was put back as it was", strings.Join(names, ", "))
	}
	if aside != "" {
		note(ctx, "what it made there is kept in %s, where nothing runs it, in case another program made some of it meanwhile", aside)
	}
	return names, err
}

// movedFrom returns the name of the entry of the home folder that e, an
// entry now, was before the command under another name, when that name
// is free now, or "".
func (s homeSnap) movedFrom(now map[string]homeEntry, e homeEntry) string {
	for name, old := range s.before {
		if _, taken := now[name]; !taken && os.SameFile(old.fi, e.fi) {
			return name
		}
	}
	return ""
}

// prune takes p away, and all that is in it, but for the folders that
// lead to the harness's own settings or state (see place) when they
// exist, and what is in them. What it takes goes into *aside (setAside).
func (w *Workspace) prune(p string, aside *string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil // gone already
	}
	holds := false
	for _, q := range w.places {
		if !q.harness {
			continue
		}
		if fence.Within(q.path, p) {
			return nil
		}
		if !holds && fence.Within(p, q.path) {
			_, err := os.Lstat(q.path)
			holds = err == nil
		}
	}
	if !holds || !fi.IsDir() {
		return w.setAside(p, aside)
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		errs = append(errs, w.prune(filepath.Join(p, e.Name()), aside))
	}
	return errors.Join(errs...)
}

// homeMade is the error of a command that made or replaced one of the
// home folder's settings (homeSnap.undo): what it printed, what it
// changed, and that it was put back.
func homeMade(res sandbox.Result, out *spool, made []string, undoErr error) error {
	text, _ := bashText(res, out)
	msg := fmt.Sprintf("%s\nThe command made or replaced %s in the home folder, among its settings (entries whose names start with a dot, ~/bin, the system's folder of user settings, the folders of PATH), which programs read and act on when they start, outside any sandbox; no command may make them while the workspace holds the home folder.", text, strings.Join(made, ", "))
	if undoErr != nil {
		msg += fmt.Sprintf(" Not all of it could be put back (%v): tell the user to look at it.", undoErr)
	} else {
		msg += " It was put back as it was; do not try again."
	}
	return fail(errors.Join(ErrMayHaveChanged, ErrProtected), "%s", msg)
}

// setAside moves p, which a command made among the home folder's
// settings, under *aside, a new folder of the harness's state where
// nothing runs it: another program may have made it meanwhile (an
// ssh-keygen in another terminal makes ~/.ssh), and nothing of the
// user's is lost. *aside is made at the first call. Where p cannot be
// moved there (no state folder, another file system), it is removed.
func (w *Workspace) setAside(p string, aside *string) error {
	if *aside == "" {
		if state, err := xdg.OS().State(); err == nil {
			dir := filepath.Join(state, "set-aside", time.Now().UTC().Format("20060102-150405.000000000"))
			if os.MkdirAll(dir, 0o700) == nil {
				*aside = dir
			}
		}
	}
	if *aside != "" {
		to := filepath.Join(*aside, filepath.FromSlash(w.Rel(p)))
		if os.MkdirAll(filepath.Dir(to), 0o700) == nil && os.Rename(p, to) == nil {
			return nil
		}
	}
	return os.RemoveAll(p)
}
