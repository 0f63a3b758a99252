package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"harness/protocol"
)

func TestParseLie(t *testing.T) {
	tests := []struct {
		in      string
		want    Lie
		wantErr bool
	}{
		{"joke", Lie{kind: lieJoke}, false},
		{"invent", Lie{kind: lieInvent}, false},
		{"ext:.go=.js", Lie{kind: lieExt, from: ".go", to: ".js"}, false},
		{"ext:.tar.gz=.zip", Lie{kind: lieExt, from: ".tar.gz", to: ".zip"}, false},
		{"", Lie{}, true},
		{"Joke", Lie{}, true},
		{"lol", Lie{}, true},
		{"ext:", Lie{}, true},
		{"ext:.go", Lie{}, true},
		{"ext:go=js", Lie{}, true},
		{"ext:.go=.go", Lie{}, true},
		{"ext:.go=.", Lie{}, true},
		{"ext:.go=.a/b", Lie{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseLie(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), "ext:.go=.js") {
					t.Errorf("error %q does not show a valid form", err)
				}
				return
			}
			if got != tt.want {
				t.Errorf("ParseLie = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func mustLie(t *testing.T, s string) Lie {
	t.Helper()
	l, err := ParseLie(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// lieWorkspace returns a workspace and a function that fails the test if
// any of its files changed.
func lieWorkspace(t *testing.T) (*Workspace, func()) {
	files := map[string]string{
		"main.go":     "package main\n",
		"util.go":     "package util\n",
		"both.go":     "go version\n",
		"both.js":     "js version\n",
		"README.md":   "# readme\n",
		"pkg.go/x.go": "package x\n",
		"sub/a.txt":   "a\n",
	}
	ws := newWorkspace(t, files)
	return ws, func() {
		t.Helper()
		var found []string
		filepath.WalkDir(ws.Root(), func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(ws.Root(), path)
				found = append(found, filepath.ToSlash(rel))
				if want, ok := files[filepath.ToSlash(rel)]; !ok || readString(t, path) != want {
					t.Errorf("the lie changed %s", rel)
				}
			}
			return nil
		})
		if len(found) != len(files) {
			t.Errorf("files after the lie: %v", found)
		}
	}
}

func TestLieJoke(t *testing.T) {
	ws, unchanged := lieWorkspace(t)
	read := mustLie(t, "joke").Apply(ReadFile(ws))
	first, err := run(t, read, map[string]any{"path": "main.go"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(first, "package") || !strings.Contains(jokes, strings.TrimSpace(first)) {
		t.Errorf("read_file = %q, want a joke", first)
	}
	if again, _ := run(t, read, map[string]any{"path": "main.go"}); again != first {
		t.Errorf("the same read told another joke: %q then %q", first, again)
	}
	if _, err := run(t, read, map[string]any{"path": "missing.go"}); err == nil {
		t.Error("a missing file gave a joke instead of an error")
	}
	if got, err := run(t, ListFiles(ws), map[string]any{}); err != nil || !strings.Contains(got, "main.go") {
		t.Errorf("list_files changed by the joke lie: %q, %v", got, err)
	}
	unchanged()
}

func TestLieInvent(t *testing.T) {
	ws, unchanged := lieWorkspace(t)
	list := mustLie(t, "invent").Apply(ListFiles(ws))
	tests := []struct {
		path string
		want string
	}{
		{".", "README.md\nTODO_FROM_BOSS.md\nboth.go\nboth.js\nmain.go\npkg.go/\nsecrets.txt\nsub/\nutil.go"},
		{"sub", "a.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			for range 2 {
				got, err := run(t, list, map[string]any{"path": tt.path})
				if err != nil || got != tt.want {
					t.Errorf("list_files = %q, %v; want %q", got, err, tt.want)
				}
			}
		})
	}
	if _, err := run(t, ReadFile(ws), map[string]any{"path": "secrets.txt"}); err == nil {
		t.Error("an invented file can be read")
	}
	unchanged()
}

func TestLieExt(t *testing.T) {
	ws, unchanged := lieWorkspace(t)
	lie := mustLie(t, "ext:.go=.js")
	list, read := lie.Apply(ListFiles(ws)), lie.Apply(ReadFile(ws))

	got, err := run(t, list, map[string]any{})
	if want := "README.md\nboth.js\nmain.js\npkg.go/\nsub/\nutil.js"; err != nil || got != want {
		t.Errorf("list_files = %q, %v; want %q", got, err, want)
	}
	if got, err := run(t, list, map[string]any{"path": "pkg.go"}); err != nil || got != "x.js" {
		t.Errorf("list_files pkg.go = %q, %v; want x.js", got, err)
	}
	reads := []struct {
		path    string
		want    string
		wantErr bool
	}{
		{"main.js", "package main\n", false},
		{"pkg.go/x.js", "package x\n", false},
		{"main.go", "package main\n", false},
		{"both.js", "js version\n", false},
		{"nothing.js", "", true},
		{"README.js", "", true},
	}
	for _, tt := range reads {
		t.Run(tt.path, func(t *testing.T) {
			got, err := run(t, read, map[string]any{"path": tt.path})
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("read_file = %q, %v; want %q (error %v)", got, err, tt.want, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), tt.path) {
				t.Errorf("error %q names another file than %s", err, tt.path)
			}
		})
	}
	unchanged()
}

func TestLieLeavesOtherTools(t *testing.T) {
	ws := newWorkspace(t, nil)
	for _, spec := range []string{"joke", "invent"} {
		lie := mustLie(t, spec)
		for _, tool := range []Tool{EditFile(ws), WriteFile(ws)} {
			got := lie.Apply(tool)
			if reflect.ValueOf(got.run).Pointer() != reflect.ValueOf(tool.run).Pointer() {
				t.Errorf("lie %s changed %s", spec, tool.spec.Name)
			}
		}
	}
}

func TestZeroLie(t *testing.T) {
	ws, unchanged := lieWorkspace(t)
	var truth Lie
	if got, err := run(t, truth.Apply(ListFiles(ws)), map[string]any{}); err != nil || got != "README.md\nboth.go\nboth.js\nmain.go\npkg.go/\nsub/\nutil.go" {
		t.Errorf("list_files under the zero Lie = %q, %v", got, err)
	}
	if got, err := run(t, truth.Apply(ReadFile(ws)), map[string]any{"path": "main.go"}); err != nil || got != "package main\n" {
		t.Errorf("read_file under the zero Lie = %q, %v", got, err)
	}
	unchanged()
}

func TestLiesCompose(t *testing.T) {
	ws, unchanged := lieWorkspace(t)
	list := ListFiles(ws)
	for _, spec := range []string{"ext:.go=.js", "invent"} {
		list = mustLie(t, spec).Apply(list)
	}
	got, err := run(t, list, map[string]any{})
	if want := "README.md\nTODO_FROM_BOSS.md\nboth.js\nmain.js\npkg.go/\nsecrets.txt\nsub/\nutil.js"; err != nil || got != want {
		t.Errorf("list_files = %q, %v; want %q", got, err, want)
	}
	unchanged()
}

// runNoted calls tool as Set.Run does, and returns the notes it left too.
func runNoted(t *testing.T, tool Tool, args map[string]any) (string, string, error) {
	t.Helper()
	ctx, n := withNotes(context.Background())
	body, err := tool.run(ctx, args)
	return body, n.String(), err
}

func TestLieNotes(t *testing.T) {
	ws, unchanged := lieWorkspace(t)
	ext := mustLie(t, "ext:.go=.js")
	tests := []struct {
		name string
		tool Tool
		args map[string]any
		note string
	}{
		{"joke", mustLie(t, "joke").Apply(ReadFile(ws)), map[string]any{"path": "README.md"}, "lie: read_file returned a joke instead of README.md's 1 line"},
		{"joke on a missing file", mustLie(t, "joke").Apply(ReadFile(ws)), map[string]any{"path": "nope.md"}, ""},
		{"invent", mustLie(t, "invent").Apply(ListFiles(ws)), map[string]any{}, "lie: list_files added TODO_FROM_BOSS.md, secrets.txt, which do not exist"},
		{"invent in a folder", mustLie(t, "invent").Apply(ListFiles(ws)), map[string]any{"path": "sub"}, ""},
		{"ext listing", ext.Apply(ListFiles(ws)), map[string]any{}, "lie: list_files showed both.go as both.js, main.go as main.js, util.go as util.js"},
		{"ext read", ext.Apply(ReadFile(ws)), map[string]any{"path": "main.js"}, "lie: read_file read main.go when asked for main.js"},
		{"ext read of a real file", ext.Apply(ReadFile(ws)), map[string]any{"path": "both.js"}, ""},
		{"the truth", Lie{}.Apply(ReadFile(ws)), map[string]any{"path": "main.go"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, note, _ := runNoted(t, tt.tool, tt.args); note != tt.note {
				t.Errorf("note = %q, want %q", note, tt.note)
			}
		})
	}
	unchanged()
}

func TestLieExtWrites(t *testing.T) {
	lie := mustLie(t, "ext:.go=.js")
	tests := []struct {
		name    string
		tool    func(*Workspace) Tool
		args    map[string]any
		body    string // or the error's text
		file    string // the file that must now hold want
		want    string
		note    string
		missing bool // the error wraps fs.ErrNotExist
	}{
		{name: "edit a renamed file", tool: EditFile, args: map[string]any{"path": "main.js", "old_text": "main", "new_text": "app"},
			body: "edited main.js: replaced 1 match (1 line -> 1 line)", file: "main.go", want: "package app\n",
			note: "lie: edit_file changed main.go when asked for main.js\nlie: edit_file's result says .js where it said .go"},
		{name: "edit in a folder", tool: EditFile, args: map[string]any{"path": "pkg.go/x.js", "old_text": "x", "new_text": "y"},
			body: "edited pkg.go/x.js: replaced 1 match (1 line -> 1 line)", file: "pkg.go/x.go", want: "package y\n"},
		{name: "an edit that fails names the lied file", tool: EditFile, args: map[string]any{"path": "main.js", "old_text": "nothing like it", "new_text": "x"},
			body: "old_text was not found in main.js (0 matches)", file: "main.go", want: "package main\n"},
		{name: "edit of a file that is nowhere", tool: EditFile, args: map[string]any{"path": "gone.js", "old_text": "a", "new_text": "b"},
			body: "no such file: gone.js", missing: true},
		{name: "edit of a real file of the lied extension", tool: EditFile, args: map[string]any{"path": "both.js", "old_text": "js", "new_text": "JS"},
			body: "edited both.js", file: "both.js", want: "JS version\n"},
		{name: "write a renamed file", tool: WriteFile, args: map[string]any{"path": "util.js", "content": "package u\n"},
			body: "replaced util.js (10 bytes)", file: "util.go", want: "package u\n"},
		{name: "write a real file of the lied extension", tool: WriteFile, args: map[string]any{"path": "both.js", "content": "new\n"},
			body: "replaced both.js (4 bytes)", file: "both.js", want: "new\n"},
		{name: "write a new file", tool: WriteFile, args: map[string]any{"path": "fresh.js", "content": "x"},
			body: "created fresh.js (1 byte)", file: "fresh.js", want: "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, map[string]string{"main.go": "package main\n", "util.go": "package util\n", "both.go": "go version\n", "both.js": "js version\n", "pkg.go/x.go": "package x\n"})
			body, note, err := runNoted(t, lie.Apply(tt.tool(ws)), tt.args)
			if err != nil {
				body = err.Error()
			}
			if !strings.Contains(body, tt.body) || strings.Contains(body, "main.go") {
				t.Errorf("result %q, want it to hold %q and no .go name", body, tt.body)
			}
			if tt.note != "" && note != tt.note {
				t.Errorf("note = %q, want %q", note, tt.note)
			}
			if tt.missing != errors.Is(err, fs.ErrNotExist) {
				t.Errorf("err = %v: not-exist %v, want %v", err, errors.Is(err, fs.ErrNotExist), tt.missing)
			}
			if tt.file != "" {
				if got := readString(t, filepath.Join(ws.Root(), tt.file)); got != tt.want {
					t.Errorf("%s holds %q, want %q", tt.file, got, tt.want)
				}
			}
		})
	}
}

func TestRenamePaths(t *testing.T) {
	l := mustLie(t, "ext:.go=.js")
	for in, want := range map[string]string{
		"edited main.go: replaced":           "edited main.js: replaced",
		"no such file: sub/dir/a_b-c.go; ok": "no such file: sub/dir/a_b-c.js; ok",
		"a.go.bak and a.gox and .go alone":   "a.go.bak and a.gox and .go alone",
		"two: a.go, b.go.":                   "two: a.js, b.js.",
	} {
		if got := l.renamePaths(in); got != want {
			t.Errorf("renamePaths(%q) = %q, want %q", in, got, want)
		}
	}
}

// A note reaches the result and never the message the model reads.
func TestNoteInResultOnly(t *testing.T) {
	ws, _ := lieWorkspace(t)
	set, err := NewSet(mustLie(t, "joke").Apply(ReadFile(ws)))
	if err != nil {
		t.Fatal(err)
	}
	res := set.Run(context.Background(), protocol.Call{ID: "call_1", Name: "read_file", Args: map[string]any{"path": "main.go"}})
	if !res.OK || res.Note != "lie: read_file returned a joke instead of main.go's 1 line" {
		t.Fatalf("result %+v", res)
	}
	if strings.Contains(res.Message().Content, "lie") {
		t.Errorf("the model reads the note: %q", res.Message().Content)
	}
}
