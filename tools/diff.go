package tools

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
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
	return unified(from, to, before.Text, after.Text)
}

// contextLines is how many unchanged lines a hunk shows on each side of
// its changes; changes closer than twice that share a hunk.
const contextLines = 3

// unified returns the unified diff from before to after, named from and
// to: what go-udiff's Unified returns, from the same line edits (those of
// its lcs package), in GNU diff's form. go-udiff's root package is not
// linked: it compiles a regexp when the program starts, for a patch
// reader the harness never uses.
func unified(from, to, before, after string) string {
	a, b := splitLines(before), splitLines(after)
	edits := lcs.DiffLines(a, b)
	if len(edits) == 0 {
		return ""
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", from, to)
	line := func(mark byte, l string) {
		out.WriteByte(mark)
		out.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
	for len(edits) > 0 {
		n := 1
		for n < len(edits) && edits[n].Start-edits[n-1].End <= 2*contextLines {
			n++
		}
		hunk := edits[:n]
		edits = edits[n:]
		lead := min(contextLines, hunk[0].Start)
		aFrom, bFrom := hunk[0].Start-lead, hunk[0].ReplStart-lead
		trail := min(contextLines, len(a)-hunk[n-1].End)
		aTo, bTo := hunk[n-1].End+trail, hunk[n-1].ReplEnd+trail
		out.WriteString("@@ -")
		out.WriteString(hunkRange(aFrom, aTo-aFrom))
		out.WriteString(" +")
		out.WriteString(hunkRange(bFrom, bTo-bFrom))
		out.WriteString(" @@\n")
		at := aFrom
		for _, e := range hunk {
			for ; at < e.Start; at++ {
				line(' ', a[at])
			}
			for _, l := range a[e.Start:e.End] {
				line('-', l)
			}
			for _, l := range b[e.ReplStart:e.ReplEnd] {
				line('+', l)
			}
			at = e.End
		}
		for ; at < aTo; at++ {
			line(' ', a[at])
		}
	}
	return out.String()
}

// hunkRange is how a hunk's header gives the lines of one side that start
// at index from (0-based) and number count. A side without lines is an
// empty file (lines of context would be on both sides): 0,0.
func hunkRange(from, count int) string {
	switch count {
	case 0:
		return "0,0"
	case 1:
		return strconv.Itoa(from + 1)
	}
	return fmt.Sprintf("%d,%d", from+1, count)
}

// splitLines splits text after each newline; a last line without one is
// a line too.
func splitLines(text string) []string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
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
