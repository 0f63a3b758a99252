package main

import (
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
