//go:build !linux && !darwin

package sandbox

import "runtime"

// autoTiers are the sandboxes mode Auto tries, in order: none here.
func autoTiers() []Mode { return nil }

// noTier says why mode Auto has no sandbox to try.
func noTier() string {
	if runtime.GOOS == "windows" {
		return "Windows has no sandbox the harness can use"
	}
	return runtime.GOOS + " has no sandbox the harness can use"
}
