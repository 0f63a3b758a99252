package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// newFileMode is the permission of a file a tool creates.
const newFileMode fs.FileMode = 0o644

// errNotRegular is wrapped by the error for a path that is neither a file
// nor a directory: a named pipe, a device or a socket.
var errNotRegular = errors.New("not a regular file")

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
// is the advice given when the file does not exist.
func statRegular(path, name, missing string) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fail(err, "no such file: %s; %s", name, missing)
	case err != nil:
		return nil, fail(err, "cannot open %s: %v", name, reason(err))
	case fi.IsDir():
		return nil, fail(errNotRegular, "%s is a directory; use list_files to see what is in it", name)
	case !fi.Mode().IsRegular():
		return nil, fail(errNotRegular, "%s is %s, not a regular file; only regular files can be read or changed", name, kind(fi.Mode()))
	}
	return fi, nil
}

// openRegular opens path, which statRegular has checked, for reading. It
// opens without blocking and checks again, so a named pipe swapped in at
// the last moment can neither make it hang nor be read.
func openRegular(path, name string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fail(err, "cannot open %s: %v", name, reason(err))
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fail(errNotRegular, "%s is not a regular file; only regular files can be read or changed", name)
	}
	return f, nil
}

// writeAtomic replaces or creates path with data and permission perm. The
// data goes to a hidden temporary file in the same directory, which is
// synced and then renamed over path; on any failure the temporary file is
// removed and path is left as it was. A cancelled ctx stops it before the
// rename.
func writeAtomic(ctx context.Context, path string, data []byte, perm fs.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
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
	return os.Rename(tmp, path)
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
// it needs. Its errors are written for the model.
func save(ctx context.Context, path, name string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fail(err, "cannot create the folder for %s: %v; nothing was written", name, reason(err))
	}
	if err := writeAtomic(ctx, path, data, perm); err != nil {
		return fail(err, "cannot write %s: %v; nothing was written", name, reason(err))
	}
	return nil
}

// count returns "1 line", "3 lines" and the like.
func count(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
