package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"harness/guard"
	"harness/protocol"
)

func TestIgnoreMatch(t *testing.T) {
	tests := []struct {
		pattern string
		dir     string // folder of the .gitignore
		path    string
		isDir   bool
		want    bool
	}{
		{"*.log", "", "a.log", false, true},
		{"*.log", "", "deep/down/a.log", false, true},
		{"*.log", "", "a.log.txt", false, false},
		{"/build", "", "build", true, true},
		{"/build", "", "sub/build", true, false},
		{"build/", "", "sub/build", true, true},
		{"build/", "", "build", false, false},
		{"doc/frotz", "", "doc/frotz", false, true},
		{"doc/frotz", "", "a/doc/frotz", false, false},
		{"foo/**", "", "foo/a/b", false, true},
		{"foo/**", "", "foo", true, false},
		{"a/**/b", "", "a/b", false, true},
		{"a/**/b", "", "a/x/y/b", false, true},
		{"**/cache", "", "x/cache", true, true},
		{"secret?.txt", "", "secret1.txt", false, true},
		{"[!a]x", "", "bx", false, true},
		{"[!a]x", "", "ax", false, false},
		{"*.tmp", "sub", "sub/x.tmp", false, true},
		{"*.tmp", "sub", "x.tmp", false, false},
		{"/only", "sub", "sub/only", false, true},
		{"/only", "sub", "sub/deeper/only", false, false},
		{`\#hash`, "", "#hash", false, true},
		{"trailing   ", "", "trailing", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.path, func(t *testing.T) {
			rules := parseIgnore(strings.NewReader(tt.pattern+"\n"), tt.dir, ".gitignore")
			if len(rules) != 1 {
				t.Fatalf("%d rules parsed", len(rules))
			}
			if got := rules[0].match(tt.path, tt.isDir); got != tt.want {
				t.Errorf("match = %v, want %v", got, tt.want)
			}
		})
	}
	if rules := parseIgnore(strings.NewReader("# comment\n\n   \n!\n"), "", ".gitignore"); len(rules) != 0 {
		t.Errorf("comments and blanks gave rules: %+v", rules)
	}
}

// secretWorkspace holds files of every kind the secret rules know.
func secretWorkspace(t *testing.T) *Workspace {
	t.Helper()
	return newWorkspace(t, map[string]string{
		".gitignore":          "*.log\nbuild/\n!keep.log\n/local.txt\n",
		"sub/.gitignore":      "*.tmp\n!../ignored\n",
		".git/info/exclude":   "excluded.txt\n",
		".git/config":         "[core]\n",
		".env":                "API_KEY=sk-live-1234567890\n",
		".env.production":     "DB_PASSWORD=hunter2\n",
		"certs/server.pem":    "-----BEGIN PRIVATE KEY-----\n",
		"deploy.key":          "key\n",
		"id_rsa":              "-----BEGIN OPENSSH PRIVATE KEY-----\n",
		"deploy/id_ed25519":   "-----BEGIN OPENSSH PRIVATE KEY-----\n",
		".npmrc":              "//registry.npmjs.org/:_authToken=npm_abc\n",
		"ops/.ssh/config":     "Host x\n",
		"app.log":             "log line\n",
		"keep.log":            "kept\n",
		"build/out.txt":       "built\n",
		"local.txt":           "local\n",
		"sub/local.txt":       "not ignored\n",
		"sub/x.tmp":           "tmp\n",
		"excluded.txt":        "excluded\n",
		"main.go":             "package main\n",
		"secrets.env.example": "not matched: the name does not start with .env\n",
	})
}

