package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"harness/protocol"
	"harness/tools"
)

// Bounds of the diffs the harness shows.
const (
	maxDiffLines = 40      // lines of a diff shown after an edit or before a question
	maxDiffBytes = 1 << 20 // a bigger file is said to have changed, not diffed
)

// writesFile reports whether call is of a tool that writes one file by its
// path (edit_file, write_file): its changes are shown as a diff, and can
// be undone.
func writesFile(call protocol.Call) bool {
	return call.Name == "edit_file" || call.Name == "write_file"
}

// fileState is a file's content as the diffs see it.
type fileState struct {
	exists bool
	text   string
	// unshown says why the content is not there to diff: the file is
	// too big, binary, or not a regular file.
	unshown string
}

// readState reads the file at abs for a diff, without blocking on a named
// pipe and without reading more than maxDiffBytes.
func readState(abs string) fileState {
	data, size, err := tools.ReadHead(abs, maxDiffBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fileState{}
	case errors.Is(err, tools.ErrNotRegular):
		return fileState{exists: true, unshown: "it is not a regular file"}
	case err != nil:
		return fileState{exists: true, unshown: "it cannot be read"}
	case size > maxDiffBytes || len(data) > maxDiffBytes:
		return fileState{exists: true, unshown: fmt.Sprintf("it is over %d MiB", maxDiffBytes>>20)}
	case bytes.IndexByte(data, 0) >= 0:
		return fileState{exists: true, unshown: "it is binary"}
	}
	return fileState{exists: true, text: string(data)}
}

// unified returns the unified diff of the file name from before to after,
// "" when they are the same. A file that did not exist on one side is
// /dev/null there. When either side cannot be diffed, it says why in one
// line.
func unified(name string, before, after fileState) string {
	if why := cmp.Or(before.unshown, after.unshown); why != "" {
		return fmt.Sprintf("%s changed (no diff shown: %s)\n", name, why)
	}
	from, to := "a/"+name, "b/"+name
	if !before.exists {
		from = "/dev/null"
	}
	if !after.exists {
		to = "/dev/null"
	}
	if before.exists == after.exists && before.text == after.text {
		return ""
	}
	if before.text == after.text { // an empty file made or removed
		return fmt.Sprintf("--- %s\n+++ %s\n", from, to)
	}
	return udiff.Unified(from, to, before.text, after.text)
}

// shorten keeps the first max lines of a diff and says how many more
// there are.
func shorten(diff string, max int) string {
	lines := strings.SplitAfter(diff, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= max {
		return diff
	}
	return strings.Join(lines[:max], "") + fmt.Sprintf("[... %d more lines of the diff]\n", len(lines)-max)
}

// editPreview returns the approval gate's preview of a call that writes a
// file in ws: the diff the call would make, from the file as it is now
// and the call's arguments, or the new file's first lines. It is "" for
// other calls, and for an edit that would fail (its old text matching
// the file other than once), whose result will say why.
func editPreview(ws *tools.Workspace) func(protocol.Call) string {
	return func(call protocol.Call) string {
		if !writesFile(call) {
			return ""
		}
		path, _ := call.Args["path"].(string)
		abs, err := ws.Resolve(path)
		if err != nil {
			return ""
		}
		before := readState(abs)
		after, ok := applyCall(call, before)
		if !ok {
			return ""
		}
		return shorten(unified(ws.Rel(abs), before, after), maxDiffLines)
	}
}

// applyCall returns the file as call would leave it, and whether the call
// would succeed on it, as far as its arguments tell.
func applyCall(call protocol.Call, before fileState) (fileState, bool) {
	if before.unshown != "" {
		return fileState{exists: true, unshown: before.unshown}, true
	}
	arg := func(name string) string { s, _ := call.Args[name].(string); return s }
	if call.Name == "write_file" {
		return fileState{exists: true, text: arg("content")}, true
	}
	old, repl := arg("old_text"), arg("new_text")
	if old == "" { // edit_file creates a file that does not exist
		return fileState{exists: true, text: repl}, !before.exists
	}
	if !before.exists {
		return fileState{}, false
	}
	out, err := tools.ApplyEdit(before.text, old, repl)
	if err != nil {
		return fileState{}, false
	}
	return fileState{exists: true, text: out}, true
}
