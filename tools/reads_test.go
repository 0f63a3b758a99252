package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"harness/guard"
	"harness/protocol"
)

// inspecting is the tool set of ws, its long results kept, as the
// approval step inspects it.
func inspecting(t *testing.T, ws *Workspace, p *guard.Policy) *Outputs {
	t.Helper()
	set, err := NewSet(ReadFile(ws), ListFiles(ws), EditFile(ws), WriteFile(ws), Bash(ws, p, nil))
	if err != nil {
		t.Fatal(err)
	}
	o := WithOutputs(set, "")
	t.Cleanup(func() { o.Close() })
	return o
}

func TestInspectReads(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		"notes.txt": "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n",
		"sub/a.txt": "a\n",
		"main.go":   "package main\n",
	})
	if err := os.Symlink("notes.txt", filepath.Join(ws.Root(), "innocent")); err != nil {
		t.Fatal(err)
	}
	ts := inspecting(t, ws, policy(t))
	tests := []struct {
		call protocol.Call
		want []string
	}{
		{protocol.Call{Name: readName, Args: map[string]any{"path": "notes.txt", "offset": 2}}, []string{"notes.txt"}},
		{protocol.Call{Name: readName, Args: map[string]any{"path": "innocent"}}, []string{"notes.txt"}},
		{protocol.Call{Name: editName, Args: map[string]any{"path": "notes.txt", "old_text": "a", "new_text": "b"}}, []string{"notes.txt"}},
		{protocol.Call{Name: editName, Args: map[string]any{"path": "new.txt", "old_text": "", "new_text": "b"}}, nil},
		{protocol.Call{Name: listName, Args: map[string]any{"path": "."}}, nil},
		{protocol.Call{Name: outputName, Args: map[string]any{"ref": "out_3"}}, []string{"output:out_3"}},
		{protocol.Call{Name: bashName, Args: map[string]any{"command": "rev notes.txt"}}, []string{"notes.txt"}},
		{protocol.Call{Name: bashName, Args: map[string]any{"command": "xxd -g1 notes.txt | head"}}, []string{"notes.txt"}},
		{protocol.Call{Name: bashName, Args: map[string]any{"command": "od -c innocent"}}, []string{"notes.txt"}},
		{protocol.Call{Name: bashName, Args: map[string]any{"command": "cut -c1-9 notes.txt sub/a.txt"}}, []string{"notes.txt", "sub/a.txt"}},
		{protocol.Call{Name: bashName, Args: map[string]any{"command": "tr a b < notes.txt"}}, []string{"notes.txt"}},
		{protocol.Call{Name: bashName, Args: map[string]any{"command": "cat *.txt"}}, []string{"notes.txt"}},
		{protocol.Call{Name: bashName, Args: map[string]any{"command": "echo x > out.txt; ls sub"}}, nil},
		{protocol.Call{Name: bashName, Args: map[string]any{"command": "ls -l notes.txt && wc -l notes.txt"}}, nil}, // names and counts only
		{protocol.Call{Name: bashName, Args: map[string]any{"command": "git show HEAD:notes.txt | rev"}}, []string{"notes.txt"}},
		{protocol.Call{Name: bashName, Args: map[string]any{"command": "rm notes.txt"}}, nil}, // refused
		// A folder is read whole: every file under it, as list_files shows them.
		{protocol.Call{Name: bashName, Args: map[string]any{"command": "grep -r x ."}}, []string{"main.go", "notes.txt", "sub/a.txt"}},
		{protocol.Call{Name: bashName, Args: map[string]any{"command": "grep -r . sub | rev"}}, []string{"main.go", "notes.txt", "sub/a.txt"}}, // the root counts as searched
		{protocol.Call{Name: bashName, Args: map[string]any{"command": "git diff --no-index main.go sub"}}, []string{"main.go", "sub/a.txt"}},
		{protocol.Call{Name: bashName, Args: map[string]any{"command": "diff -r sub sub"}}, []string{"sub/a.txt"}},
		{protocol.Call{Name: bashName, Args: map[string]any{"command": "cat sub | rev"}}, []string{"sub/a.txt"}},
		{protocol.Call{Name: bashName, Args: map[string]any{"command": "ls sub; find sub -name a.txt"}}, nil}, // names only
	}
	for _, tt := range tests {
		got := ts.Inspect(context.Background(), tt.call).Reads
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s %v: reads %q, want %q", tt.call.Name, tt.call.Args, got, tt.want)
		}
	}
}

