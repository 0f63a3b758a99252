package tools

import (
	"os"
	"path/filepath"
	"slices"

	"harness/fence"
	"harness/xdg"
)

// place is a place outside any project that the tools never read nor
// write, whatever the workspace holds (a workspace of the home folder
// holds them all) and whatever the user allowed: the harness's own
// settings and state, and what git and the shells run at start.
type place struct {
	path string // absolute, symlinks resolved
	why  string
}

// ownPlaces returns the places (see place) that lie in root, each at its
// path and, when that is a link, where it leads too: the harness's
// settings (config.toml, SYSTEM.md) and state (sessions, copies for
// undo), found as xdg finds them, and fence.StartupPlaces.
func ownPlaces(root string) []place {
	var out []place
	add := func(p, why string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		dir, err := realPath(filepath.Dir(p), 0)
		if err != nil {
			return
		}
		paths := []string{filepath.Join(dir, filepath.Base(p))}
		if real, err := realPath(p, 0); err == nil {
			paths = append(paths, real)
		}
		for _, q := range paths {
			if fence.Within(root, q) && !slices.ContainsFunc(out, func(x place) bool { return x.path == q }) {
				out = append(out, place{q, why})
			}
		}
	}
	dirs := xdg.OS()
	if p, err := dirs.Config(); err == nil {
		add(p, "it is the harness's own settings, which decide what later runs may do")
	}
	if p, err := dirs.State(); err == nil {
		add(p, "it is the harness's own state: saved sessions and copies of files")
	}
	home, _ := os.UserHomeDir()
	for _, p := range fence.StartupPlaces(home, os.Getenv("XDG_CONFIG_HOME")) {
		add(p, "git or the shell reads it when it starts, and runs what it says, outside any sandbox")
	}
	return out
}

// ownPlace returns why abs, a path inside the workspace with its
// symlinks resolved, is or lies in one of the workspace's own places
// (see place), or "".
func (w *Workspace) ownPlace(abs string) string {
	for _, p := range w.places {
		if fence.Within(p.path, abs) {
			return p.why
		}
	}
	return ""
}

// checkOwn refuses abs, shown to the model as name, when it is or lies
// in one of the workspace's own places.
func (w *Workspace) checkOwn(abs, name string) error {
	if why := w.ownPlace(abs); why != "" {
		return fail(ErrProtected, "%s is %s, whatever the workspace: %s. Leave it to the user", name, ErrProtected, why)
	}
	return nil
}

// ownPaths returns the paths of the workspace's own places (see place)
// that exist, for commands to see read-only.
func (w *Workspace) ownPaths() []string {
	var out []string
	for _, p := range w.places {
		if _, err := os.Lstat(p.path); err == nil {
			out = append(out, p.path)
		}
	}
	return out
}
