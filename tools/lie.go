package tools

import (
	"context"
	"errors"
	"fmt"
	"harness/plural"
	"hash/fnv"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
)

// Kinds of lie.
const (
	lieJoke   = "joke"
	lieInvent = "invent"
	lieExt    = "ext"
)

// jokes are what the joke lie returns instead of a file, one a line.
const jokes = `Why do programmers prefer dark mode? Because light attracts bugs.
There are 10 kinds of people: those who understand binary and those who do not.
A SQL query walks into a bar, goes up to two tables and asks: "May I join you?"
I would tell you a UDP joke, but you might not get it.
To understand recursion, you must first understand recursion.
The two hardest things in programming are cache invalidation, naming things and off-by-one errors.`

// invented are the files the invent lie adds to the workspace root.
const invented = "TODO_FROM_BOSS.md secrets.txt"

const validLies = "joke, invent, ext:FROM=TO (such as ext:.go=.js)"

// Lie makes the tools tell the model something false. The zero Lie tells
// the truth.
type Lie struct {
	kind     string
	from, to string // for ext
}

// ParseLie parses a lie written as "joke", "invent" or "ext:FROM=TO", where
// FROM and TO are file extensions starting with a dot.
func ParseLie(s string) (Lie, error) {
	switch {
	case s == lieJoke || s == lieInvent:
		return Lie{kind: s}, nil
	case strings.HasPrefix(s, lieExt+":"):
		from, to, ok := strings.Cut(strings.TrimPrefix(s, lieExt+":"), "=")
		if !ok || !isExt(from) || !isExt(to) || from == to {
			return Lie{}, fmt.Errorf("bad lie %q: FROM and TO must be two different extensions starting with a dot, as in ext:.go=.js", s)
		}
		return Lie{kind: lieExt, from: from, to: to}, nil
	}
	return Lie{}, fmt.Errorf("unknown lie %q; valid lies: %s", s, validLies)
}

func isExt(s string) bool {
	return len(s) > 1 && s[0] == '.' && !strings.ContainsAny(s, "/\\=\x00")
}

// Apply returns t changed to tell l, when l concerns it, or t itself. Only
// read_file, list_files, edit_file and write_file are ever changed. Each
// time a lie changes what a call returns, the call's result carries a note
// for the user saying what it changed (protocol.Result.Note).
func (l Lie) Apply(t Tool) Tool {
	lied := l.apply(t)
	lied.inspect = t.inspect
	return lied
}

func (l Lie) apply(t Tool) Tool {
	read := t.spec.Name == readName
	list := t.spec.Name == listName && t.list != nil
	write := t.spec.Name == editName || t.spec.Name == writeName
	switch {
	case l.kind == lieJoke && read:
		return Tool{spec: t.spec, run: joke(t.run)}
	case l.kind == lieInvent && list:
		return listTool(t.spec, invent(t.list))
	case l.kind == lieExt && read:
		return Tool{spec: t.spec, run: l.readAs(t.run)}
	case l.kind == lieExt && list:
		return listTool(t.spec, l.rename(t.list))
	case l.kind == lieExt && write:
		return Tool{spec: t.spec, run: l.writeAs(t.spec.Name, t.run, t.ws), ws: t.ws}
	}
	return t
}

// joke reads the file as run would, then shows a joke instead, the same
// one for the same path.
func joke(run runner) runner {
	return func(ctx context.Context, args map[string]any) (string, error) {
		body, err := run(ctx, args)
		if err != nil {
			return "", err
		}
		path, _ := args["path"].(string)
		h := fnv.New32a()
		h.Write([]byte(path))
		all := strings.Split(jokes, "\n")
		note(ctx, "lie: %s returned a joke instead of %s's %s", readName, path, plural.Count(lines(body), "line"))
		return all[h.Sum32()%uint32(len(all))] + "\n", nil
	}
}

// invent adds the invented files to a listing of the workspace root.
func invent(list lister) lister {
	return func(ctx context.Context, args map[string]any) (string, []string, error) {
		dir, names, err := list(ctx, args)
		if err != nil || dir != "." {
			return dir, names, err
		}
		var added []string
		for _, fake := range strings.Fields(invented) {
			if !slices.Contains(names, fake) {
				names = append(names, fake)
				added = append(added, fake)
			}
		}
		if len(added) > 0 {
			note(ctx, "lie: %s added %s, which do not exist", listName, strings.Join(added, ", "))
		}
		return dir, names, nil
	}
}

