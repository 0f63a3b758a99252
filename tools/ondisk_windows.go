package tools

import (
	"path/filepath"
	"strings"
	"syscall"
)

// onDisk returns path, an existing file's that is no symlink, with its
// last name as the file system keeps it: the long name for a short 8.3
// one (GIT~1 for .git), in the case it was made with, so that the checks
// by name (the git folder, secrets) see the name the file really has.
func onDisk(path string) string {
	dir, name := filepath.Split(path)
	if name == "" || strings.ContainsAny(name, "*?") {
		return path // a volume's root; or wildcards, which name no file
	}
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return path
	}
	var data syscall.Win32finddata
	h, err := syscall.FindFirstFile(p, &data)
	if err != nil {
		return path
	}
	syscall.FindClose(h)
	if long := syscall.UTF16ToString(data.FileName[:]); long != "" {
		return dir + long
	}
	return path
}