// A command whose check the guard's time limit ends is refused: what it
// reads is found by the same check, never taken for nothing.
func TestInspectRefusesUnchecked(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"notes.txt": "notes\n"})
	p := policy(t)
	ts := inspecting(t, ws, p)
	call := protocol.Call{Name: bashName, Args: map[string]any{"command": "rev notes.txt"}}
	if in := ts.Inspect(t.Context(), call); in.Refusal != nil || in.Secret != "" || !slices.Equal(in.Reads, []string{"notes.txt"}) {
		t.Fatalf("a plain read: %+v", in)
	}
	p.SetCheckLimit(time.Nanosecond)
	if in := ts.Inspect(t.Context(), call); !errors.Is(in.Refusal, guard.ErrRefused) || in.With != nil {
		t.Errorf("the check ran out of time: %+v", in)
	}
}

func TestSourcesLeak(t *testing.T) {
	rows := strings.Repeat("row,1234567890\n", (5<<20)/15) // past 4 MiB
	ws := newWorkspace(t, map[string]string{
		"notes.txt":      "milk\n",
		"key.txt":        "-----BEGIN RSA PRIVATE KEY-----\n",
		"rows.csv":       rows,
		"tail.csv":       rows + "-----BEGIN RSA PRIVATE KEY-----\n", // the whole file is checked
		"sub/secret.txt": "-----BEGIN RSA PRIVATE KEY-----\n",
		"sub/dir/a.txt":  "a\n",
	})
	if err := mkfifo(filepath.Join(ws.Root(), "pipe")); err != nil {
		t.Skip("no named pipes:", err)
	}
	// A key outside the workspace, which a link in it leads to, is not
	// read; a link to one inside is.
	outside := filepath.Join(t.TempDir(), "key.txt")
	if err := os.WriteFile(outside, []byte("-----BEGIN RSA PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws.Root(), "out-link")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := os.Symlink("key.txt", filepath.Join(ws.Root(), "in-link")); err != nil {
		t.Fatal(err)
	}
	// A link, then "..": the name leads to sub/secret.txt, not to
	// secret.txt (there is none) as its text would say once cleaned.
	if err := os.Symlink(filepath.Join("sub", "dir"), filepath.Join(ws.Root(), "link")); err != nil {
		t.Fatal(err)
	}
	out := WithOutputs(mustSet(t), "")
	t.Cleanup(func() { out.Close() })
	keepBody(t, out, "call_3", "password = hunter2hunter2")
	src := NewSources(ws, out)
	for name, want := range map[string]string{
		"notes.txt":                           "",
		"key.txt":                             "a private key",
		"rows.csv":                            "",
		"tail.csv":                            "a private key",
		"pipe":                                "", // never blocks
		"missing":                             "",
		"../x":                                "",
		"out-link":                            "",
		"in-link":                             "a private key",
		"link/../secret.txt":                  "a private key",
		"./notes.txt":                         "",
		filepath.Join(ws.Root(), "key.txt"):   "a private key",
		filepath.Join(ws.Root(), "notes.txt"): "",
		filepath.Join(ws.Root(), "out-link"):  "",
		filepath.Join(filepath.Dir(outside), "key.txt"): "",
		"output:out_3": "a password or token assignment",
		"output:out_4": "",
	} {
		if got := src.Leak(name); got != want {
			t.Errorf("Leak(%q) = %q, want %q", name, got, want)
		}
	}
}

// What a file seems to hold is kept for its version, once that version is
// old enough for a change to show in its times; a file changed since is
// read again, even at its size with its modification time set back.
func TestSourcesLeakPerVersion(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "just some notes for later\n", "new.txt": "fresh\n"})
	src := NewSources(ws, nil)
	abs := filepath.Join(ws.Root(), "a.txt")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(abs, old, old); err != nil {
		t.Fatal(err)
	}
	// A change time cannot be set back: the cache is tried as if the
	// clock had moved on.
	fi, err := os.Stat(abs)
	if err != nil {
		t.Fatal(err)
	}
	changed := time.Unix(0, changeTime(fi))
	if _, settled := versionOf(fi, changed.Add(time.Millisecond)); settled {
		t.Fatal("a file changed just now is settled")
	}
	if _, settled := versionOf(fi, time.Now().Add(time.Minute)); !settled {
		t.Fatal("a file changed a minute ago is not settled")
	}
	// Leak sees the clock as it was just after the change.
	src.now = func() time.Time { return changed.Add(time.Millisecond) }
	if got := src.Leak("a.txt"); got != "" {
		t.Fatalf("Leak = %q", got)
	}
	if _, ok := src.leaks.files[abs]; ok {
		t.Fatal("kept the answer for a version changed just now")
	}
	v, _ := versionOf(fi, time.Now())
	src.leaks.put(abs, v, "") // as if it had been read a minute later
	// The same size, and the same modification time: only the change
	// time tells.
	if err := os.WriteFile(abs, []byte("password=hunter2hunter222\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(abs, old, old); err != nil {
		t.Fatal(err)
	}
	if got := src.Leak("a.txt"); got != "a password or token assignment" {
		t.Errorf("Leak after a change = %q, want the new secret found", got)
	}
}

