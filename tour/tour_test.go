package tour

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"harness/xdg"
)

func TestParseStage(t *testing.T) {
	tests := []struct {
		name, archive, err string
	}{
		{"whole", "title: T\nargs: --tools read_file\n-- input --\nhi\n-- model.fake --\n>>>\nhello\n-- ws/a.txt --\nA\n", ""},
		{"no title", "-- input --\nhi\n-- model.fake --\n>>>\nhello\n", "a stage needs a title"},
		{"no input", "title: T\n-- model.fake --\n>>>\nhello\n", "a stage needs a title"},
		{"unknown file", "title: T\n-- input --\nhi\n-- model.fake --\n>>>\n-- notes --\nx\n", "unknown file notes"},
		{"then without its run", "title: T\nthen: -c\n-- input --\nhi\n-- model.fake --\n>>>\nhello\n", "a second run needs"},
		{"second run without then", "title: T\n-- input --\nhi\n-- model.fake --\n>>>\n-- input2 --\nx\n-- model2.fake --\n>>>\n", "a second run needs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseStage(txtar.Parse([]byte(tt.archive)))
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("ParseStage = %v, want an error with %q", err, tt.err)
			}
		})
	}
}

// TestLoad: every stage of the tour reads, says what it must show, and
// the list names them in order.
func TestLoad(t *testing.T) {
	tr, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Stages) < 10 || len(tr.base) == 0 {
		t.Fatalf("%d stages, %d workspace files", len(tr.Stages), len(tr.base))
	}
	var out bytes.Buffer
	tr.List(&out)
	for i, s := range tr.Stages {
		if len(s.Want) == 0 {
			t.Errorf("stage %d says nothing it must show", i+1)
		}
		if !strings.Contains(out.String(), s.Title+"\n") {
			t.Errorf("the list lacks stage %d, %q", i+1, s.Title)
		}
	}
}

// run is one run of the harness as a stage makes it.
type run struct {
	args  []string
	input string
	files []string // in the workspace
	state string   // XDG_STATE_HOME
}

// TestRun: a stage runs the harness in a folder of its own, on its
// workspace, with its script and the tour's settings, a second time only
// when the first ended well, and leaves the folder behind it removed.
func TestRun(t *testing.T) {
	s, err := ParseStage(txtar.Parse([]byte("title: T\nargs: --sandbox bwrap\nthen: -c\n-- input --\nhi\n-- model.fake --\n>>>\nhello\n-- input2 --\nagain\n-- model2.fake --\n>>>\nbye\n-- ws/src/a.txt --\nA\n")))
	if err != nil {
		t.Fatal(err)
	}
	tr := &Tour{Stages: []Stage{s}, base: []txtar.File{{Name: "README.md", Data: []byte("R\n")}}}
	for _, first := range []int{0, 1} {
		var runs []run
		var ws string
		harness := func(_ context.Context, dirs xdg.Dirs, args []string, stdin io.Reader, _, _ io.Writer) int {
			in, _ := io.ReadAll(stdin)
			ws = args[slices.Index(args, "-w")+1]
			var files []string
			filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(ws, p)
					files = append(files, filepath.ToSlash(rel))
				}
				return nil
			})
			runs = append(runs, run{args: args, input: string(in), files: files, state: dirs.Getenv("XDG_STATE_HOME")})
			if len(runs) == 1 {
				return first
			}
			return 0
		}
		var out bytes.Buffer
		code, err := tr.Run(context.Background(), &out, 1, harness)
		if err != nil || code != first {
			t.Fatalf("Run = %d, %v; want %d", code, err, first)
		}
		if want := 2 - first; len(runs) != want {
			t.Fatalf("first run ending %d: %d runs, want %d", first, len(runs), want)
		}
		r := runs[0]
		if want := []string{"--show-wire", "--fake", "", "-w", ws, "--approve", "auto", "--sandbox", "bwrap"}; len(r.args) != len(want) || r.args[0] != want[0] || !slices.Equal(r.args[3:], want[3:]) {
			t.Errorf("args %q, want %q", r.args, want)
		}
		if !slices.Equal(r.files, []string{"README.md", "src/a.txt"}) || r.input != "hi\n" {
			t.Errorf("workspace %q, input %q", r.files, r.input)
		}
		if !strings.HasPrefix(r.state, filepath.Dir(ws)) {
			t.Errorf("state folder %s is not the stage's (%s)", r.state, filepath.Dir(ws))
		}
		if first == 0 && (runs[1].input != "again\n" || runs[1].args[len(runs[1].args)-1] != "-c") {
			t.Errorf("second run: %q, input %q", runs[1].args, runs[1].input)
		}
		if _, err := os.Stat(filepath.Dir(ws)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the stage's folder is left: %v", err)
		}
		if !strings.Contains(out.String(), "What to notice") {
			t.Errorf("output:\n%s", out.String())
		}
	}
	if _, err := tr.Run(context.Background(), io.Discard, 2, nil); !errors.Is(err, ErrNoStage) {
		t.Errorf("Run of stage 2 of 1: %v", err)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"ws": "ws", "a b": "'a b'", "": "''", "x\x00y": `"x\x00y"`} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
