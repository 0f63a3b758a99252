//go:build !unix

package session

import "os"

// lock does nothing where there is no flock: two processes could append
// to the same session.
func lock(*os.File) error { return nil }

// locking says whether lock keeps a second process out.
const locking = false
