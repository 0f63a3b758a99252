//go:build !unix

package tools

import "errors"

// mkfifo fails: named pipes in the file system are Unix's.
func mkfifo(string) error { return errors.ErrUnsupported }
