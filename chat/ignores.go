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
// root's, which hold most rules. The exclude file's hash is kept under
// .git/info/exclude wherever git reads it from, as it always has been, so
// that a name kept by an older run still matches.
var ignoreFiles = []string{".gitignore", ".git/info/exclude"}

// ignoreFile returns where the ignore file key, one of ignoreFiles, is
// for the workspace at root, and the name to tell the user for it. The
// repository's exclude file is where git reads it (tools.ExcludeFile), for
// a worktree its main repository's and for a submodule in the git
// directory of the repository above it, and is named by its absolute
// path when that is outside the workspace: there, the workspace's own
// .git/info/exclude is not the file git reads, nor likely one that exists.
func ignoreFile(root, key string) (path, name string) {
	if key == ".git/info/exclude" {
		return tools.ExcludeFile(root)
	}
	return filepath.Join(root, filepath.FromSlash(key)), key
}

// IgnoresChanged returns the ignore files of the workspace's root
// (.gitignore, the repository's exclude file) that changed or went since
// the last run in the workspace, by the names to tell the user for them
// (see ignoreFile), whose hashes it keeps in the state folder of dirs
// (when record is set), never in the workspace. Each run protects what
// the rules ignore when it starts, and keeps that for the run; a command
// of the last run that weakened them (test code that emptied .gitignore)
// would leave this run protecting less with nothing said. A file that is
// new is not reported: it can only protect more. Nothing is reported on
// a workspace's first run. The root is absolute, with its symlinks
// resolved (tools.Workspace.Root), as the exclude file's path is, so that
// one in the workspace is named from the root.
func IgnoresChanged(root string, dirs xdg.Dirs, record bool) ([]string, error) {
	now := make(map[string]string)
	names := make(map[string]string)
	for _, key := range ignoreFiles {
		path, name := ignoreFile(root, key)
		names[key] = name
		data, _, err := tools.ReadHead(path, maxIgnoreHashed)
		if err != nil {
			continue
		}
		now[key] = hashOf(data)
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
		sum, key, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && slices.Contains(ignoreFiles, key) {
			kept[key] = sum
		}
	}
	for _, key := range ignoreFiles {
		if was, ok := kept[key]; ok && now[key] != was {
			changed = append(changed, names[key])
		}
	}
	if !record {
		return changed, nil
	}
	var b strings.Builder
	for _, key := range ignoreFiles {
		if sum, ok := now[key]; ok {
			fmt.Fprintf(&b, "%s %s\n", sum, key)
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
