package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEditFile(t *testing.T) {
	tests := []struct {
		name     string
		file     string // content of notes.txt before; "" means absent
		args     map[string]any
		want     string   // body
		wantErr  error    // errors.Is target
		mentions []string // facts the error must state
		after    string   // content of the edited path after; "" means unchanged
		path     string   // the path edited, when not notes.txt
	}{
		{name: "one match",
			file:  "alpha\nbeta\ngamma\n",
			args:  map[string]any{"old_text": "beta\n", "new_text": "beta\nbeta two\n"},
			want:  "edited notes.txt: replaced 1 match (1 line -> 2 lines)",
			after: "alpha\nbeta\nbeta two\ngamma\n"},
		{name: "several lines",
			file:  "a\nb\nc\nd\n",
			args:  map[string]any{"old_text": "a\nb\nc", "new_text": "x\ny\nz\nw"},
			want:  "edited notes.txt: replaced 1 match (3 lines -> 4 lines)",
			after: "x\ny\nz\nw\nd\n"},
		{name: "delete",
			file:  "keep\ndrop\n",
			args:  map[string]any{"old_text": "drop\n", "new_text": ""},
			want:  "edited notes.txt: replaced 1 match (1 line -> 0 lines)",
			after: "keep\n"},
		{name: "block at an unterminated last line",
			file:  "a\nlast",
			args:  map[string]any{"old_text": "last\n", "new_text": "final\n"},
			want:  "edited notes.txt: replaced 1 match (1 line -> 1 line)",
			after: "a\nfinal"},
		{name: "no match",
			file:     "alpha\nbeta\n",
			args:     map[string]any{"old_text": "delta", "new_text": "x"},
			wantErr:  errAny,
			mentions: []string{"0 matches", "nothing was written"}},
		{name: "two matches",
			file:     "x = 1\ny = 2\nx = 1\n",
			args:     map[string]any{"old_text": "x = 1", "new_text": "x = 3"},
			wantErr:  errAny,
			mentions: []string{"2 times", "lines 1, 3", "nothing was written"}},
		{name: "overlapping matches",
			file:     "aaa\n",
			args:     map[string]any{"old_text": "aa", "new_text": "b"},
			wantErr:  errAny,
			mentions: []string{"2 times", "nothing was written"}},
		{name: "missing file",
			args:    map[string]any{"old_text": "a", "new_text": "b"},
			wantErr: fs.ErrNotExist},
		{name: "create",
			args:  map[string]any{"path": "dir/sub/new.txt", "old_text": "", "new_text": "hello world\n"},
			want:  "created dir/sub/new.txt (12 bytes)",
			path:  "dir/sub/new.txt",
			after: "hello world\n"},
		{name: "create over existing",
			file:     "precious\n",
			args:     map[string]any{"old_text": "", "new_text": "oops"},
			wantErr:  errAny,
			mentions: []string{"already exists", "nothing was written", "write_file"}},
		{name: "outside",
			args:    map[string]any{"path": "../notes.txt", "old_text": "", "new_text": "x"},
			wantErr: ErrOutsideWorkspace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			if tt.file != "" {
				files["notes.txt"] = tt.file
			}
			ws := newWorkspace(t, files)
			if _, ok := tt.args["path"]; !ok {
				tt.args["path"] = "notes.txt"
			}
			got, err := run(t, EditFile(ws), tt.args)
			checkErr(t, err, tt.wantErr)
			for _, m := range tt.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not say %q", err, m)
				}
			}
			if got != tt.want {
				t.Errorf("body = %q, want %q", got, tt.want)
			}
			path := filepath.Join(ws.Root(), "notes.txt")
			if tt.path != "" {
				path = filepath.Join(ws.Root(), filepath.FromSlash(tt.path))
			}
			switch {
			case tt.after != "":
				if got := readString(t, path); got != tt.after {
					t.Errorf("file = %q, want %q", got, tt.after)
				}
			case tt.file != "":
				if got := readString(t, path); got != tt.file {
					t.Errorf("file changed to %q; it must stay %q", got, tt.file)
				}
			}
			noTempFiles(t, filepath.Dir(ws.Root()))
		})
	}
}

func TestEditFileKeepsMode(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"run.sh": "echo hi\n"})
	path := filepath.Join(ws.Root(), "run.sh")
	if err := os.Chmod(path, 0o750); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, EditFile(ws), map[string]any{"path": "run.sh", "old_text": "hi", "new_text": "bye"}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o750 {
		t.Errorf("mode = %v, want 0750", fi.Mode().Perm())
	}
}

func TestEditFileCreateMode(t *testing.T) {
	ws := newWorkspace(t, nil)
	if _, err := run(t, EditFile(ws), map[string]any{"path": "new.txt", "old_text": "", "new_text": "x"}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(ws.Root(), "new.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != newFileMode {
		t.Errorf("mode = %v, want %v", fi.Mode().Perm(), newFileMode)
	}
}

// Editing through a symlink inside the workspace edits its target and
// leaves the link a link.
func TestEditFileThroughLink(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"real.txt": "old\n"})
	link := filepath.Join(ws.Root(), "link.txt")
	if err := os.Symlink("real.txt", link); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, EditFile(ws), map[string]any{"path": "link.txt", "old_text": "old", "new_text": "new"}); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, filepath.Join(ws.Root(), "real.txt")); got != "new\n" {
		t.Errorf("target = %q, want %q", got, "new\n")
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link.txt is no longer a symlink (%v)", err)
	}
}
