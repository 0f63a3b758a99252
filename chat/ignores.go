package chat

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"harness/protocol"
	"harness/tools"
	"harness/xdg"
)

// maxIgnoreHashed bounds how much of an ignore file IgnoresChanged hashes;
// git reads no more of one either way that matters here.
const maxIgnoreHashed = 1 << 20

// ignoreFiles are the workspace's ignore files whose change between runs
// IgnoresChanged reports, by the names it keeps their hashes under: the
// root's, which hold most rules.
var ignoreFiles = []string{".gitignore", ".git/info/exclude"}

// ignoreFilePath returns where the ignore file name, one of ignoreFiles,
// is for the workspace at root: the repository's exclude file is where
// git reads it (tools.ExcludeFile), for a worktree its main
// repository's.
func ignoreFilePath(root, name string) string {
	if name == ".git/info/exclude" {
		return tools.ExcludeFile(root)
	}
	return filepath.Join(root, filepath.FromSlash(name))
}

// IgnoresChanged returns the ignore files of the workspace's root
// (.gitignore, .git/info/exclude) that changed or went since the last run
// in the workspace, whose hashes it keeps in the state folder of dirs
// (when record is set), never in the workspace. Each run protects what
// the rules ignore when it starts, and keeps that for the run; a command
// of the last run that weakened them (test code that emptied .gitignore)
// would leave this run protecting less with nothing said. A file that is
// new is not reported: it can only protect more. Nothing is reported on
// a workspace's first run.
func IgnoresChanged(root string, dirs xdg.Dirs, record bool) ([]string, error) {
	now := make(map[string]string)
	for _, name := range ignoreFiles {
		data, _, err := tools.ReadHead(ignoreFilePath(root, name), maxIgnoreHashed)
		if err != nil {
			continue
		}
		now[name] = hashOf(data)
	}
	path, data, err := readKept(dirs, "ignores", root)
	if err != nil {
		return nil, fmt.Errorf("the ignore files' last hashes: %w", err)
	}
	if path == "" {
		return nil, nil
	}
	var changed []string
	kept := make(map[string]string)
	for line := range strings.Lines(string(data)) {
		sum, name, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && slices.Contains(ignoreFiles, name) {
			kept[name] = sum
		}
	}
	for _, name := range ignoreFiles {
		if was, ok := kept[name]; ok && now[name] != was {
			changed = append(changed, name)
		}
	}
	if !record {
		return changed, nil
	}
	var b strings.Builder
	for _, name := range ignoreFiles {
		if sum, ok := now[name]; ok {
			fmt.Fprintf(&b, "%s %s\n", sum, name)
		}
	}
	if err := writeKept(path, data, []byte(b.String())); err != nil {
		return changed, fmt.Errorf("the ignore files' hashes: %w", err)
	}
	return changed, nil
}

// IgnoresNotice is the line that says at the start of a run that the
// ignore files changed (IgnoresChanged), or "" when none did.
func IgnoresNotice(changed []string) string {
	if len(changed) == 0 {
		return ""
	}
	return fmt.Sprintf("notice: %s changed since the last run in this workspace, perhaps by that run's commands, and this run protects only what the rules ignore now; look at the change (git diff) if you did not make it", strings.Join(changed, " and "))
}

// Notices returns the lines a run says at its start about what changed
// in the workspace at root since its last run that steers or protects it:
// AGENTS.md, as the system prompt holds it among ins (CheckAgents), and
// the root's ignore files (IgnoresChanged). With record, this run's state
// is kept for the next. Both are tried; the error joins theirs.
func Notices(root string, ins []protocol.Instructions, dirs xdg.Dirs, record bool) ([]string, error) {
	var out []string
	agents, errAgents := CheckAgents(root, ins, dirs, record)
	if n := agents.Notice(); n != "" {
		out = append(out, n)
	}
	ignores, errIgnores := IgnoresChanged(root, dirs, record)
	if n := IgnoresNotice(ignores); n != "" {
		out = append(out, n)
	}
	return out, errors.Join(errAgents, errIgnores)
}
