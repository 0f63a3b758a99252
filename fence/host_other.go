//go:build !windows && !darwin

package fence

// Host is the System this program runs on.
const Host = Unix