func TestSecret(t *testing.T) {
	ws := secretWorkspace(t)
	tests := []struct {
		path string
		want string // part of the reason; "" when not secret
	}{
		{".env", ".env*"},
		{".env.production", ".env*"},
		{"certs/server.pem", "*.pem"},
		{"deploy.key", "*.key"},
		{"id_rsa", "id_rsa*"},
		{"deploy/id_ed25519", "id_ed25519*"},
		{".npmrc", ".npmrc"},
		{"ops/.ssh", ".ssh"},
		{"ops/.ssh/config", ".ssh"},
		{".git", ".git"},
		{".git/config", ".git"},
		{"app.log", `"*.log"`},
		{"build/out.txt", `"build/"`},
		{"build", `"build/"`},
		{"local.txt", `"/local.txt"`},
		{"sub/x.tmp", "sub/.gitignore"},
		{"excluded.txt", ".git/info/exclude"},
		{"keep.log", ""},
		{"sub/local.txt", ""},
		{"main.go", ""},
		{"secrets.env.example", ""},
		{"", ""},
		{"new.txt", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			abs, err := ws.Resolve(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			got := ws.Secret(abs)
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("Secret = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReadToolsRefuseSecrets(t *testing.T) {
	ws := secretWorkspace(t)
	for _, path := range []string{".env", ".env.production", "certs/server.pem", "deploy.key", "id_rsa", ".git/config", "app.log", "build/out.txt", "excluded.txt"} {
		t.Run(path, func(t *testing.T) {
			body, err := run(t, ReadFile(ws), map[string]any{"path": path})
			checkErr(t, err, ErrSecret)
			if err != nil && !strings.Contains(err.Error(), "not shown") {
				t.Errorf("refusal does not say what happened: %v", err)
			}
			if body != "" {
				t.Errorf("body %q", body)
			}
			_, err = run(t, EditFile(ws), map[string]any{"path": path, "old_text": "a", "new_text": "b"})
			checkErr(t, err, ErrSecret)
		})
	}
	// What the user approved, the tools read.
	body, err := ReadFile(ws).run(WithSecrets(context.Background()), map[string]any{"path": ".env"})
	if err != nil || !strings.Contains(body, "sk-live") {
		t.Errorf("approved read = %q, %v", body, err)
	}
	// Plain files still read.
	if body, err := run(t, ReadFile(ws), map[string]any{"path": "keep.log"}); err != nil || body != "kept\n" {
		t.Errorf("keep.log = %q, %v", body, err)
	}
}

// A link with a plain name that leads to a secret is the secret.
func TestReadSecretThroughLink(t *testing.T) {
	ws := secretWorkspace(t)
	for name, target := range map[string]string{"innocent.txt": ".env", "cfg": ".git/config", "keys": "certs"} {
		if err := os.Symlink(target, filepath.Join(ws.Root(), name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range []string{"innocent.txt", "cfg", "keys/server.pem"} {
		_, err := run(t, ReadFile(ws), map[string]any{"path": path})
		checkErr(t, err, ErrSecret)
	}
}

// A protected file renamed, in a folder renamed, or linked under a plain
// name is as secret as it was: protection follows the file, not its path
// (git mv config cfg; read_file cfg/secrets.yml). A file that was never
// protected reads wherever it goes. (A link to a file inside a protected
// folder is not followed: the folders are not looked into at the start.)
func TestProtectionFollowsRenames(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("skipped: protection follows paths only on Windows")
	}
	ws := newWorkspace(t, map[string]string{
		".gitignore":         "config/\nlocal.yml\n",
		"config/secrets.yml": "password: hunter2hunter2\n",
		"local.yml":          "token: abc\n",
		".env":               "API_KEY=sk-live\n",
		"src/main.go":        "package main\n",
	})
	root := ws.Root()
	mustHidden(t, ws) // as the command that moves them does first
	for from, to := range map[string]string{"config": "cfg", "local.yml": "notes.txt", ".env": "env.txt", "src": "code"} {
		if err := os.Rename(filepath.Join(root, from), filepath.Join(root, to)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(root, "notes.txt"), filepath.Join(root, "linked.txt")); err != nil {
		t.Fatal(err)
	}
	for path, was := range map[string]string{"cfg/secrets.yml": "config", "cfg": "config", "notes.txt": "local.yml", "env.txt": ".env", "linked.txt": "local.yml"} {
		_, err := run(t, ReadFile(ws), map[string]any{"path": path})
		checkErr(t, err, ErrSecret)
		if err != nil && !strings.Contains(err.Error(), "it is "+was+", which was protected") {
			t.Errorf("%s: the refusal does not say where it was: %v", path, err)
		}
	}
	if body, err := run(t, ReadFile(ws), map[string]any{"path": "code/main.go"}); err != nil || body != "package main\n" {
		t.Errorf("a plain file moved = %q, %v", body, err)
	}
}

func TestListHidesSecrets(t *testing.T) {
	ws := secretWorkspace(t)
	got, err := run(t, ListFiles(ws), map[string]any{"path": "."})
	if err != nil {
		t.Fatal(err)
	}
	if want := "certs/\ndeploy/\nkeep.log\nmain.go\nops/\nsecrets.env.example\nsub/"; got != want {
		t.Errorf("listing:\n%s\nwant:\n%s", got, want)
	}
	got, _ = run(t, ListFiles(ws), map[string]any{"path": "sub"})
	if got != "local.txt" {
		t.Errorf("listing of sub: %q", got)
	}
	for _, dir := range []string{"certs", "deploy", "ops"} {
		if got, _ = run(t, ListFiles(ws), map[string]any{"path": dir}); !strings.Contains(got, "empty") {
			t.Errorf("listing of %s: %q", dir, got)
		}
	}
	for _, dir := range []string{".git", "build"} {
		_, err := run(t, ListFiles(ws), map[string]any{"path": dir})
		checkErr(t, err, ErrSecret)
	}
	got, _ = ListFiles(ws).run(WithSecrets(context.Background()), map[string]any{"path": "."})
	if !strings.Contains(got, "app.log") || !strings.Contains(got, "build/") {
		t.Errorf("approved listing hides entries:\n%s", got)
	}
}

func TestWritesIntoGitRefused(t *testing.T) {
	ws := secretWorkspace(t)
	for _, tt := range []struct {
		tool Tool
		args map[string]any
	}{
		{WriteFile(ws), map[string]any{"path": ".git/config", "content": "[alias]\n\tx = !id\n"}},
		{WriteFile(ws), map[string]any{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\nid\n"}},
		{EditFile(ws), map[string]any{"path": ".git/hooks/post-checkout", "old_text": "", "new_text": "id\n"}},
		{WriteFile(ws), map[string]any{"path": "sub/.git/config", "content": "x"}},
	} {
		_, err := tt.tool.run(WithSecrets(context.Background()), tt.args)
		checkErr(t, err, ErrProtected)
	}
	if b := readString(t, filepath.Join(ws.Root(), ".git", "config")); b != "[core]\n" {
		t.Errorf(".git/config = %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), ".git", "hooks")); err == nil {
		t.Error(".git/hooks was created")
	}
}

// A repository planted with the file tools, in a folder with no .git in
// its path, is one the user's own git would use later, running what its
// configuration names (hole 1 of the third security round): the write
// that completes the shape, and every write into it, is refused.
func TestPlantingARepositoryRefused(t *testing.T) {
	for _, dir := range []string{"docs/", ""} {
		ws := newWorkspace(t, map[string]string{"README.md": "hi\n"})
		write, edit := WriteFile(ws), EditFile(ws)
		ctx := WithSecrets(context.Background())
		if _, err := write.run(ctx, map[string]any{"path": dir + "objects/info/packs", "content": "\n"}); err != nil {
			t.Fatalf("%sobjects/info/packs: %v", dir, err)
		}
		for _, tt := range []struct {
			tool Tool
			args map[string]any
		}{
			{write, map[string]any{"path": dir + "HEAD", "content": "ref: refs/heads/main\n"}},
			{edit, map[string]any{"path": dir + "HEAD", "old_text": "", "new_text": "ref: refs/heads/main\n"}},
			{write, map[string]any{"path": dir + "./HEAD", "content": "ref: refs/heads/main\n"}},
		} {
			_, err := tt.tool.run(ctx, tt.args)
			checkErr(t, err, ErrProtected)
		}
		if _, err := os.Lstat(filepath.Join(ws.Root(), dir, "HEAD")); err == nil {
			t.Errorf("%sHEAD was written", dir)
		}
	}
	ws := newWorkspace(t, map[string]string{"d/HEAD": "ref: refs/heads/main\n", "d/refs/heads/x": ""})
	_, err := WriteFile(ws).run(context.Background(), map[string]any{"path": "d/config", "content": "[core]\n\tfsmonitor = id\n"})
	checkErr(t, err, ErrProtected)
}

// The git directory is protected wherever .git points: here to gd, as
// git init --separate-git-dir leaves it, and through a commondir file to
// a folder of the workspace (hole 1b of the second security round).
func TestGitDirFollowsThePointer(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		".git":           "gitdir: gd\n",
		"gd/config":      "[core]\n",
		"gd/HEAD":        "ref: refs/heads/main\n",
		"gd/commondir":   "../common\n",
		"common/config":  "[core]\n",
		"common/hooks/x": "",
		"gdx/ok.txt":     "",
		"main.go":        "package main\n",
	})
	ctx := WithSecrets(context.Background())
	for _, tt := range []struct {
		tool Tool
		args map[string]any
	}{
		{WriteFile(ws), map[string]any{"path": "gd/config", "content": "[core]\n\tfsmonitor = ./pwn\n"}},
		{WriteFile(ws), map[string]any{"path": "gd/hooks/post-checkout", "content": "#!/bin/sh\nid\n"}},
		{EditFile(ws), map[string]any{"path": "common/config", "old_text": "[core]", "new_text": "[core]\n\tfsmonitor = ./pwn"}},
		{WriteFile(ws), map[string]any{"path": "common/hooks/pre-commit", "content": "id\n"}},
		{WriteFile(ws), map[string]any{"path": ".git", "content": "gitdir: elsewhere\n"}},
	} {
		_, err := tt.tool.run(ctx, tt.args)
		checkErr(t, err, ErrProtected)
	}
	if readString(t, filepath.Join(ws.Root(), "gd", "config")) != "[core]\n" || readString(t, filepath.Join(ws.Root(), "common", "config")) != "[core]\n" {
		t.Error("a configuration was written")
	}
	if _, err := run(t, WriteFile(ws), map[string]any{"path": "gdx/ok.txt", "content": "fine"}); err != nil {
		t.Errorf("a folder whose name starts like the git directory's: %v", err)
	}
	for _, p := range []string{"gd/config", "common/hooks/x"} {
		abs, _ := ws.Resolve(p)
		if !ws.InGit(abs) || !strings.Contains(ws.Secret(abs), "git directory") {
			t.Errorf("%s: InGit %v, Secret %q", p, ws.InGit(abs), ws.Secret(abs))
		}
	}
	bash := Bash(ws, policy(t), &fakeShell{})
	for _, cmd := range []string{"echo x > gd/config", "cat gd/config", "cat common/config", "touch common/hooks/post-checkout"} {
		if _, err := run(t, bash, map[string]any{"command": cmd}); !errors.Is(err, guard.ErrRefused) {
			t.Errorf("%s: err = %v, want a refusal", cmd, err)
		}
	}
}

func TestSecretRead(t *testing.T) {
	ws := secretWorkspace(t)
	tests := []struct {
		call protocol.Call
		want bool
	}{
		{protocol.Call{Name: "read_file", Args: map[string]any{"path": ".env"}}, true},
		{protocol.Call{Name: "edit_file", Args: map[string]any{"path": "app.log"}}, true},
		{protocol.Call{Name: "list_files", Args: map[string]any{"path": "build"}}, true},
		{protocol.Call{Name: "read_file", Args: map[string]any{"path": "main.go"}}, false},
		{protocol.Call{Name: "list_files", Args: map[string]any{}}, false},
		// Replacing a protected file is asked about as editing it is
		// (hole 7 of the third security round).
		{protocol.Call{Name: "write_file", Args: map[string]any{"path": ".env"}}, true},
		{protocol.Call{Name: "write_file", Args: map[string]any{"path": "app.log"}}, true},
		{protocol.Call{Name: "write_file", Args: map[string]any{"path": "main.go"}}, false},
		{protocol.Call{Name: "read_file", Args: map[string]any{"path": "../x"}}, false},
	}
	for _, tt := range tests {
		if got := ws.secretRead(tt.call); (got != "") != tt.want {
			t.Errorf("secretRead(%s %v) = %q", tt.call.Name, tt.call.Args, got)
		}
	}
}

func TestHidden(t *testing.T) {
	ws := secretWorkspace(t)
	writeFiles(t, ws.Root(), map[string]string{"node_modules/x/test.pem": "", "a/b/.env.local": ""})
	var got []string
	for _, p := range mustHidden(t, ws) {
		got = append(got, ws.Rel(p))
	}
	slices.Sort(got)
	want := []string{".env", ".env.production", ".npmrc", "a/b/.env.local", "app.log", "build", "certs/server.pem", "deploy.key", "deploy/id_ed25519", "excluded.txt", "id_rsa", "local.txt", "ops/.ssh", "sub/x.tmp"}
	if !slices.Equal(got, want) {
		t.Errorf("Hidden = %q, want %q", got, want)
	}
}

// The folders a walk saw are old: the list is not walked again until one
// of them, or an ignore file, changes; a file written in place changes
// neither. Whether a folder changed is told by a watch of the folders
// where the system has one (inotify), and by their times otherwise; a
// watch that fails in the middle of a walk leaves the folders it watched
// to their times.
func TestHiddenWalksOnlyOnChange(t *testing.T) {
	for _, mode := range []string{"watch", "times", "watch lost"} {
		t.Run(mode, func(t *testing.T) {
			ws := secretWorkspace(t)
			ws.hidden.noWatch = mode == "times"
			if mode == "watch lost" {
				ws.hidden.watchMax = 2 // the root and one folder
			}
			// A second name of the root's ignore file, written through
			// below, and a file it will ignore.
			writeFiles(t, ws.Root(), map[string]string{"linked-target.txt": "x"})
			if err := os.Link(filepath.Join(ws.Root(), ".gitignore"), filepath.Join(ws.Root(), "sub", "ignore-link")); err != nil {
				t.Fatal(err)
			}
			age(t, ws.Root())
			ws.Hidden()
			if mode == "watch" && !ws.hidden.watching {
				t.Skip("no folders can be watched here")
			}
			ws.Hidden()
			if n := ws.hidden.walks; n != 1 {
				t.Fatalf("%d walks for two calls on a workspace that did not change", n)
			}
			for _, change := range []struct {
				name  string
				do    func()
				shown string // "": not walked again
			}{
				{"a file written in place", func() { writeFiles(t, ws.Root(), map[string]string{"main.go": "package main // changed\n"}) }, ""},
				{"a new secret in a subfolder", func() { writeFiles(t, ws.Root(), map[string]string{"sub/.env.new": "x"}) }, "sub/.env.new"},
				{"a new folder with a secret", func() { writeFiles(t, ws.Root(), map[string]string{"new/deep/id_rsa": "x"}) }, "new/deep/id_rsa"},
				{"a secret in that new folder", func() { writeFiles(t, ws.Root(), map[string]string{"new/deep/.netrc": "x"}) }, "new/deep/.netrc"},
				{"a secret moved in from outside", func() {
					outside := filepath.Join(t.TempDir(), ".env.moved")
					writeFiles(t, filepath.Dir(outside), map[string]string{".env.moved": "x"})
					if err := os.Rename(outside, filepath.Join(ws.Root(), "sub", ".env.moved")); err != nil {
						t.Skip(err) // another file system
					}
				}, "sub/.env.moved"},
				{"an ignore file changed in place", func() {
					f, err := os.OpenFile(filepath.Join(ws.Root(), "sub", ".gitignore"), os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					f.WriteString("local.txt\n")
					f.Close()
				}, "sub/local.txt"},
				{"an ignore file written through another name", func() {
					f, err := os.OpenFile(filepath.Join(ws.Root(), "sub", "ignore-link"), os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					f.WriteString("linked-target.txt\n")
					f.Close()
				}, "linked-target.txt"},
				{"an ignore file rewritten at its size, its time set back", func() {
					gi := filepath.Join(ws.Root(), ".gitignore")
					fi, err := os.Stat(gi)
					if err != nil {
						t.Fatal(err)
					}
					data, err := os.ReadFile(gi)
					if err != nil {
						t.Fatal(err)
					}
					same := strings.Replace(string(data), "/local.txt", "/secrets.*", 1) // as long
					if len(same) != len(data) || same == string(data) {
						t.Fatalf("no pattern to rewrite at the same size in %q", data)
					}
					writeFiles(t, ws.Root(), map[string]string{".gitignore": same})
					if err := os.Chtimes(gi, fi.ModTime(), fi.ModTime()); err != nil {
						t.Fatal(err)
					}
				}, "secrets.env.example"},
				{".git/info/exclude", func() { writeFiles(t, ws.Root(), map[string]string{".git/info/exclude": "main.go\n"}) }, "main.go"},
			} {
				age(t, ws.Root())
				ws.Hidden() // aging is a change of the folders' times
				before := ws.hidden.walks
				change.do()
				var rel []string
				for _, p := range mustHidden(t, ws) {
					rel = append(rel, ws.Rel(p))
				}
				switch {
				case change.shown == "" && ws.hidden.walks != before:
					t.Errorf("after %s: walked again", change.name)
				case change.shown != "" && (ws.hidden.walks != before+1 || !slices.Contains(rel, change.shown)):
					t.Errorf("after %s: %d walks, hidden %q", change.name, ws.hidden.walks-before, rel)
				}
			}
		})
	}
}

// age makes every folder and file under root an hour old, as if the
// workspace had not changed for that long.
func age(t *testing.T, root string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	// Their change times are now, and no program can set them back: wait
	// until they are old enough to be trusted.
	time.Sleep(fineRacy + 50*time.Millisecond)
}

// A folder or an ignore file changed just before a walk might change again
// within the same tick of the file system's clock, unseen by its time: the
// list is walked again. A watched folder needs no such doubt.
func TestHiddenDistrustsRecentChanges(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string
		times bool
		walks int
	}{
		{"ignore file, watched", map[string]string{".gitignore": "*.log\n", "a/b.go": ""}, false, 2},
		{"folders, by their times", map[string]string{"a/b.go": "", "a/.env": ""}, true, 2},
		{"folders, watched", map[string]string{"a/b.go": "", "a/.env": ""}, false, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, tt.files)
			ws.hidden.noWatch = tt.times
			ws.Hidden()
			if !tt.times && !ws.hidden.watching {
				t.Skip("no folders can be watched here")
			}
			ws.Hidden()
			if ws.hidden.walks != tt.walks {
				t.Errorf("%d walks, want %d", ws.hidden.walks, tt.walks)
			}
		})
	}
}

// mustHidden returns ws.Hidden, failing tb on an error.
func mustHidden(tb testing.TB, ws *Workspace) []string {
	tb.Helper()
	got, err := ws.Hidden()
	if err != nil {
		tb.Fatal(err)
	}
	return got
}

func rels(ws *Workspace, paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, ws.Rel(p))
	}
	slices.Sort(out)
	return out
}

// Past its bound, the list hides the folders that hold the deepest paths
// instead of dropping any: 200 secret-named files made ahead of .env in
// the walk's order do not show it.
func TestHiddenBoundFailsClosed(t *testing.T) {
	files := map[string]string{".gitignore": "*.o\nconfig.local\n", ".env": "x", "config.local": "", "deep/down/.env": "x", "top.o": "", "src/main.go": "", ".devcontainer/devcontainer.json": "{}"}
	for i := range maxHidden {
		files[fmt.Sprintf(".devcontainer/k%d.pem", i)] = ""
		files[fmt.Sprintf("deep/obj%03d.o", i)] = ""
	}
	ws := newWorkspace(t, files)
	got := rels(ws, mustHidden(t, ws))
	want := []string{".devcontainer", ".env", "config.local", "deep", "top.o"}
	if !slices.Equal(got, want) {
		t.Errorf("Hidden = %q, want %q", got, want)
	}
}

// More than the bound right in the root cannot be folded: Hidden fails
// and the bash tool runs nothing.
func TestHiddenTooManyInRoot(t *testing.T) {
	files := map[string]string{".env": "x"}
	for i := range maxHidden {
		files[fmt.Sprintf("k%d.pem", i)] = ""
	}
	ws := newWorkspace(t, files)
	if _, err := ws.Hidden(); !errors.Is(err, ErrHideTooMany) {
		t.Fatalf("Hidden: %v, want ErrHideTooMany", err)
	}
	sh := &fakeShell{}
	_, err := run(t, Bash(ws, policy(t), sh), map[string]any{"command": "ls"})
	if !errors.Is(err, ErrHideTooMany) || len(sh.got) != 0 {
		t.Errorf("bash: %v, ran %d; want ErrHideTooMany and nothing run", err, len(sh.got))
	}
}

// A walk cut at its bound hides whole the top-level folders it did not
// finish, and looks at the names of the top-level files after them.
func TestHiddenScanCutFailsClosed(t *testing.T) {
	files := map[string]string{"a/readme": "", "m/big/x": "", "m/zz/.env": "x", "n/.env": "x", "o/plain": "", "p.pem": "", "q.txt": ""}
	ws := newWorkspace(t, files)
	// The walk sees a, a/readme, m, m/big, m/big/x and stops in m.
	ws.hidden.scan = 5
	cut := rels(ws, mustHidden(t, ws))
	want := []string{"m", "n", "o", "p.pem"}
	if !slices.Equal(cut, want) {
		t.Errorf("Hidden = %q, want %q", cut, want)
	}
}

func TestSecretErrorsWrap(t *testing.T) {
	err := secretError("x", "why")
	if !errors.Is(err, ErrSecret) {
		t.Error("secretError does not wrap ErrSecret")
	}
}

// What the ignore rules of the start ignored stays hidden from commands
// after .gitignore stops ignoring it, as it stays secret to the tools.
func TestHiddenKeepsTheStartRules(t *testing.T) {
	ws := secretWorkspace(t)
	mustHidden(t, ws) // the command that changes .gitignore
	writeFiles(t, ws.Root(), map[string]string{".gitignore": "build/\n"})
	var got []string
	for _, p := range mustHidden(t, ws) {
		got = append(got, ws.Rel(p))
	}
	if !slices.Contains(got, "app.log") || !slices.Contains(got, "local.txt") {
		t.Errorf("what the start rules ignored is no longer hidden: %q", got)
	}
}

// The rules of the start are read when something first needs them, not
// when the workspace is opened: a run that reads files, and lists none,
// runs nothing and writes nothing, never walks the workspace. Until then the rules as they are decide,
// and a file with another name, which may be a link to a protected one,
// has the walk made for it.
func TestStartReadWhenNeeded(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("skipped: protection follows paths only on Windows")
	}
	ws := newWorkspace(t, map[string]string{
		".gitignore":   "config.local\n",
		"config.local": "password = hunter2hunter2\n",
		"AGENTS.md":    "Be brief.\n",
		"sub/a.txt":    "a\n",
	})
	root := ws.Root()
	if why := ws.Secret(filepath.Join(root, "AGENTS.md")); why != "" {
		t.Errorf("AGENTS.md: %q", why)
	}
	if why := ws.Secret(filepath.Join(root, "config.local")); !strings.Contains(why, "config.local") {
		t.Errorf("config.local: %q, want it ignored", why)
	}
	if _, err := run(t, ReadFile(ws), map[string]any{"path": "sub/a.txt"}); err != nil {
		t.Fatal(err)
	}
	if ws.started.Load() {
		t.Fatal("reading plain files read the rules of the start")
	}
	if err := os.Link(filepath.Join(root, "config.local"), filepath.Join(root, "plain.txt")); err != nil {
		t.Skip("no hard links:", err)
	}
	_, err := run(t, ReadFile(ws), map[string]any{"path": "plain.txt"})
	checkErr(t, err, ErrSecret)
	if err != nil && !strings.Contains(err.Error(), "it is config.local, which was protected") {
		t.Errorf("a link to a protected file: %v", err)
	}
	if !ws.started.Load() {
		t.Error("a file with two names did not have the rules of the start read")
	}
	// A listing has them read: it would otherwise look at every file.
	listed := newWorkspace(t, map[string]string{"a.txt": "a\n"})
	if _, err := run(t, ListFiles(listed), map[string]any{"path": "."}); err != nil {
		t.Fatal(err)
	}
	if !listed.started.Load() {
		t.Error("list_files did not read the rules of the start")
	}
}

// The first command's walk of what it must not see reads no folder that
// the walk of the start's rules, just before it, read: it takes over
// that walk's watch of them, which tells that none changed since, and
// finds what a walk of its own would.
func TestHiddenReadsNoFolderTwice(t *testing.T) {
	ws := secretWorkspace(t)
	got := rels(ws, mustHidden(t, ws))
	if !ws.hidden.watching {
		t.Skip("no folders can be watched here")
	}
	if ws.hidden.reads != 0 {
		t.Errorf("read %d folders again", ws.hidden.reads)
	}
	own := secretWorkspace(t)
	own.begin() // the start taken before, by a write: nothing kept
	want := rels(own, mustHidden(t, own))
	if own.hidden.reads == 0 || !slices.Equal(got, want) {
		t.Errorf("Hidden = %q after %d reads, want %q", got, own.hidden.reads, want)
	}
	// Watched since: a change is seen, and the next walk reads.
	writeFiles(t, ws.Root(), map[string]string{"sub/.env.late": "x"})
	if got := rels(ws, mustHidden(t, ws)); !slices.Contains(got, "sub/.env.late") || ws.hidden.reads == 0 {
		t.Errorf("after a change: %d reads, hidden %q", ws.hidden.reads, got)
	}
}

// Where folders are not watched, the first command's walk of what it
// must not see takes the folders the walk of the start's rules read just
// before as it read them, and finds what a walk of its own would; their
// times, from before that walk read them, show a change after.
func TestHiddenReadsNoFolderTwiceByTimes(t *testing.T) {
	ws := secretWorkspace(t)
	age(t, ws.Root())
	ws.hidden.noWatch = true
	got := rels(ws, mustHidden(t, ws))
	if ws.hidden.reads != 0 || ws.hidden.watching {
		t.Errorf("read %d folders again (watching %v)", ws.hidden.reads, ws.hidden.watching)
	}
	own := secretWorkspace(t)
	own.hidden.noWatch = true
	own.begin() // the start taken before, by a write: nothing kept
	if want := rels(own, mustHidden(t, own)); own.hidden.reads == 0 || !slices.Equal(got, want) {
		t.Errorf("Hidden = %q, want %q (read %d)", got, want, own.hidden.reads)
	}
	mustHidden(t, ws)
	if ws.hidden.walks != 1 {
		t.Fatalf("%d walks for two calls on a workspace that did not change", ws.hidden.walks)
	}
	writeFiles(t, ws.Root(), map[string]string{"sub/.env.late": "x"})
	if got := rels(ws, mustHidden(t, ws)); !slices.Contains(got, "sub/.env.late") {
		t.Errorf("after a change: hidden %q", got)
	}
}

// What the start's walk read is given over only when no folder it read
// changed since: an ignore file written in place changes no names.
func TestReadFoldersSeeChanges(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(root string)
		still  bool
	}{
		{"nothing", func(string) {}, true},
		{"a file written in place", func(root string) { writeFiles(t, root, map[string]string{"a/b.go": "package b // changed\n"}) }, true},
		{"a new name", func(root string) { writeFiles(t, root, map[string]string{"a/new.go": ""}) }, false},
		{"an ignore file written", func(root string) { writeFiles(t, root, map[string]string{"a/.gitignore": "b.go\n"}) }, true},
		{"an ignore file made", func(root string) { writeFiles(t, root, map[string]string{"c/.gitignore": "e.go\n"}) }, false},
		{"a name removed", func(root string) { os.Remove(filepath.Join(root, "a", "b.go")) }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, map[string]string{"a/b.go": "package b\n", "a/.gitignore": "*.tmp\n", "c/d/e.go": ""})
			keep := newReadFolders(0, true)
			if !keep.watched() {
				t.Skip("no folders can be watched here")
			}
			defer keep.close()
			startIgnores(root, nil, 100, keep, time.Now())
			if len(keep.entries) != 4 {
				t.Fatalf("kept %d folders, want 4", len(keep.entries))
			}
			tt.change(root)
			if got := keep.still() != nil; got != tt.still {
				t.Errorf("still = %v, want %v", got, tt.still)
			}
		})
	}
}

// A command does not see a protected file under another name: a hard
// link made before the run, or the file renamed after the first command.
// (The first walk looks at each file only when a protected file has more
// than one name.)
func TestHiddenFollowsIdentity(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("skipped: protection follows paths only on Windows")
	}
	ws := newWorkspace(t, map[string]string{".gitignore": "local.yml\n", "local.yml": "token: abc\n", "src/main.go": "package main\n"})
	root := ws.Root()
	if err := os.Link(filepath.Join(root, "local.yml"), filepath.Join(root, "src", "notes.txt")); err != nil {
		t.Skip("no hard links:", err)
	}
	if got := rels(ws, mustHidden(t, ws)); !slices.Equal(got, []string{"local.yml", "src/notes.txt"}) {
		t.Errorf("with a link made before the run: hidden %q", got)
	}
	ws = newWorkspace(t, map[string]string{".gitignore": "local.yml\n", "local.yml": "token: abc\n", "src/main.go": "package main\n"})
	root = ws.Root()
	mustHidden(t, ws)
	if err := os.Rename(filepath.Join(root, "local.yml"), filepath.Join(root, "src", "renamed.txt")); err != nil {
		t.Fatal(err)
	}
	if got := rels(ws, mustHidden(t, ws)); !slices.Equal(got, []string{"src/renamed.txt"}) {
		t.Errorf("after a rename: hidden %q", got)
	}
}

