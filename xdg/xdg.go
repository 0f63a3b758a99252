// Package xdg finds the folders the harness keeps its own files in, as
// the XDG base directory specification says, on every system:
//
//	settings  $XDG_CONFIG_HOME/harness, else ~/.config/harness
//	state     $XDG_STATE_HOME/harness, else ~/.local/state/harness
//
// A variable that is unset, empty or not an absolute path is ignored, and
// ~ is the home folder as the system knows it (os.UserHomeDir: $HOME on
// Unix, %USERPROFILE% on Windows). Every part of the harness that needs
// one of these folders finds it here, so that all of them agree.
package xdg

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNoHome is wrapped by the error of a folder that can only be found
// under the home folder, when there is none.
var ErrNoHome = errors.New("cannot find the home folder")

// Dirs finds the folders from an environment and a home folder.
type Dirs struct {
	// Getenv reads a variable of the environment, as os.Getenv does.
	Getenv func(string) string
	// Home returns the home folder, as os.UserHomeDir does.
	Home func() (string, error)
}

// OS is the Dirs of this process: its environment and home folder.
func OS() Dirs { return Dirs{Getenv: os.Getenv, Home: os.UserHomeDir} }

// Config is the folder of the harness's settings: config.toml, SYSTEM.md.
func (d Dirs) Config() (string, error) { return d.dir("XDG_CONFIG_HOME", ".config") }

// State is the folder of what the harness keeps between runs: sessions,
// the input history, copies for undo. It is never inside a workspace.
func (d Dirs) State() (string, error) { return d.dir("XDG_STATE_HOME", ".local/state") }

// dir is the harness folder under the base directory that variable names,
// or under the home folder's fallback.
func (d Dirs) dir(variable, fallback string) (string, error) {
	if d.Getenv != nil {
		if base := d.Getenv(variable); filepath.IsAbs(base) {
			return filepath.Join(base, "harness"), nil
		}
	}
	home, err := "", error(ErrNoHome)
	if d.Home != nil {
		home, err = d.Home()
	}
	if err == nil && !filepath.IsAbs(home) {
		err = fmt.Errorf("%q is not an absolute path", home)
	}
	if err != nil {
		if !errors.Is(err, ErrNoHome) {
			err = fmt.Errorf("%w: %w", ErrNoHome, err)
		}
		return "", fmt.Errorf("%w; set %s to an absolute path", err, variable)
	}
	return filepath.Join(home, filepath.FromSlash(fallback), "harness"), nil
}

// ForWorkspace is where the state folder keeps what the harness knows of
// the workspace at root under kind (its toolchains' caches, the hashes
// of its instructions and ignore files): one entry a workspace, named by
// the root's last element and a hash of the whole root, so that two
// workspaces of one name never share one. It makes nothing.
func (d Dirs) ForWorkspace(kind, root string) (string, error) {
	dir, err := d.State()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(dir, kind, filepath.Base(root)+"-"+hex.EncodeToString(sum[:6])), nil
}
