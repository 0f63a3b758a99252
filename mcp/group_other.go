//go:build !linux

package mcp

import "os"

// endGroup does nothing here: the programs a server's program started are
// killed with it when Close kills it (killAll), not when it ends by
// itself.
func endGroup(*os.Process) {}
