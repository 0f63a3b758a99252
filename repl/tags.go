package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"harness/plural"
	"harness/protocol"
	"harness/tools"
	"harness/view"
)

// workspaceTag is the tag that attaches the workspace's listing.
const workspaceTag = "workspace"

// tagTrailers are the characters that may follow a tag in a sentence
// without being part of the path: "see @a.go." names a.go.
const tagTrailers = ".,;:!?)]}'\""

// tags returns the words of input that start with @, at the start of the
// input or after a space, without the @: the candidate tags. An @ inside a
// word (an e-mail address) starts none. Each word is given once.
func tags(input string) []string {
	var out []string
	for _, word := range strings.FieldsFunc(input, unicode.IsSpace) {
		w, ok := strings.CutPrefix(word, "@")
		if !ok || w == "" {
			continue
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// Attacher attaches what the @tags of an input name: a file's content, or
// with @workspace the workspace's listing, as deep as fits its bounds
// (see tree). It reads through the tools
// behind the approval gate, as read_file and list_files: the same
// workspace boundary, secret rules, size caps and questions. An @ that
// names no file stays text (a Python decorator, a handle).
type Attacher struct {
	WS    *tools.Workspace
	Tools interface {
		Run(ctx context.Context, call protocol.Call) protocol.Result
	}
	n int // calls made, to number them
}

// attachment is what one tag attached.
type attachment struct {
	name, body string
}

// Attach returns input with what its tags name appended, and shows one
// line for each tag that attached something or was refused on log.
func (a *Attacher) Attach(ctx context.Context, input string, log io.Writer, st view.Style) string {
	var got []attachment
	seen := map[string]bool{}
	for _, tag := range tags(input) {
		if tag == workspaceTag {
			if seen[tag] {
				continue
			}
			seen[tag] = true
			tree, err := a.tree(ctx)
			if err != nil {
				fmt.Fprintf(log, "%s @%s: %v\n", st.Bad("not attached:"), tag, err)
				continue
			}
			shown := plural.Count(tree.entries, "entry")
			if tree.unlisted > 0 {
				shown += fmt.Sprintf(" (%s not listed, to keep it short)", plural.Count(tree.unlisted, "folder"))
			}
			fmt.Fprintf(log, "%s workspace listing, %s\n", st.Dim("attached:"), shown)
			got = append(got, attachment{name: "workspace listing", body: tree.String()})
			continue
		}
		t, err := a.file(tag)
		switch {
		case errors.Is(err, tools.ErrOutsideWorkspace):
			fmt.Fprintf(log, "%s @%s: %v\n", st.Bad("not attached:"), tag, err)
			continue
		case t.folder != "":
			fmt.Fprintln(log, st.Dim(fmt.Sprintf("%s is a folder, not a file; sent as text (@workspace attaches the listing)", t.folder)))
			continue
		case err != nil || t.name == "":
			// No file: the @ is text. Only a tag that looks like a path is
			// worth a line: a decorator or a handle is meant as text.
			if t.missing != "" {
				fmt.Fprintln(log, st.Dim(fmt.Sprintf("no file %s; sent as text", t.missing)))
			}
			continue
		case seen[t.abs]:
			continue
		}
		name, abs := t.name, t.abs
		seen[abs] = true
		res := a.run(ctx, "read_file", name)
		if !res.OK {
			fmt.Fprintf(log, "%s @%s: %s\n", st.Bad("not attached:"), tag, view.ErrorLine(res.Body))
			continue
		}
		n := countLines(abs)
		shown := fmt.Sprintf("%s, %s", name, plural.Count(n, "line"))
		if body := strings.Count(res.Body, "\n"); n > body+1 {
			shown += fmt.Sprintf(" (the first %d; the model can read on with read_file)", body)
		}
		switch {
		case t.line > n:
			shown += fmt.Sprintf("; the tag names line %d, past its end", t.line)
		case t.line > 0:
			shown += fmt.Sprintf("; the tag names line %d", t.line)
		}
		fmt.Fprintf(log, "%s %s\n", st.Dim("attached:"), shown)
		got = append(got, attachment{name: name, body: res.Body})
	}
	if len(got) == 0 {
		return input
	}
	var b strings.Builder
	b.WriteString(input)
	for _, at := range got {
		fmt.Fprintf(&b, "\n\n--- %s (attached) ---\n%s\n--- end of %s ---", at.name, strings.TrimRight(at.body, "\n"), at.name)
	}
	return b.String()
}

// tagged is what a tag names.
type tagged struct {
	name, abs string // the regular file, relative to the root and absolute; "" for none
	line      int    // the line path:LINE names, or 0
	folder    string // the folder the tag names, relative to the root, when it names one
	// missing is the path the tag names when it names nothing and looks
	// like a path (it holds a slash or a dot, or ends in :LINE): "" for
	// a tag that is text, such as @property or @ada.
	missing string
}

// file returns the regular file in the workspace that tag names, by its
// name relative to the root, trying the tag without the punctuation that
// may follow it in a sentence; a tag PATH:LINE names PATH, and the line.
// A tag that leads out of the workspace is an error wrapping
// tools.ErrOutsideWorkspace.
func (a *Attacher) file(tag string) (tagged, error) {
	for p := tag; p != ""; p = p[:len(p)-1] {
		t, err := a.lookup(p)
		if err != nil || t.name != "" || t.folder != "" {
			return t, err
		}
		if !strings.ContainsRune(tagTrailers, rune(p[len(p)-1])) {
			break
		}
	}
	path, _ := splitLine(strings.TrimRight(tag, tagTrailers))
	if strings.ContainsAny(path, `/\.`) || path != strings.TrimRight(tag, tagTrailers) {
		return tagged{missing: path}, nil
	}
	return tagged{}, nil
}

// lookup returns what p names: a file, a file and a line (PATH:LINE), or
// a folder; nothing when it names none of them.
func (a *Attacher) lookup(p string) (tagged, error) {
	t, err := a.stat(p)
	if err != nil || t.name != "" || t.folder != "" {
		return t, err
	}
	if path, line := splitLine(p); line > 0 {
		if t, err := a.stat(path); err != nil || t.name != "" {
			t.line = line
			return t, err
		}
	}
	return tagged{}, nil
}

// stat returns the file or the folder path names in the workspace.
func (a *Attacher) stat(path string) (tagged, error) {
	abs, err := a.WS.Resolve(path)
	if err != nil {
		return tagged{}, err
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return tagged{}, nil // no such file, or one that cannot be read as one
	case fi.Mode().IsRegular():
		return tagged{name: a.WS.Rel(abs), abs: abs}, nil
	case fi.IsDir():
		return tagged{folder: a.WS.Rel(abs)}, nil
	}
	return tagged{}, nil
}

// splitLine splits PATH:LINE into PATH and LINE (from 1); a p without a
// line is returned whole, with 0.
func splitLine(p string) (string, int) {
	i := strings.LastIndexByte(p, ':')
	if i <= 0 {
		return p, 0
	}
	n, err := strconv.Atoi(p[i+1:])
	if err != nil || n < 1 || strings.ContainsAny(p[i+1:], "+-") {
		return p, 0
	}
	return p[:i], n
}

// run runs one call of tool on path through the gate.
func (a *Attacher) run(ctx context.Context, tool, path string) protocol.Result {
	a.n++
	return a.Tools.Run(ctx, protocol.Call{
		ID:   fmt.Sprintf("attach_%d", a.n),
		Name: tool,
		Args: map[string]any{"path": path},
	})
}

// countLines counts the lines of the file at abs, a last line without a
// newline included, in its first 64 MiB.
func countLines(abs string) int {
	f, err := os.Open(abs)
	if err != nil {
		return 0
	}
	defer f.Close()
	r := io.LimitReader(f, 64<<20)
	buf := make([]byte, 32<<10)
	n, last := 0, byte('\n')
	for {
		k, err := r.Read(buf)
		for _, c := range buf[:k] {
			if c == '\n' {
				n++
			}
		}
		if k > 0 {
			last = buf[k-1]
		}
		if err != nil {
			break
		}
	}
	if last != '\n' {
		n++
	}
	return n
}
