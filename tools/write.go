package tools

import (
	"context"
	"errors"
	"fmt"
	"harness/plural"
	"io/fs"
	"os"
)

const writeName = "write_file"

type writeArgs struct {
	Path    string `arg:"path" help:"File path"`
	Content string `arg:"content" help:"The whole new text of the file"`
}

// WriteFile returns the write_file tool, which creates or replaces a whole
// file in ws.
func WriteFile(ws *Workspace) Tool {
	t := New(writeName,
		"Create a file, or replace all of an existing one, with content. Missing folders are made. To change part of a file, use edit_file.",
		true,
		func(ctx context.Context, a writeArgs) (string, error) { return writeFile(ctx, ws, a) }).Inspected(inspectWrite(ws))
	t.ws = ws
	return t
}

func writeFile(ctx context.Context, ws *Workspace, a writeArgs) (string, error) {
	path, err := ws.Resolve(a.Path)
	if err != nil {
		return "", err
	}
	name := ws.Rel(path)
	perm, verb := newFileMode, "created"
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return "", fail(ErrNotRegular, "%s is a directory; give the path of a file", name)
	case err == nil && !fi.Mode().IsRegular():
		return "", fail(ErrNotRegular, "%s is %s, not a regular file; nothing was written", name, kind(fi.Mode()))
	case err == nil:
		perm, verb = fi.Mode().Perm(), "replaced"
	case !errors.Is(err, fs.ErrNotExist):
		return "", fail(err, "cannot write %s: %v; nothing was written", name, reason(err))
	}
	if err := save(ctx, ws, path, name, []byte(a.Content), perm); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %s (%s)", verb, name, plural.Count(len(a.Content), "byte")), nil
}
