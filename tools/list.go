package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"harness/protocol"
)

const listName = "list_files"

// maxEntries bounds the entries one list_files call shows.
const maxEntries = 1000

type listArgs struct {
	Path string `arg:"path,optional" help:"Directory (default \".\", the root)"`
}

// lister is the core of list_files: it returns the name of the directory
// a call lists, as the model should see it, and its entries.
type lister func(ctx context.Context, args map[string]any) (dir string, names []string, err error)

// ListFiles returns the list_files tool, which lists a directory in ws.
func ListFiles(ws *Workspace) Tool {
	args, decode := bind[listArgs]()
	spec := protocol.ToolSpec{
		Name:        listName,
		Description: "List a directory: one entry per line, sorted by name, directories ending in /. Hidden entries (names starting with .), secrets and files ignored by .gitignore are not listed.",
		Args:        args,
	}
	return listTool(spec, func(ctx context.Context, raw map[string]any) (string, []string, error) {
		a, err := decode(raw)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", listName, err)
		}
		return listDir(ctx, ws, a.Path)
	}).Inspected(inspectRead(ws, false))
}

// listTool returns the list_files tool that formats what list finds.
func listTool(spec protocol.ToolSpec, list lister) Tool {
	run := func(ctx context.Context, args map[string]any) (string, error) {
		dir, names, err := list(ctx, args)
		if err != nil {
			return "", err
		}
		return listing(dir, names), nil
	}
	return Tool{spec: spec, run: run, list: list}
}

func listDir(ctx context.Context, ws *Workspace, path string) (string, []string, error) {
	dir, err := ws.Resolve(path)
	if err != nil {
		return "", nil, err
	}
	name := ws.Rel(dir)
	if err := ws.checkRead(ctx, dir, name); err != nil {
		return "", nil, err
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil, fail(err, "no such directory: %s; %slist its parent to see what exists", name, didYouMean(ctx, ws, dir, true))
	case err != nil:
		return "", nil, fail(err, "cannot list %s: %v", name, reason(err))
	case !fi.IsDir():
		return "", nil, fmt.Errorf("%s is not a directory; use read_file to read a file", name)
	}
	names, err := visible(ctx, ws, dir, name)
	if err != nil {
		return "", nil, err
	}
	return name, names, nil
}

// visible returns the entries of the folder dir, shown to the model as
// name, that the model may see: not hidden (a name starting with .), not
// secret, not ignored; a folder's name ends in /. It is what list_files
// shows, and all a suggestion of a path may name.
func visible(ctx context.Context, ws *Workspace, dir, name string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fail(err, "cannot list %s: %v", name, reason(err))
	}
	// Secret and ignored entries are left out, as read_file refuses them.
	var secret func(path string, isDir, link bool) bool
	if !secretsAllowed(ctx) {
		// With the rules of the start read, a file with several names
		// need not be looked at to know it is no link to a protected
		// one: one walk for the run, not a look at every file listed.
		ws.begin()
		root, err := os.OpenRoot(ws.root)
		if err != nil {
			return nil, fail(err, "cannot open the workspace to check for secrets: %v", reason(err))
		}
		defer root.Close()
		ig := ws.ignores(root)
		secret = func(path string, isDir bool, link bool) bool {
			if ws.secret(ig, path, isDir) != "" {
				return true
			}
			if !link {
				return false
			}
			real, err := ws.Resolve(path) // a link with a plain name to a secret
			return err == nil && real != path && ws.secret(ig, real, isDir) != ""
		}
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") {
			continue
		}
		full := filepath.Join(dir, n)
		d := isDir(e, full)
		if secret != nil && secret(full, d, e.Type()&fs.ModeSymlink != 0) {
			continue
		}
		if d {
			n += "/"
		}
		names = append(names, n)
	}
	return names, nil
}

// isDir reports whether e is a directory or a symlink to one.
func isDir(e fs.DirEntry, path string) bool {
	if e.Type()&fs.ModeSymlink == 0 {
		return e.IsDir()
	}
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// listing formats the entries of the directory name as list_files shows
// them: sorted, one per line, at most maxEntries, then a note in square
// brackets when some were left out or there were none.
func listing(name string, entries []string) string {
	if len(entries) == 0 {
		return fmt.Sprintf("[%s is empty (hidden entries are not listed)]", name)
	}
	entries = slices.Clone(entries)
	slices.SortFunc(entries, func(a, b string) int {
		return strings.Compare(strings.TrimSuffix(a, "/"), strings.TrimSuffix(b, "/"))
	})
	var b strings.Builder
	for i, e := range entries {
		if i == maxEntries {
			fmt.Fprintf(&b, "[%d more entries not shown; list a subdirectory to narrow it]\n", len(entries)-i)
			break
		}
		b.WriteString(e)
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}
