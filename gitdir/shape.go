package gitdir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"harness/fence"
)

// shapeNames are the entries of which one, beside a HEAD, makes a folder
// what git takes, or will take, for a git directory.
var shapeNames = []string{"objects", "refs", "commondir"}

// Shaped reports whether dir holds what git takes for a git directory, or
// would once an entry named adding ("" for none) is made in it. Git takes
// a folder for one (a bare repository, which it uses as it finds it,
// configuration and all) when it holds a HEAD file beside an objects and
// a refs folder, or beside a commondir file that lends them
// (is_git_directory in git's setup.c). Shaped asks less, so that no entry
// made later completes the shape: a HEAD beside any one of the other
// three, whatever their kind and content, names compared without case (a
// file system that ignores case finds "head" for HEAD). What cannot be
// looked at counts as there, but for what is under a file, not a folder.
func Shaped(dir, adding string) bool {
	has := func(name string) bool {
		if adding != "" && strings.EqualFold(name, adding) {
			return true
		}
		_, err := os.Lstat(filepath.Join(dir, name))
		return err == nil || !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR)
	}
	if !has("HEAD") {
		return false
	}
	for _, name := range shapeNames {
		if has(name) {
			return true
		}
	}
	return false
}

// Planted returns the folder, from root down to abs's own folder, that
// already has the shape of a git directory (Shaped) or would have it once
// abs is written, and whether there is one. root and abs are absolute,
// with their symlinks resolved, abs inside root. A repository git does
// not know the harness made is one git would use later, outside any
// sandbox, with whatever configuration was written into it; the file
// tools ask here before they write, and the turn's end asks again of
// what commands made.
func Planted(root, abs string) (string, bool) {
	if !fence.Within(root, abs) {
		return "", false
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == "." {
		return "", false
	}
	dir := root
	for _, name := range strings.Split(rel, string(filepath.Separator)) {
		if Shaped(dir, name) {
			return dir, true
		}
		dir = filepath.Join(dir, name)
	}
	return "", false
}
