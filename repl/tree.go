package repl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"harness/plural"
	"harness/view"
)

// The bounds of the workspace's listing @workspace attaches: its lines
// (entries, and the notes that say what was left out), its bytes, and the
// folders listed, one list_files call each.
const (
	treeLines   = 2000
	treeBytes   = 16 << 10
	treeFolders = 200
)

// treeIndent indents an entry under its folder, once a level.
const treeIndent = "  "

// folder is a folder of the workspace's listing, and what it holds.
type folder struct {
	path    string // relative to the root, slash-separated; "." for the root
	depth   int    // 0 for the root's entries
	entries []treeEntry
	notes   []string // what the listing left out of it, or why it has none
}

// treeEntry is a file or a folder in a folder of the listing.
type treeEntry struct {
	name string  // as list_files shows it: a folder's ends in /
	sub  *folder // a folder's contents when they were listed, or nil
}

// workspaceTree is the workspace's listing @workspace attaches.
type workspaceTree struct {
	root     *folder
	entries  int // entries shown
	unlisted int // folders whose contents were not listed, for the bounds
}

// tree lists the workspace as deep as fits the bounds: breadth first,
// a folder at a time, with list_files through the gate, so that hidden,
// ignored and secret entries are left out as the tool leaves them out. A
// folder whose entries do not all fit shows those that do and says how
// many more it holds; the listing stops there, and the folders not listed
// are counted. The error is the root's listing's, when it fails.
func (a *Attacher) tree(ctx context.Context) (workspaceTree, error) {
	t := workspaceTree{root: &folder{path: "."}}
	queue := []*folder{t.root}
	visited := map[string]bool{} // real paths of the folders listed
	lines, size, calls, full := 0, 0, 0, false
	for ; len(queue) > 0; queue = queue[1:] {
		f := queue[0]
		if full || calls == treeFolders || ctx.Err() != nil {
			full = true
			t.unlisted++
			continue
		}
		real, err := a.WS.Resolve(f.path)
		switch {
		case err != nil:
			f.notes = append(f.notes, fmt.Sprintf("… %s not listed: %v", f.path, err))
			continue
		case visited[real]:
			continue // a link to a folder already listed
		}
		visited[real] = true
		calls++
		res := a.run(ctx, "list_files", f.path)
		if !res.OK {
			if f == t.root {
				return t, errors.New(view.ErrorLine(res.Body))
			}
			f.notes = append(f.notes, fmt.Sprintf("… %s not listed: %s", f.path, view.ErrorLine(res.Body)))
			continue
		}
		names, notes := listed(real, res.Body)
		f.notes = append(f.notes, notes...)
		for i, name := range names {
			width := len(strings.Repeat(treeIndent, f.depth)+name) + 1
			if lines+1 > treeLines || size+width > treeBytes {
				f.notes = append(f.notes, fmt.Sprintf("… %s in %s", plural.Count(len(names)-i, "more entry"), f.where()))
				full = true
				break
			}
			lines, size = lines+1, size+width
			e := treeEntry{name: name}
			if strings.HasSuffix(name, "/") {
				e.sub = &folder{path: path.Join(f.path, strings.TrimSuffix(name, "/")), depth: f.depth + 1}
				queue = append(queue, e.sub)
			}
			f.entries = append(f.entries, e)
			t.entries++
		}
	}
	return t, nil
}

// listed splits the body of a list_files call of the folder at real into
// the entries it names and its notes: a line that names no entry of the
// folder is a note (of entries not shown, or of an empty folder).
func listed(real, body string) (names, notes []string) {
	for line := range strings.Lines(body) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			continue
		}
		name := strings.TrimSuffix(line, "/")
		if _, err := os.Lstat(filepath.Join(real, filepath.FromSlash(name))); err == nil && name != "" && !strings.Contains(name, "/") {
			names = append(names, line)
		} else {
			notes = append(notes, line)
		}
	}
	return names, notes
}

// String writes the listing a line an entry, each folder's entries under
// it, indented, then the notes of what was left out.
func (t workspaceTree) String() string {
	var b strings.Builder
	t.root.write(&b)
	if t.unlisted > 0 {
		fmt.Fprintf(&b, "… %s not listed, to keep this listing short; list_files lists one\n", plural.Count(t.unlisted, "more folder"))
	}
	return b.String()
}

// where names the folder in a note.
func (f *folder) where() string {
	if f.path == "." {
		return "the workspace's top folder"
	}
	return f.path
}

func (f *folder) write(b *strings.Builder) {
	indent := strings.Repeat(treeIndent, f.depth)
	for _, e := range f.entries {
		b.WriteString(indent + e.name + "\n")
		if e.sub != nil {
			e.sub.write(b)
		}
	}
	for _, n := range f.notes {
		b.WriteString(indent + n + "\n")
	}
}
