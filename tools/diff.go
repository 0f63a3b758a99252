package tools

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// Bounds of the diffs the tools and the journal of changes show.
const (
	// MaxDiffLines bounds the lines of a diff shown after an edit or
	// before a question (Shorten).
	MaxDiffLines = 40
	// maxDiffBytes bounds the size of a file that is diffed; a bigger one
	// is said to have changed.
	maxDiffBytes = 1 << 20
)

// FileText is a file's content as a diff sees it.
type FileText struct {
	Exists bool
	Text   string
	// Unshown says why the content is not there to diff: the file is
	// too big, binary, not a regular file, or a secret.
	Unshown string
}

// ReadText reads the file at abs for a diff, without blocking on a named
// pipe and without reading more than 1 MiB.
func ReadText(abs string) FileText {
	data, size, err := ReadHead(abs, maxDiffBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return FileText{}
	case errors.Is(err, ErrNotRegular):
		return FileText{Exists: true, Unshown: "it is not a regular file"}
	case err != nil:
		return FileText{Exists: true, Unshown: "it cannot be read"}
	case size > maxDiffBytes || len(data) > maxDiffBytes:
		return FileText{Exists: true, Unshown: fmt.Sprintf("it is over %d MiB", maxDiffBytes>>20)}
	case bytes.IndexByte(data, 0) >= 0:
		return FileText{Exists: true, Unshown: "it is binary"}
	}
	return FileText{Exists: true, Text: string(data)}
}

// Unified returns the unified diff of the file name from before to after,
// "" when they are the same. A file that did not exist on one side is
// /dev/null there. When either side cannot be diffed, it says why in one
// line.
func Unified(name string, before, after FileText) string {
	if why := cmp.Or(before.Unshown, after.Unshown); why != "" {
		return fmt.Sprintf("%s changed (no diff shown: %s)\n", name, why)
	}
	from, to := "a/"+name, "b/"+name
	if !before.Exists {
		from = "/dev/null"
	}
	if !after.Exists {
		to = "/dev/null"
	}
	if before.Exists == after.Exists && before.Text == after.Text {
		return ""
	}
	if before.Text == after.Text { // an empty file made or removed
		return fmt.Sprintf("--- %s\n+++ %s\n", from, to)
	}
	return udiff.Unified(from, to, before.Text, after.Text)
}

// Shorten keeps the first max lines of a diff and says how many more
// there are.
func Shorten(diff string, max int) string {
	lines := strings.SplitAfter(diff, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= max {
		return diff
	}
	return strings.Join(lines[:max], "") + fmt.Sprintf("[... %d more lines of the diff]\n", len(lines)-max)
}

// afterEdit returns the file as edit_file, replacing old by repl, would
// leave it, and whether the edit would succeed on it.
func afterEdit(before FileText, old, repl string) (FileText, bool) {
	if before.Unshown != "" {
		return FileText{Exists: true, Unshown: before.Unshown}, true
	}
	if old == "" { // edit_file creates a file that does not exist
		return FileText{Exists: true, Text: repl}, !before.Exists
	}
	if !before.Exists {
		return FileText{}, false
	}
	out, err := ApplyEdit(before.Text, old, repl)
	if err != nil {
		return FileText{}, false
	}
	return FileText{Exists: true, Text: out}, true
}

// afterWrite returns the file as write_file, writing content, would leave
// it.
func afterWrite(before FileText, content string) FileText {
	if before.Unshown != "" {
		return FileText{Exists: true, Unshown: before.Unshown}
	}
	return FileText{Exists: true, Text: content}
}