// rename shows files ending in l.from as ending in l.to.
func (l Lie) rename(list lister) lister {
	return func(ctx context.Context, args map[string]any) (string, []string, error) {
		dir, names, err := list(ctx, args)
		if err != nil {
			return dir, names, err
		}
		var shown, renamed []string
		seen := make(map[string]bool, len(names))
		for _, n := range names {
			if !strings.HasSuffix(n, "/") && strings.HasSuffix(n, l.from) && len(n) > len(l.from) {
				renamed = append(renamed, n)
				n = strings.TrimSuffix(n, l.from) + l.to
			}
			if !seen[n] {
				seen[n] = true
				shown = append(shown, n)
			}
		}
		switch {
		case len(renamed) > 3:
			note(ctx, "lie: %s showed %d names ending in %s as ending in %s", listName, len(renamed), l.from, l.to)
		case len(renamed) > 0:
			var pairs []string
			for _, n := range renamed {
				pairs = append(pairs, n+" as "+strings.TrimSuffix(n, l.from)+l.to)
			}
			note(ctx, "lie: %s showed %s", listName, strings.Join(pairs, ", "))
		}
		return dir, shown, nil
	}
}

// readAs reads a file ending in l.to that does not exist from the file
// ending in l.from, as the renamed listing promised.
func (l Lie) readAs(run runner) runner {
	return func(ctx context.Context, args map[string]any) (string, error) {
		body, err := run(ctx, args)
		path, _ := args["path"].(string)
		if !errors.Is(err, fs.ErrNotExist) || !strings.HasSuffix(path, l.to) {
			return body, err
		}
		real := l.truePath(args)
		if realBody, realErr := run(ctx, real); realErr == nil {
			note(ctx, "lie: %s read %s when asked for %s", readName, real["path"], path)
			return realBody, nil
		}
		return body, err
	}
}

// writeAs changes, in place of a file ending in l.to that does not exist,
// the file ending in l.from that the renamed listing showed under that
// name, and says l.to wherever the result names a file ending in l.from.
// ws tells which files exist; without it (a tool not built by WriteFile)
// only edits, which fail on a missing file, are redirected.
func (l Lie) writeAs(tool string, run runner, ws *Workspace) runner {
	return func(ctx context.Context, args map[string]any) (string, error) {
		path, _ := args["path"].(string)
		real := l.truePath(args)
		var body string
		var err error
		switch {
		case !strings.HasSuffix(path, l.to):
			body, err = run(ctx, args)
		case ws != nil:
			if !exists(ws, path) && exists(ws, real["path"].(string)) {
				args = real
			}
			body, err = run(ctx, args)
		default:
			body, err = run(ctx, args)
			if errors.Is(err, fs.ErrNotExist) {
				if realBody, realErr := run(ctx, real); !errors.Is(realErr, fs.ErrNotExist) {
					args, body, err = real, realBody, realErr
				}
			}
		}
		if got, _ := args["path"].(string); got != path {
			note(ctx, "lie: %s changed %s when asked for %s", tool, got, path)
		}
		shown := l.renamePaths(body)
		if shown != body {
			note(ctx, "lie: %s's result says %s where it said %s", tool, l.to, l.from)
		}
		if err != nil {
			if msg := l.renamePaths(err.Error()); msg != err.Error() {
				note(ctx, "lie: %s's error says %s where it said %s", tool, l.to, l.from)
				err = fail(err, "%s", msg)
			}
		}
		return shown, err
	}
}

// exists reports whether path names something in ws.
func exists(ws *Workspace, path string) bool {
	abs, err := ws.Resolve(path)
	if err != nil {
		return false
	}
	_, err = os.Lstat(abs)
	return err == nil
}

// truePath returns args with its path ending in l.from instead of l.to.
func (l Lie) truePath(args map[string]any) map[string]any {
	path, _ := args["path"].(string)
	real := maps.Clone(args)
	real["path"] = strings.TrimSuffix(path, l.to) + l.from
	return real
}

// renamePaths writes every path in text whose file name ends in l.from
// (sub/main.go, but not main.go/ or main.go.bak) with l.to instead, as
// the renamed listing shows it.
func (l Lie) renamePaths(text string) string {
	var b strings.Builder
	rest := text
	for {
		i := strings.Index(rest, l.from)
		if i < 0 {
			b.WriteString(rest)
			return b.String()
		}
		end := i + len(l.from)
		stem := i
		for stem > 0 && isPathByte(rest[stem-1]) {
			stem--
		}
		if stem < i && endsPath(rest[end:]) {
			b.WriteString(rest[:i] + l.to)
		} else {
			b.WriteString(rest[:end])
		}
		rest = rest[end:]
	}
}

// endsPath reports whether a path word ends where after begins: a folder
// (a/), or a longer name (a.go.bak), goes on.
func endsPath(after string) bool {
	switch {
	case after == "":
		return true
	case isWordByte(after[0]) || after[0] == '/' || after[0] == '-':
		return false
	case after[0] == '.':
		return len(after) == 1 || !isPathByte(after[1])
	}
	return true
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isPathByte(c byte) bool { return isWordByte(c) || c == '/' || c == '.' || c == '-' }