func mustSet(t *testing.T) *Set {
	t.Helper()
	s, err := NewSet()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The ignore rules read when the run started keep protecting what they
// ignored, whatever .gitignore says later; new rules add to them. The
// first write of the run reads them, before it changes anything.
func TestIgnoreRulesOnlyGrow(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		".gitignore":     "config.local\n",
		"sub/.gitignore": "*.tmp\n",
		"config.local":   "password = hunter2hunter2\n",
		"sub/x.tmp":      "tmp\n",
		"later.txt":      "later\n",
	})
	if ws.started.Load() {
		t.Fatal("the rules of the start were read before anything needed them")
	}
	for name, text := range map[string]string{".gitignore": "!config.local\nlater.txt\n", "sub/.gitignore": ""} {
		if _, err := run(t, WriteFile(ws), map[string]any{"path": name, "content": text}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"config.local", "sub/x.tmp", "later.txt"} {
		if ws.Secret(filepath.Join(ws.Root(), name)) == "" {
			t.Errorf("%s is no longer secret", name)
		}
	}
	if why := ws.Secret(filepath.Join(ws.Root(), "config.local")); !strings.Contains(why, "when the run started") {
		t.Errorf("config.local: %q", why)
	}
}

func TestExposes(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		".gitignore":   "config.local\n*.log\nbuild/\n",
		"config.local": "secret\n",
		"app.log":      "log\n",
		"build/out":    "out\n",
		"main.go":      "package main\n",
	})
	write := func(path, content string) protocol.Call {
		return protocol.Call{Name: writeName, Args: map[string]any{"path": path, "content": content}}
	}
	edit := func(old, new string) protocol.Call {
		return protocol.Call{Name: editName, Args: map[string]any{"path": ".gitignore", "old_text": old, "new_text": new}}
	}
	tests := []struct {
		call protocol.Call
		want string // "" for no warning
	}{
		{write(".gitignore", "*.log\n"), "would stop ignoring build/out, config.local, which are protected"},
		{write(".gitignore", "*.log\n!app.log\nconfig.local\nbuild/\n"), "would stop ignoring app.log,"},
		{edit("config.local\n", ""), "would stop ignoring config.local,"},
		{edit("config.local\n", "config.local\nmore\n"), ""},
		{edit("no such text", ""), ""},
		{write(".gitignore", "config.local\n*.log\nbuild/\nmore\n"), ""},
		{write("notes.txt", ""), ""},
		{protocol.Call{Name: readName, Args: map[string]any{"path": ".gitignore"}}, ""},
	}
	for _, tt := range tests {
		got := ws.exposes(tt.call)
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("%v: %q, want %q", tt.call.Args, got, tt.want)
		}
	}
}

// A command that reads a folder reads the protected files in it when
// commands see them (no sandbox hides them): Reads and Secret name them.
// When a sandbox hides them, neither does; the folder's other files are
// read either way.
func TestSourcesSeeHidden(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		".env":         "API_KEY=x\n",
		".gitignore":   "config.local\n",
		"config.local": "password = x\n",
		"sub/a.txt":    "a\n",
	})
	ts := inspecting(t, ws, policy(t))
	see := false
	ws.CommandsSeeHidden(func() bool { return see })
	grep := protocol.Call{Name: bashName, Args: map[string]any{"command": "grep -r '' . | rev"}}
	ctx := t.Context()
	if got := ts.Inspect(ctx, grep).Reads; !slices.Equal(got, []string{"sub/a.txt"}) {
		t.Errorf("sandboxed: reads %q, want only sub/a.txt", got)
	}
	if why := ts.Inspect(ctx, grep).Secret; why != "" {
		t.Errorf("sandboxed: secret %q", why)
	}
	see = true
	if got := ts.Inspect(ctx, grep).Reads; !slices.Contains(got, ".env") || !slices.Contains(got, "config.local") {
		t.Errorf("unsandboxed: reads %q, want .env and config.local", got)
	}
	if why := ts.Inspect(ctx, grep).Secret; !strings.Contains(why, ".env") || !strings.Contains(why, "config.local") {
		t.Errorf("unsandboxed: secret %q", why)
	}
	if why := ts.Inspect(ctx, protocol.Call{Name: bashName, Args: map[string]any{"command": "cat sub/a.txt"}}).Secret; why != "" {
		t.Errorf("a plain read: secret %q", why)
	}
	if why := ts.Inspect(ctx, protocol.Call{Name: readName, Args: map[string]any{"path": ".env"}}).Secret; why == "" {
		t.Error("read_file .env: not secret")
	}
}

