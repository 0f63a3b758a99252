package main

import (
	"os"
	"path/filepath"

	"harness/xdg"
)

// The run's folders are found by one xdg.Dirs, made from the process's
// environment in main and passed down from run (bound to the parser), so
// that every part finds the same ones, and a caller such as the tour can
// give a run folders of its own without changing the process's
// environment.

// outputsDir is the folder of this run's long outputs: in the state
// folder, or, with --no-session or no state folder, "" for a temporary
// one. Either way it is removed when the run ends (sessions are never
// removed, so outputs kept with them would only grow); the folders that
// runs killed outright left there are removed first.
func outputsDir(dirs xdg.Dirs, noSession bool) string {
	dir, err := dirs.State()
	if noSession || err != nil {
		return ""
	}
	return xdg.RunDir(filepath.Join(dir, "outputs"))
}

// cachesDir is the folder of the toolchains' caches (Go's build cache,
// npm's, pip's) for commands in the workspace root: one per workspace in
// the state folder, kept between runs, so that the user's own caches are
// never written from inside the sandbox. It is "" when there is no state
// folder or the folder cannot be made there: commands then find the
// user's caches, which they can read but not write.
func cachesDir(dirs xdg.Dirs, root string) string {
	dir, err := dirs.ForWorkspace("caches", root)
	if err != nil {
		return ""
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	return dir
}
