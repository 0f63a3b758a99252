package repl

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"harness/tools"
)

// completer says what Tab may complete at the REPL's prompt: a command's
// name at the start of the line, and the path of an @tag, through the
// workspace as list_files sees it (hidden entries, secrets and ignored
// files never offered).
type completer struct {
	ws       *tools.Workspace
	commands []string // names, without the slash
}

// Complete returns the candidates for the word that ends at byte pos of
// line, each the whole word as it would be once completed, and where that
// word starts. A candidate that ends in / is a folder, to be completed on.
func (c *completer) Complete(ctx context.Context, line string, pos int) (start int, candidates []string) {
	if pos < 0 || pos > len(line) {
		return pos, nil
	}
	start = strings.LastIndexFunc(line[:pos], unicode.IsSpace) + 1
	if start > 0 {
		_, size := utf8.DecodeRuneInString(line[start-1:])
		start += size - 1 // past a space of more than one byte
	}
	word := line[start:pos]
	switch {
	case strings.HasPrefix(word, "/") && strings.TrimSpace(line[:start]) == "":
		for _, name := range c.commands {
			if strings.HasPrefix("/"+name, word) {
				candidates = append(candidates, "/"+name)
			}
		}
	case strings.HasPrefix(word, "@"):
		candidates = c.paths(ctx, word[1:])
	}
	slices.Sort(candidates)
	return start, candidates
}

// paths returns the @tags that complete the partial path p: the entries of
// its folder whose names start with what follows its last slash, and
// @workspace.
func (c *completer) paths(ctx context.Context, p string) []string {
	dir, base := "", p
	if i := strings.LastIndex(p, "/"); i >= 0 {
		dir, base = p[:i+1], p[i+1:]
	}
	var out []string
	if dir == "" && strings.HasPrefix(workspaceTag, base) {
		out = append(out, "@"+workspaceTag)
	}
	list := dir
	if list == "" {
		list = "."
	}
	names, err := c.ws.Entries(ctx, list)
	if err != nil {
		return out
	}
	for _, n := range names {
		if strings.HasPrefix(n, base) {
			out = append(out, "@"+dir+n)
		}
	}
	return out
}
