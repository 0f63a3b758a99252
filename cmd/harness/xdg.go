package main

import (
	"fmt"
	"path/filepath"

	"harness/xdg"
)

// The run's folders are found by one xdg.Dirs, made from the process's
// environment in main and passed down from run (bound to the parser), so
// that every part finds the same ones, and a caller such as the tour can
// give a run folders of its own without changing the process's
// environment.

// stateDir is the harness's state folder: $XDG_STATE_HOME/harness, or
// ~/.local/state/harness. It is never inside a workspace.
func stateDir(dirs xdg.Dirs) (string, error) {
	dir, err := dirs.State()
	if err != nil {
		return "", fmt.Errorf("no folder for sessions: %w (or use --no-session)", err)
	}
	return dir, nil
}

// sessionDir is where sessions are kept.
func sessionDir(dirs xdg.Dirs) (string, error) {
	dir, err := stateDir(dirs)
	return filepath.Join(dir, "sessions"), err
}

// outputsDir is the folder of this run's long outputs: in the state
// folder, or, with --no-session or no state folder, "" for a temporary
// one. Either way it is removed when the run ends (sessions are never
// removed, so outputs kept with them would only grow); the folders that
// runs killed outright left there are removed first.
func outputsDir(dirs xdg.Dirs, noSession bool) string {
	dir, err := stateDir(dirs)
	if noSession || err != nil {
		return ""
	}
	return xdg.RunDir(filepath.Join(dir, "outputs"))
}
