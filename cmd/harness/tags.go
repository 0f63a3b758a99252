package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"unicode"

	"harness/protocol"
	"harness/tools"
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

// attacher attaches what the @tags of an input name: a file's content, or
// with @workspace the workspace's listing. It reads through the tools
// behind the approval gate, as read_file and list_files: the same
// workspace boundary, secret rules, size caps and questions. An @ that
// names no file stays text (a Python decorator, a handle).
type attacher struct {
	ws    *tools.Workspace
	tools interface {
		Run(ctx context.Context, call protocol.Call) protocol.Result
	}
	n int // calls made, to number them
}

// attachment is what one tag attached.
type attachment struct {
	name, body string
}

// attach returns input with what its tags name appended, and shows one
// line for each tag that attached something or was refused on log.
func (a *attacher) attach(ctx context.Context, input string, log io.Writer, st style) string {
	var got []attachment
	seen := map[string]bool{}
	for _, tag := range tags(input) {
		if tag == workspaceTag {
			if seen[tag] {
				continue
			}
			seen[tag] = true
			res := a.run(ctx, "list_files", ".")
			if !res.OK {
				fmt.Fprintf(log, "%s @%s: %s\n", st.bad("not attached:"), tag, errorLine(res.Body))
				continue
			}
			n := strings.Count(strings.TrimRight(res.Body, "\n"), "\n") + 1
			fmt.Fprintf(log, "%s workspace listing, %s\n", st.dim("attached:"), plural(n, "entry", "entries"))
			got = append(got, attachment{name: "workspace listing", body: res.Body})
			continue
		}
		name, abs, err := a.file(tag)
		switch {
		case errors.Is(err, tools.ErrOutsideWorkspace):
			fmt.Fprintf(log, "%s @%s: %v\n", st.bad("not attached:"), tag, err)
			continue
		case err != nil || name == "" || seen[abs]:
			continue // no file: the @ is text
		}
		seen[abs] = true
		res := a.run(ctx, "read_file", name)
		if !res.OK {
			fmt.Fprintf(log, "%s @%s: %s\n", st.bad("not attached:"), tag, errorLine(res.Body))
			continue
		}
		n := countLines(abs)
		shown := fmt.Sprintf("%s, %s", name, plural(n, "line", "lines"))
		if body := strings.Count(res.Body, "\n"); n > body+1 {
			shown += fmt.Sprintf(" (the first %d; the model can read on with read_file)", body)
		}
		fmt.Fprintf(log, "%s %s\n", st.dim("attached:"), shown)
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

// file returns the regular file in the workspace that tag names, by its
// name relative to the root, trying the tag without the punctuation that
// may follow it in a sentence; "" when it names none. A tag that leads
// out of the workspace is an error wrapping tools.ErrOutsideWorkspace.
func (a *attacher) file(tag string) (name, abs string, err error) {
	for p := tag; p != ""; p = p[:len(p)-1] {
		abs, err := a.ws.Resolve(p)
		if err != nil {
			return "", "", err
		}
		if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() {
			return a.ws.Rel(abs), abs, nil
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", "", err
		}
		if !strings.ContainsRune(tagTrailers, rune(p[len(p)-1])) {
			break
		}
	}
	return "", "", nil
}

// run runs one call of tool on path through the gate.
func (a *attacher) run(ctx context.Context, tool, path string) protocol.Result {
	a.n++
	return a.tools.Run(ctx, protocol.Call{
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

// plural returns "1 line", "3 lines" and the like.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
