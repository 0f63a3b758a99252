//go:build !linux

package sandbox

import "time"

// becomeReaper does nothing where a process cannot be made the reaper of
// its descendants: what leaves a command's process group outlives it.
func becomeReaper() {}

// killOrphans finds nothing: see becomeReaper.
func killOrphans() []int { return nil }

// reap has nothing to wait for.
func reap([]int, time.Time) {}
