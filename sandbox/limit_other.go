//go:build !unix

package sandbox

import "os"

// fileTooLarge reports false: only Unix has a signal for a file past the
// size limit.
func fileTooLarge(*os.ProcessState) bool { return false }
