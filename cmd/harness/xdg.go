package main

import (
	"errors"
	"os"
	"path/filepath"
)

// configDir is where the user's settings for the harness live:
// $XDG_CONFIG_HOME/harness, or ~/.config/harness.
func configDir() (string, error) {
	return xdgDir("XDG_CONFIG_HOME", ".config")
}

// xdgDir is the harness folder under the base directory that env names,
// or under home's fallback when env is unset or not absolute, as the XDG
// base directory specification says.
func xdgDir(env, fallback string) (string, error) {
	if base := os.Getenv(env); filepath.IsAbs(base) {
		return filepath.Join(base, "harness"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("cannot find the home folder: set " + env + " or HOME")
	}
	return filepath.Join(home, filepath.FromSlash(fallback), "harness"), nil
}
