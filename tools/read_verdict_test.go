package tools

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A path's secrecy is decided once while nothing it depends on changes,
// and again as soon as anything does: each change below makes the file
// secret without touching the file or, but where it must, its folder.
func TestSecretKeptUntilChange(t *testing.T) {
	needFileIDs(t)
	write := func(rel, text string) func(t *testing.T, root string) {
		return func(t *testing.T, root string) {
			writeFiles(t, root, map[string]string{rel: text})
		}
	}
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, root string)
		want   string // part of the reason
	}{
		{"the root's ignore file, written in place", write(".gitignore", "*.log\na.txt\n"), `"a.txt"`},
		{"an ignore file made in the file's folder", write("sub/deep/.gitignore", "a.txt\n"), "sub/deep/.gitignore"},
		{"an ignore file made in a folder between", write("sub/.gitignore", "deep/\n"), "sub/.gitignore"},
		{"the exclude file, written in place", write(".git/info/exclude", "a.txt\n"), ".git/info/exclude"},
		{"a file made in .git: the git directory is elsewhere", write(".git/commondir", "../sub\n"), "git directory"},
		{"the .git folder made a file that points here", func(t *testing.T, root string) {
			if err := os.RemoveAll(filepath.Join(root, ".git")); err != nil {
				t.Fatal(err)
			}
			write(".git", "gitdir: sub/deep\n")(t, root)
		}, "git directory"},
		{"the file linked to a protected name in another folder", func(t *testing.T, root string) {
			// Only the file's link count and change time show this.
			if err := os.Link(filepath.Join(root, "sub", "deep", "a.txt"), filepath.Join(root, "priv", "db")); err != nil {
				t.Fatal(err)
			}
		}, "which was protected when the run started"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, map[string]string{
				".gitignore":        "*.log\n",
				".git/info/exclude": "# nothing\n",
				".git/HEAD":         "ref: refs/heads/main\n",
				"sub/deep/a.txt":    "text\n",
				"priv/.gitignore":   "db\n",
				"priv/other":        "",
			})
			age(t, ws.Root())
			abs := filepath.Join(ws.Root(), "sub", "deep", "a.txt")
			if why := ws.Secret(abs); why != "" {
				t.Fatalf("before: %q", why)
			}
			if n := decisions(ws, abs); n != 0 || ws.Secret(abs) != "" {
				t.Fatalf("asked again: decided %d more times, or secret", n)
			}
			tt.change(t, ws.Root())
			if why := ws.Secret(abs); !strings.Contains(why, tt.want) {
				t.Errorf("after the change: %q, want %q", why, tt.want)
			}
		})
	}
}

// What changed a moment ago may change again within the same tick of the
// file system's clock, unseen by its times: such an answer is not kept.
func TestSecretNotKeptWhenRecent(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "text\n"})
	abs := filepath.Join(ws.Root(), "a.txt")
	ws.Secret(abs)
	if n := decisions(ws, abs); n != 1 {
		t.Errorf("a file made a moment ago: decided %d more times, want 1", n)
	}
}

// Where .git points elsewhere, what the answer depends on lies outside
// the folders looked at: it is decided every time.
func TestSecretDecidedEachTimeWhenGitPoints(t *testing.T) {
	needFileIDs(t)
	for _, tt := range []struct {
		name  string
		files map[string]string
		link  [2]string // a link made at the first path, to the second
	}{
		{"a .git file", map[string]string{".git": "gitdir: gd\n", "gd/HEAD": "ref: refs/heads/main\n"}, [2]string{}},
		{"a commondir", map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/commondir": "../common\n", "common/config": ""}, [2]string{}},
		{"a .git link", map[string]string{"gd/HEAD": "ref: refs/heads/main\n"}, [2]string{".git", "gd"}},
		{"a link for .git/info", map[string]string{".git/HEAD": "ref: refs/heads/main\n", "rules/exclude": "# nothing\n"}, [2]string{".git/info", "../rules"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.files["a.txt"] = "text\n"
			ws := newWorkspace(t, tt.files)
			if tt.link[0] != "" {
				if err := os.Symlink(tt.link[1], filepath.Join(ws.Root(), tt.link[0])); err != nil {
					t.Skip("skipped: no symbolic links here")
				}
			}
			age(t, ws.Root())
			abs := filepath.Join(ws.Root(), "a.txt")
			ws.Secret(abs)
			if n := decisions(ws, abs); n != 1 {
				t.Errorf("decided %d more times, want 1", n)
			}
		})
	}
}

// A name that was not in a folder is not looked for again while the
// folder looks the same; once it changed, the name is looked at, and an
// ignore file made then counts for the answers decided after.
func TestSecretLooksOnceForWhatIsNotThere(t *testing.T) {
	needFileIDs(t)
	ws := newWorkspace(t, map[string]string{"a.txt": "", "b.txt": "", "c.txt": ""})
	age(t, ws.Root())
	ws.Secret(filepath.Join(ws.Root(), "a.txt"))
	looked := ws.verdicts.looked
	ws.Secret(filepath.Join(ws.Root(), "b.txt"))
	if n := ws.verdicts.looked - looked; n != 2 {
		t.Errorf("a file beside one decided: %d paths looked at, want 2 (the root, the file)", n)
	}
	writeFiles(t, ws.Root(), map[string]string{".gitignore": "# nothing yet\n"})
	age(t, ws.Root())
	if why := ws.Secret(filepath.Join(ws.Root(), "c.txt")); why != "" {
		t.Fatalf("before the rule: %q", why)
	}
	// Written in place: only the ignore file's own look shows it.
	writeFiles(t, ws.Root(), map[string]string{".gitignore": "c.txt\n"})
	if why := ws.Secret(filepath.Join(ws.Root(), "c.txt")); !strings.Contains(why, `"c.txt"`) {
		t.Errorf("after the rule: %q", why)
	}
}

// An answer kept before the rules of the start were read is not given
// after: from the start on, those rules decide too, and they protect by
// identity what the rules of the moment know only by path.
func TestSecretKeptBeforeTheStartDecidedAgain(t *testing.T) {
	needFileIDs(t)
	ws := newWorkspace(t, map[string]string{".gitignore": "a.txt\n", "a.txt": "hunter2\n", ".git/HEAD": "ref: refs/heads/main\n", ".git/info/x": ""})
	age(t, ws.Root())
	abs := filepath.Join(ws.Root(), "a.txt")
	if why := ws.Secret(abs); why == "" {
		t.Fatal("before the start, a.txt was not secret")
	}
	if n := decisions(ws, abs); n != 0 {
		t.Fatalf("before the start, the answer was decided %d times again: the test needs it kept", n)
	}
	ws.begin()
	if n := decisions(ws, abs); n != 1 {
		t.Errorf("after the start's rules were read, the answer was decided %d times, want 1", n)
	}
	if why := ws.Secret(abs); why == "" {
		t.Error("after the start, a.txt was not secret")
	}
	if got, err := run(t, ReadFile(ws), map[string]any{"path": "a.txt"}); err == nil || strings.Contains(got, "hunter2") {
		t.Errorf("read_file showed %q (err %v)", got, err)
	}
}

// decisions asks ws whether abs is secret, and returns how many times the
// answer was decided in full: 0 when a kept answer was given.
func decisions(ws *Workspace, abs string) int {
	before := ws.verdicts.decided
	ws.Secret(abs)
	return ws.verdicts.decided - before
}

// needFileIDs skips a test of what is kept by a file's identity and
// change time, which Windows does not give: nothing is kept there.
func needFileIDs(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("skipped: files have no identity and change time to keep anything by here")
	}
}