// After a change, a walk looks at the files of only the folders where
// something may have moved in, or been linked anew, since the start: those
// whose times changed. A protected file renamed into one stays hidden.
func TestHiddenFollowsIdentityAfterChanges(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("skipped: protection follows paths only on Windows")
	}
	ws := newWorkspace(t, map[string]string{".gitignore": "local.yml\n", "local.yml": "token: abc\n", "src/main.go": "package main\n", "other/x.go": ""})
	// Read a minute from now, when no folder has changed for a while.
	ws.startOnce.Do(func() {
		ws.start = startIgnores(ws.root, nil, maxSecretScan, nil, time.Now().Add(time.Minute))
		ws.started.Store(true)
	})
	kept := 0
	for _, rel := range []string{"", "src", "other"} {
		if _, ok := ws.start.folders.looked(rel); ok {
			kept++
		}
	}
	if kept != 3 || len(ws.start.folders.at) != 3 {
		t.Fatalf("the start kept the times of %d of its 3 folders, and %d folders in all", kept, len(ws.start.folders.at))
	}
	if got := rels(ws, mustHidden(t, ws)); !slices.Equal(got, []string{"local.yml"}) {
		t.Errorf("hidden %q", got)
	}
	if err := os.Rename(filepath.Join(ws.Root(), "local.yml"), filepath.Join(ws.Root(), "src", "renamed.txt")); err != nil {
		t.Fatal(err)
	}
	if got := rels(ws, mustHidden(t, ws)); !slices.Equal(got, []string{"src/renamed.txt"}) {
		t.Errorf("after a rename: hidden %q", got)
	}
	if ws.start.unmoved(filepath.Join(ws.Root(), "src"), "src") || !ws.start.unmoved(filepath.Join(ws.Root(), "other"), "other") {
		t.Error("unmoved does not tell the folder a file moved into from one left alone")
	}
}
