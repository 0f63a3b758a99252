package chat

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"harness/xdg"
)

// A kept file is what a run keeps for the next run in the workspace at
// root, in the state folder of dirs under kind: never in the workspace,
// where a command of the run could change it too.

// readKept returns the path of the kept file of kind and what it holds
// (nothing when it is not there yet), or no path when there is no state
// folder.
func readKept(dirs xdg.Dirs, kind, root string) (path string, data []byte, err error) {
	path, err = dirs.ForWorkspace(kind, root)
	if err != nil {
		return "", nil, nil
	}
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return path, data, err
}

// writeKept makes the kept file at path hold data, was being what it
// holds now: it writes only what changed, and removes the file when data
// is empty.
func writeKept(path string, was, data []byte) error {
	switch {
	case bytes.Equal(was, data):
		return nil
	case len(data) == 0:
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// hashOf is the hex SHA-256 of data, as the kept files hold them.
func hashOf(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}
