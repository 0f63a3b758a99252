//go:build !linux

package sandbox

// becomeReaper does nothing where a process cannot be made the reaper of
// its descendants: what leaves a command's process group outlives it.
func becomeReaper() {}

// sweepOrphans does nothing: see becomeReaper.
func sweepOrphans(map[int]bool) {}
