package tools

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
	for _, spec := range []string{"joke", "invent", "ext:.go=.js"} {
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
