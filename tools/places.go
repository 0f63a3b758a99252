package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"harness/fence"
	"harness/xdg"
)

// place is a place outside any project that the tools leave alone,
// whatever the user allowed, when the workspace holds it (a workspace of
// the home folder holds them all). How, its kind says.
type place struct {
	path string // absolute, symlinks resolved
	why  string
	kind placeKind
	// harness is set for the harness's own settings and state, which the
	// harness itself writes, during a command too.
	harness bool
}

// placeKind says what a place keeps the tools from.
type placeKind uint8

const (
	// kept places are neither read nor written: the harness's own
	// settings and state, and what git and the shells run at start.
	kept placeKind = iota
	// runsLater places are not written: what is there runs later,
	// outside any sandbox (a folder of PATH in the home folder, or
	// where one of the home folder's settings links to).
	runsLater
	// homeFolder is the home folder, whose settings (fence.HomeSetting)
	// are not written, those that do not exist yet included.
	homeFolder
)

// ownPlaces returns the places (see place) that lie in root, each at its
// path and, when that is a link, where it leads too: the harness's
// settings (config.toml, SYSTEM.md) and state (sessions, copies for
// undo), found as xdg finds them, and fence.StartupPlaces; and, when
// root holds the home folder, the home folder's settings (homePlaces).
func ownPlaces(root string) []place {
	var out []place
	resolved := realDirs{}
	add := func(p, why string, harness bool) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		paths, ok := resolved.paths(p)
		if !ok {
			return
		}
		for _, q := range paths {
			if fence.Within(root, q) && !slices.ContainsFunc(out, func(x place) bool { return x.path == q }) {
				out = append(out, place{q, why, kept, harness})
			}
		}
	}
	dirs := xdg.OS()
	if p, err := dirs.Config(); err == nil {
		add(p, "it is the harness's own settings, which decide what later runs may do", true)
	}
	if p, err := dirs.State(); err == nil {
		add(p, "it is the harness's own state: saved sessions and copies of files", true)
	}
	home, _ := os.UserHomeDir()
	for _, p := range fence.StartupPlaces(home, os.Getenv("XDG_CONFIG_HOME")) {
		add(p, "git or the shell reads it when it starts, and runs what it says, outside any sandbox", false)
	}
	return append(out, homePlaces(root, home, filepath.SplitList(os.Getenv("PATH")))...)
}

// realDirs resolves the folders of places with realPath, each once: the
// places share a few (the home folder, its .config).
type realDirs map[string]realDir

type realDir struct {
	path string
	err  error
}

// paths returns where p is, as the folder it is in resolves (realPath),
// and, when it exists, where it leads; false when its folder does not
// resolve.
func (r realDirs) paths(p string) ([]string, bool) {
	d := filepath.Dir(p)
	dir, ok := r[d]
	if !ok {
		dir.path, dir.err = realPath(d, 0)
		r[d] = dir
	}
	if dir.err != nil {
		return nil, false
	}
	base := filepath.Base(p)
	paths := []string{filepath.Join(dir.path, base)}
	// realPath(p) walks p's folder as realPath(d) did, then its name.
	if real, err := walkReal(dir.path, base, 0); err == nil {
		paths = append(paths, real)
	}
	return paths, true
}

// ownPlace returns why abs, a path inside the workspace with its
// symlinks resolved, is or lies in one of the workspace's kept places
// (see place), neither read nor written, or "".
func (w *Workspace) ownPlace(abs string) string {
	for _, p := range w.places {
		if p.kind == kept && fence.Within(p.path, abs) {
			return p.why
		}
	}
	return ""
}

// checkOwn refuses abs, shown to the model as name, when it is or lies
// in one of the workspace's kept places.
func (w *Workspace) checkOwn(abs, name string) error {
	if why := w.ownPlace(abs); why != "" {
		return fail(ErrProtected, "%s is %s, whatever the workspace: %s. Leave it to the user", name, ErrProtected, why)
	}
	return nil
}

// ownPaths returns the paths of the workspace's own places (see place)
// that exist, for commands to see read-only: the home folder's settings
// among them, as they are now (homeEntries). A link that leads nowhere is
// left out, since a sandbox cannot show it read-only: where it leads is a
// place of its own (homeLinks), and what a command makes there is taken
// out after it (homeSnap); so is a link to the home folder or a folder
// it lies in, which would show the whole workspace read-only.
func (w *Workspace) ownPaths() []string {
	var out []string
	exists := func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	}
	for _, p := range w.places {
		if p.kind == homeFolder {
			for _, e := range homeEntries(p.path) {
				q := filepath.Join(p.path, e.Name())
				if e.Type()&fs.ModeSymlink == 0 {
					out = append(out, q)
				} else if real, err := filepath.EvalSymlinks(q); err == nil && !fence.Within(real, p.path) {
					out = append(out, q)
				}
			}
			continue
		}
		if exists(p.path) {
			out = append(out, p.path)
		}
	}
	return out
}