// A folder with more files than are named for one call is asked about as
// a whole, naming it; one within the bound is not.
func TestInspectReadsLargeFolder(t *testing.T) {
	files := map[string]string{"small/a.txt": "a\n"}
	for i := range maxReads + 1 {
		files[fmt.Sprintf("big/%d/f.txt", i)] = "x\n"
	}
	ws := newWorkspace(t, files)
	ts := inspecting(t, ws, policy(t))
	in := ts.Inspect(t.Context(), protocol.Call{Name: bashName, Args: map[string]any{"command": "diff -r big big | rev"}})
	if !strings.Contains(in.Secret, "it reads the folder big, which holds more files than can be checked") || len(in.Reads) != maxReads {
		t.Errorf("a large folder: secret %q, %d reads", in.Secret, len(in.Reads))
	}
	in = ts.Inspect(t.Context(), protocol.Call{Name: bashName, Args: map[string]any{"command": "diff -r small small | rev"}})
	if in.Secret != "" || !slices.Equal(in.Reads, []string{"small/a.txt"}) {
		t.Errorf("a small folder: secret %q, reads %q", in.Secret, in.Reads)
	}
}

// TestSettledByGrain checks how long a version must be old to be trusted:
// a tenth of a second where its times hold parts of a second, two
// seconds where they are whole seconds, which a coarse clock gives.
func TestSettledByGrain(t *testing.T) {
	fine := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)
	whole := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		mod    time.Time
		change time.Time
		after  time.Duration
		want   bool
	}{
		{"fine, 50 ms", fine, fine, 50 * time.Millisecond, false},
		{"fine, 150 ms", fine, fine, 150 * time.Millisecond, true},
		{"fine change, whole modification, 150 ms", whole, fine, 150 * time.Millisecond, true},
		{"modified just before now, changed long ago", fine.Add(time.Hour), fine, time.Hour, false},
		{"whole, 150 ms", whole, whole, 150 * time.Millisecond, false},
		{"whole, 1.5 s", whole, whole, 1500 * time.Millisecond, false},
		{"whole, 2.5 s", whole, whole, 2500 * time.Millisecond, true},
	} {
		now := tc.change.Add(tc.after) // the change is the later time here
		st := stamp{exists: true, mod: tc.mod, change: tc.change.UnixNano()}
		if got := settled(st, now); got != tc.want {
			t.Errorf("%s: settled = %v, want %v", tc.name, got, tc.want)
		}
		m := folderMark{mod: tc.mod.UnixNano(), change: tc.change.UnixNano()}
		if got := m.settledBy(now, racyFor); got != tc.want {
			t.Errorf("%s: settledBy = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRecentByChangeTime checks that a folder or ignore file whose
// modification time was set back after a change counts as recent: its
// change time, which no program sets back, is what tells.
func TestRecentByChangeTime(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)
	for _, tc := range []struct {
		name   string
		st     stamp
		recent bool
	}{
		{"old", stamp{exists: true, mod: now.Add(-time.Hour), change: now.Add(-time.Hour).UnixNano()}, false},
		{"time set back", stamp{exists: true, mod: now.Add(-time.Hour), change: now.Add(-time.Millisecond).UnixNano()}, true},
		{"modified just now", stamp{exists: true, mod: now.Add(-time.Millisecond), change: now.Add(-time.Millisecond).UnixNano()}, true},
		{"gone", stamp{}, false},
	} {
		if got := recent(map[string]stamp{"x": tc.st}, now); got != tc.recent {
			t.Errorf("%s: recent = %v, want %v", tc.name, got, tc.recent)
		}
	}
}

// A bounded cache forgets every entry when one more would pass its
// bound, and keeps the new one.
func TestPutBounded(t *testing.T) {
	var m map[string]int
	for i := range 3 {
		putBounded(&m, fmt.Sprint(i), i, 3)
	}
	if len(m) != 3 {
		t.Fatalf("%d entries under the bound, want 3", len(m))
	}
	putBounded(&m, "x", 9, 3)
	if len(m) != 1 || m["x"] != 9 {
		t.Errorf("past the bound: %v, want only x", m)
	}
}
