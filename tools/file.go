package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
)

// newFileMode is the permission of a file a tool creates.
const newFileMode fs.FileMode = 0o644

// ErrNotRegular is wrapped by the error for a path that is not a regular
// file: a directory, a named pipe, a device or a socket.
var ErrNotRegular = errors.New("not a regular file")

// kind names what a non-regular file is, for messages.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// statRegular checks that path, shown to the model as name, is a regular
// file and returns its info. Its errors are written for the model; missing
// makes the advice given when the file does not exist.
func statRegular(path, name string, missing func() string) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fail(err, "no such file: %s; %s", name, missing())
	case err != nil:
		return nil, fail(err, "cannot open %s: %v", name, reason(err))
	case fi.IsDir():
		return nil, fail(ErrNotRegular, "%s is a directory; use list_files to see what is in it", name)
	case !fi.Mode().IsRegular():
		return nil, fail(ErrNotRegular, "%s is %s, not a regular file; only regular files can be read or changed", name, kind(fi.Mode()))
	}
	return fi, nil
}

// openRegular opens path, which statRegular has checked, for reading. It
// opens through the workspace root, so that a folder or file swapped for a
// symlink out of the workspace after Resolve checked it is refused, and
// without blocking, then checks again, so a named pipe swapped in at the
// last moment can neither make it hang nor be read. A file with more than
// one name (hard links) is not opened: another name may be outside the
// workspace or in .git, and finding it would mean searching the disk. A
// link made in the run to a protected file is known by its identity
// (Workspace.Secret); one made before is not. Writes replace a file
// rather than write through it, so they never reach the other names.
func openRegular(ws *Workspace, path, name string) (*os.File, error) {
	f, _, err := openRegularInfo(ws, path, name)
	return f, err
}

// openRegularInfo is openRegular that returns as well the information of
// the file it opened, as the open file gives it.
func openRegularInfo(ws *Workspace, path, name string) (*os.File, fs.FileInfo, error) {
	root, rel, err := ws.within(path)
	if err != nil {
		return nil, nil, fail(err, "cannot open %s: %v", name, err)
	}
	defer root.Close()
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if moved := ws.moved(path, name); moved != nil {
			return nil, nil, moved
		}
		return nil, nil, fail(err, "cannot open %s: %v", name, reason(err))
	}
	fi, err := regular(f)
	if err != nil {
		f.Close()
		return nil, nil, fail(ErrNotRegular, "%s is not a regular file; only regular files can be read or changed", name)
	}
	if n := links(fi); n > 1 {
		f.Close()
		return nil, nil, fail(ErrProtected, "%s has %d names (hard links), and the others may be files outside the workspace or in .git, which cannot be told from here, so it is %s and not read; ask the user for what you need from it", name, n, ErrProtected)
	}
	return f, fi, nil
}

// ReadHead reads at most limit+1 bytes of the regular file at path, and
// returns them with the file's size: a caller tells a file over limit
// from one at it, and never reads more. It opens the file without
// blocking, so that a named pipe cannot make it wait, and checks what it
// opened: anything but a regular file is an error wrapping
// ErrNotRegular. A missing file is an error wrapping fs.ErrNotExist. It
// is for files the harness reads for itself, such as the instructions
// of SYSTEM.md, or a file to diff; the tools open files through the
// workspace root.
func ReadHead(path string, limit int64) ([]byte, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := regular(f)
	if errors.Is(err, ErrNotRegular) {
		what := "a directory"
		if !fi.IsDir() {
			what = kind(fi.Mode())
		}
		return nil, 0, fmt.Errorf("%s is %s, %w", filepath.Base(path), what, err)
	}
	if err != nil {
		return nil, 0, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	return data, fi.Size(), err
}

// regular returns the information of the open file f, and ErrNotRegular
// with it when it is not a regular file.
func regular(f *os.File) (fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return fi, ErrNotRegular
	}
	return fi, nil
}

// writeAtomic replaces or creates the file name in dir with data and
// permission perm. The data goes to a hidden temporary file in dir, which
// is synced and then renamed over name; on any failure the temporary file
// is removed and name is left as it was. A cancelled ctx stops it before
// the rename. Renaming replaces a symlink at name rather than following it.
func writeAtomic(ctx context.Context, dir *os.Root, name string, data []byte, perm fs.FileMode) (err error) {
	var f *os.File
	var tmp string
	for range 100 {
		tmp = fmt.Sprintf(".%s.tmp-%d", name, rand.Uint32())
		f, err = dir.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			dir.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = ctx.Err(); err != nil {
		return err
	}
	return dir.Rename(tmp, name)
}

// reason returns the cause of an operating-system error without the path
// it names, which would be the absolute path the model never sees.
func reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// save writes data to path, shown to the model as name, making the folders
// it needs. It works through the workspace root, so that no folder swapped
// for a symlink after Resolve checked the path can lead the write out of
// the workspace, and it never writes into .git. Its errors are written for
// the model.
func save(ctx context.Context, ws *Workspace, path, name string, data []byte, perm fs.FileMode) error {
	if err := ws.checkWrite(path, name); err != nil {
		return err
	}
	root, rel, err := ws.within(path)
	if err != nil {
		return fail(err, "cannot write %s: %v; nothing was written", name, err)
	}
	defer root.Close()
	relDir := filepath.Dir(rel)
	if err := root.MkdirAll(relDir, 0o755); err != nil {
		if moved := ws.moved(path, name); moved != nil {
			return moved
		}
		return fail(err, "cannot create the folder for %s: %v; nothing was written", name, reason(err))
	}
	dir, err := root.OpenRoot(relDir)
	if err != nil {
		if moved := ws.moved(path, name); moved != nil {
			return moved
		}
		return fail(err, "cannot write %s: %v; nothing was written", name, reason(err))
	}
	defer dir.Close()
	if err := writeAtomic(ctx, dir, filepath.Base(rel), data, perm); err != nil {
		return fail(err, "cannot write %s: %v; nothing was written", name, reason(err))
	}
	return nil
}
