package tools

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"harness/fence"
	"harness/protocol"
)

// maxExposedShown bounds the files an exposure warning names.
const maxExposedShown = 10

// exposes returns, for a call of write_file or edit_file that changes an
// ignore file (fence.IgnoreFile: a .gitignore, .git/info/exclude), which
// files and folders it ignores now and would no longer ignore, in words
// for the approval question; "" for any other call, or when it exposes
// nothing. The rules read at the start still protect them for the rest
// of the run, but git would stop keeping them out of commits, and later
// runs would show them to the model.
func (w *Workspace) exposes(call protocol.Call) string {
	if call.Name != writeName && call.Name != editName {
		return ""
	}
	p, _ := call.Args["path"].(string)
	abs, err := w.Resolve(p)
	if err != nil {
		return ""
	}
	rel := w.Rel(abs)
	if !fence.IgnoreFile(rel) {
		return ""
	}
	root, err := os.OpenRoot(w.root)
	if err != nil {
		return ""
	}
	defer root.Close()
	now := newIgnores(root)
	now.global = w.global
	data, _ := now.read(rel)
	text, ok := newIgnoreText(call, data)
	if !ok {
		return ""
	}
	dir := path.Dir(rel)
	if rel == excludeFile || dir == "." {
		dir = ""
	}
	after := newIgnores(root)
	after.global = w.global
	after.rules[dir] = replaceRules(now.forDir(dir), rel, parseIgnore(strings.NewReader(text), dir, rel))
	exposed := exposedBy(root, now, after)
	if len(exposed) == 0 {
		return ""
	}
	shown := exposed[:min(len(exposed), maxExposedShown)]
	more := ""
	if n := len(exposed) - len(shown); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	return fmt.Sprintf("this change of %s would stop ignoring %s%s, which are protected as secrets now: git would no longer keep them out of commits, and later runs would show them to the model", rel, strings.Join(shown, ", "), more)
}

// newIgnoreText returns the text the ignore file would hold after call,
// given its text now (nil when it does not exist).
func newIgnoreText(call protocol.Call, old []byte) (string, bool) {
	if call.Name == writeName {
		content, _ := call.Args["content"].(string)
		return content, true
	}
	oldText, _ := call.Args["old_text"].(string)
	newText, _ := call.Args["new_text"].(string)
	if oldText == "" {
		return newText, true
	}
	if bytes.Count(old, []byte(oldText)) != 1 {
		return "", false // the edit would fail, and change nothing
	}
	return strings.Replace(string(old), oldText, newText, 1), true
}

// replaceRules returns rules with those from source replaced by repl,
// where they were, or after the others when there were none.
func replaceRules(rules []ignoreRule, source string, repl []ignoreRule) []ignoreRule {
	var out []ignoreRule
	done := false
	for _, r := range rules {
		if r.source != source {
			out = append(out, r)
			continue
		}
		if !done {
			out, done = append(out, repl...), true
		}
	}
	if !done {
		out = append(out, repl...)
	}
	return out
}

// exposedBy lists the files that now ignores and after does not, looking
// at no more than maxSecretScan entries; it does not look inside .git,
// nor inside a folder both ignore.
func exposedBy(root *os.Root, now, after *ignores) []string {
	var out []string
	seen := 0
	walkTree(root.Name(), nil, func(abs string, d fs.DirEntry) error {
		if abs == root.Name() {
			return nil
		}
		p := below(root.Name(), abs)
		if seen++; seen > maxSecretScan {
			return fs.SkipAll
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		_, before := now.ignored(p, d.IsDir())
		_, still := after.ignored(p, d.IsDir())
		switch {
		case before && still && d.IsDir():
			return fs.SkipDir
		case before && !still && !d.IsDir():
			out = append(out, p)
		}
		return nil
	}, func(string, []fs.DirEntry, error) {})
	return out
}
