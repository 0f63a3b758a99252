package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
		{protocol.Call{Name: "write_file", Args: map[string]any{"path": ".env"}}, false},
		{protocol.Call{Name: "read_file", Args: map[string]any{"path": "../x"}}, false},
	}
	for _, tt := range tests {
		if got := ws.SecretRead(tt.call); (got != "") != tt.want {
			t.Errorf("SecretRead(%s %v) = %q", tt.call.Name, tt.call.Args, got)
		}
	}
}

func TestSecretFiles(t *testing.T) {
	ws := secretWorkspace(t)
	writeFiles(t, ws.Root(), map[string]string{"node_modules/x/test.pem": "", "a/b/.env.local": ""})
	var got []string
	for _, p := range ws.SecretFiles(1000) {
		got = append(got, ws.Rel(p))
	}
	slices.Sort(got)
	want := []string{".env", ".env.production", ".npmrc", "a/b/.env.local", "certs/server.pem", "deploy.key", "deploy/id_ed25519", "id_rsa", "ops/.ssh"}
	if !slices.Equal(got, want) {
		t.Errorf("SecretFiles = %q, want %q", got, want)
	}
	if n := len(ws.SecretFiles(2)); n > 2 {
		t.Errorf("the limit was not kept: %d files", n)
	}
}

func TestSecretErrorsWrap(t *testing.T) {
	err := secretError("x", "why")
	if !errors.Is(err, ErrSecret) {
		t.Error("secretError does not wrap ErrSecret")
	}
}
