//go:build !linux && !darwin

package tools

import "os"

// lookAt is os.Lstat, its answer kept small (see lookInfo).
func lookAt(p string) (lookInfo, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return lookInfo{}, err
	}
	return lookOf(fi), nil
}
