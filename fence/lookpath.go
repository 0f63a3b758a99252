package fence

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// LookPath finds the program name on the PATH as exec.LookPath does, but
// never one that lies in root: a folder of the workspace on the PATH
// (direnv's PATH_add bin, a virtualenv's bin) would let a command of the
// model's plant a git or a bwrap that the harness itself then runs,
// outside any sandbox. The PATH's folders inside root are passed by, as
// are relative ones (the current folder may be root), and a program
// found elsewhere that links into root is refused too. A name with a
// separator is taken as it is, and refused in root.
func LookPath(name, root string) (string, error) {
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	outside := func(p string) bool {
		real, err := filepath.EvalSymlinks(p)
		return err == nil && !Within(root, real)
	}
	if filepath.Base(name) != name {
		p, err := exec.LookPath(name)
		if err != nil {
			return "", err
		}
		if abs, aerr := filepath.Abs(p); aerr != nil || !outside(abs) {
			return "", fmt.Errorf("%s lies in the workspace %s: %w", name, root, exec.ErrNotFound)
		}
		return p, nil
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue
		}
		// The folder's real path is looked for only where the program
		// is: most folders of a PATH have not got it, and resolving one
		// is a system call for each part of its path.
		p, err := exec.LookPath(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(dir); err != nil || Within(root, real) {
			continue
		}
		if outside(p) {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}
