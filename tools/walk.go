package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// walkTree walks the tree at root as filepath.WalkDir does, depth first
// in lexical order, never into a symlink, without looking at any entry:
// the types of a folder's entries come with their names. fn is called for
// root and each entry, a folder before its names are read; it returns
// filepath.SkipDir to leave a folder out, filepath.SkipAll to stop. Each
// folder fn went into is then given to listed with its entries, before fn
// sees any of them, or with the error that kept them from being read.
func walkTree(root string, fn func(abs string, d fs.DirEntry) error, listed func(dir string, entries []fs.DirEntry, err error)) {
	fi, err := os.Lstat(root)
	if err != nil {
		return
	}
	walkIn(root, fs.FileInfoToDirEntry(fi), fn, listed)
}

// walkIn walks p, whose entry is d, and reports filepath.SkipAll when the
// walk stops.
func walkIn(p string, d fs.DirEntry, fn func(string, fs.DirEntry) error, listed func(string, []fs.DirEntry, error)) error {
	err := fn(p, d)
	switch {
	case err == filepath.SkipDir && d.IsDir():
		return nil
	case err != nil:
		return err
	case !d.IsDir():
		return nil
	}
	entries, err := os.ReadDir(p)
	listed(p, entries, err)
	for _, e := range entries {
		switch err := walkIn(filepath.Join(p, e.Name()), e, fn, listed); err {
		case nil:
		case filepath.SkipDir: // from a file: the rest of its folder
			return nil
		default:
			return err
		}
	}
	return nil
}

// holdsIgnoreFile reports whether a folder's entries include its
// .gitignore.
func holdsIgnoreFile(entries []fs.DirEntry) bool {
	return slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == ".gitignore" })
}
