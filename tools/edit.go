package tools

import (
	"context"
	"errors"
	"fmt"
	"harness/plural"
	"io"
	"os"
	"strconv"
	"strings"
)

const editName = "edit_file"

// maxShownMatches bounds the line numbers an ambiguous edit reports.
const maxShownMatches = 20

type editArgs struct {
	Path    string `arg:"path" help:"File path"`
	OldText string `arg:"old_text" help:"The exact text to replace, which must occur exactly once in the file; empty to create a new file"`
	NewText string `arg:"new_text" help:"The text to put in its place, or the content of the new file"`
}

// EditFile returns the edit_file tool, which replaces one piece of text in
// a file in ws, or creates a new file.
func EditFile(ws *Workspace) Tool {
	return New(editName,
		"Replace old_text with new_text in a file. old_text must match exactly once, spaces and indentation included; otherwise nothing is written. With an empty old_text, create a new file holding new_text, making missing folders.",
		true,
		func(ctx context.Context, a editArgs) (string, error) { return editFile(ctx, ws, a) }).Inspected(inspectWrite(ws))
}

func editFile(ctx context.Context, ws *Workspace, a editArgs) (string, error) {
	path, err := ws.Resolve(a.Path)
	if err != nil {
		return "", err
	}
	name := ws.Rel(path)
	if a.OldText == "" {
		return createFile(ctx, ws, path, name, a.NewText)
	}
	if err := ws.checkRead(ctx, path, name); err != nil {
		return "", err
	}
	missing := func() string {
		return didYouMean(ctx, ws, path, false) + "to create it, call edit_file with an empty old_text"
	}
	fi, err := statRegular(path, name, missing)
	if err != nil {
		return "", err
	}
	f, err := openRegular(ws, path, name)
	if err != nil {
		return "", err
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return "", fail(err, "cannot read %s: %v; nothing was written", name, reason(err))
	}

	e := replaceOnce(string(data), a.OldText, a.NewText)
	if err := e.mismatch(name, a.OldText); err != nil {
		return "", err
	}
	if err := save(ctx, ws, path, name, []byte(e.out), fi.Mode().Perm()); err != nil {
		return "", err
	}
	done := fmt.Sprintf("edited %s: replaced 1 match (%s -> %s)", name, plural.Count(lines(a.OldText), "line"), plural.Count(lines(a.NewText), "line"))
	if e.unended {
		done += "; old_text matched without its last line break, as a fragment of a line"
	}
	return done, nil
}

var (
	// ErrNoMatch is wrapped by the error of ApplyEdit when the old text
	// is nowhere in the text.
	ErrNoMatch = errors.New("old_text was not found")
	// ErrManyMatches is wrapped by the error of ApplyEdit when the old
	// text is in several places.
	ErrManyMatches = errors.New("old_text matches more than once")
)

// ApplyEdit returns text with old replaced by repl, as edit_file replaces
// it in a file: old is matched as if text ended in a newline (text given
// as a block always does), and, when it ends with a line break and is not
// found, without that line break (a block of a fragment of a line); it
// must match exactly once, overlapping
// matches counted; the result keeps the text's own ending. When old
// matches nowhere, or in several places, the error wraps ErrNoMatch or
// ErrManyMatches. An empty old matches nowhere: with it, edit_file
// creates a file instead. It is what shows an edit before it is made.
func ApplyEdit(text, old, repl string) (string, error) {
	e := replaceOnce(text, old, repl)
	switch len(e.at) {
	case 0:
		return "", ErrNoMatch
	case 1:
		return e.out, nil
	}
	return "", fmt.Errorf("%w: %d matches", ErrManyMatches, len(e.at))
}

// replacement is what replacing one text by another in a file found.
type replacement struct {
	matched string // the file's text as matched: ending in a newline
	at      []int  // where the old text matched in it
	out     string // the new text of the file, when it matched once
	// unended is true when old matched only without its last line break,
	// which a block always gives (a fragment of a line, sent as a block).
	unended bool
}

// replaceOnce replaces old by repl in text, as edit_file does (see
// ApplyEdit), when old matches exactly once. An old text that ends with
// a line break and is not found is looked for without it, as the end of
// a block that held a fragment of a line (repl then loses its last line
// break too).
// mismatch is the error of an edit of the file name whose old text, old,
// made e: why nothing was written when it matched other than once, with
// where it came closest or where it matched; nil when it matched once.
func (e replacement) mismatch(name, old string) error {
	switch len(e.at) {
	case 1:
		return nil
	case 0:
		why := "old_text was not found in %s (0 matches); nothing was written. %s"
		if strings.HasSuffix(old, "\n") {
			why = "old_text was not found in %s (0 matches), with its last line break or without it; nothing was written. %s"
		}
		return fmt.Errorf(why, name, closest(e.matched, old))
	}
	without := ""
	if e.unended {
		without = ", without its last line break,"
	}
	return fmt.Errorf("old_text%s matches %d times in %s (at lines %s); nothing was written. Add nearby lines to old_text so that it matches exactly once", without, len(e.at), name, lineNumbers(e.matched, e.at))
}

func replaceOnce(text, old, repl string) replacement {
	noEOL := text != "" && !strings.HasSuffix(text, "\n")
	if noEOL {
		text += "\n"
	}
	r := replacement{matched: text}
	if old == "" {
		return r
	}
	r.at = matches(text, old)
	if short := strings.TrimSuffix(old, "\n"); len(r.at) == 0 && short != old && short != "" {
		if at := matches(text, short); len(at) > 0 {
			r.at, r.unended = at, true
			old, repl = short, strings.TrimSuffix(repl, "\n")
		}
	}
	if len(r.at) == 1 {
		r.out = text[:r.at[0]] + repl + text[r.at[0]+len(old):]
		if noEOL {
			r.out = strings.TrimSuffix(r.out, "\n")
		}
	}
	return r
}

func createFile(ctx context.Context, ws *Workspace, path, name, text string) (string, error) {
	if _, err := os.Lstat(path); err == nil {
		return "", fmt.Errorf("%s already exists and nothing was written; to change part of it give the text to replace as old_text, or use write_file to replace all of it", name)
	}
	if err := save(ctx, ws, path, name, []byte(text), newFileMode); err != nil {
		return "", err
	}
	return fmt.Sprintf("created %s (%s)", name, plural.Count(len(text), "byte")), nil
}

// matches returns the offsets of every occurrence of sub in s, overlapping
// ones included, since each is a place the edit could mean.
func matches(s, sub string) []int {
	var at []int
	for i := 0; i <= len(s); {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			break
		}
		at = append(at, i+j)
		i += j + 1
	}
	return at
}

// lineNumbers lists the lines of s on which the offsets in at fall.
func lineNumbers(s string, at []int) string {
	var nums []string
	line, prev := 1, 0
	for i, off := range at {
		if i == maxShownMatches {
			nums = append(nums, "...")
			break
		}
		line += strings.Count(s[prev:off], "\n")
		prev = off
		nums = append(nums, strconv.Itoa(line))
	}
	return strings.Join(nums, ", ")
}

// lines counts the lines of s; a final line need not end in a newline.
func lines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
