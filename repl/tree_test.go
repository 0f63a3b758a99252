package repl

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"harness/protocol"
	"harness/tools"
	"harness/view"
)

// countingTools runs calls on a tool set, and counts them by tool.
type countingTools struct {
	set   *tools.Set
	calls map[string]int
}

func (c *countingTools) Run(ctx context.Context, call protocol.Call) protocol.Result {
	c.calls[call.Name]++
	return c.set.Run(ctx, call)
}

// attachWorkspace makes the files (a name ending in / is a folder) in a
// new workspace, attaches "@workspace" there, and returns the listing
// attached, the line shown, and the tools' calls.
func attachWorkspace(t *testing.T, files []string) (listing, shown string, calls map[string]int) {
	t.Helper()
	dir := t.TempDir()
	for _, name := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	set, err := tools.NewSet(tools.ListFiles(ws), tools.ReadFile(ws))
	if err != nil {
		t.Fatal(err)
	}
	ct := &countingTools{set: set, calls: map[string]int{}}
	a := &Attacher{WS: ws, Tools: ct}
	var log bytes.Buffer
	got := a.Attach(context.Background(), "here @workspace", &log, view.Style(false))
	const head, tail = "here @workspace\n\n--- workspace listing (attached) ---\n", "\n--- end of workspace listing ---"
	body, okHead := strings.CutPrefix(got, head)
	body, okTail := strings.CutSuffix(body, tail)
	if !okHead || !okTail {
		t.Fatalf("no listing attached: %q; shown %q", got, log.String())
	}
	return body, log.String(), ct.calls
}

// TestWorkspaceTree: @workspace attaches the workspace's tree, each
// folder's entries under it, with hidden, ignored and secret entries
// left out, as list_files leaves them out.
func TestWorkspaceTree(t *testing.T) {
	listing, shown, calls := attachWorkspace(t, []string{
		"notes.txt", "server.key", ".env",
		"src/app.go", "src/vendor/x.go", "src/vendor/y.go", "src/.hidden/z.go",
		"build/out.bin", "a/b/c/d/deep.txt", "empty/",
	})
	want := strings.Join([]string{
		"a/",
		"  b/",
		"    c/",
		"      d/",
		"        deep.txt",
		"build/",
		"  out.bin",
		"empty/",
		"  [empty is empty (hidden entries are not listed)]",
		"notes.txt",
		"src/",
		"  app.go",
		"  vendor/",
		"    x.go",
		"    y.go",
	}, "\n")
	if listing != want {
		t.Errorf("listing:\n%s\nwant:\n%s", listing, want)
	}
	if shown != "attached: workspace listing, 14 entries\n" {
		t.Errorf("shown %q", shown)
	}
	if calls["list_files"] != 9 || len(calls) != 1 {
		t.Errorf("calls %v, want list_files once a folder", calls)
	}
}

// TestWorkspaceTreeIgnored: what the workspace's ignore rules leave out
// is not listed, nor looked into.
func TestWorkspaceTreeIgnored(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		".gitignore": "build/\n*.log\n", "a.go": "package a\n", "run.log": "x\n",
		"build/out.bin": "x\n", "src/b.go": "package src\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	set, err := tools.NewSet(tools.ListFiles(ws))
	if err != nil {
		t.Fatal(err)
	}
	a := &Attacher{WS: ws, Tools: set}
	tree, err := a.tree(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tree.String(), "a.go\nsrc/\n  b.go\n"; got != want {
		t.Errorf("listing %q, want %q", got, want)
	}
}

// TestWorkspaceTreeBounds: a listing stops at its bounds, breadth first,
// and says what it left out.
func TestWorkspaceTreeBounds(t *testing.T) {
	t.Run("lines", func(t *testing.T) {
		// list_files shows a folder's first 1000 entries, and says so.
		files := []string{"small/one.txt", "z.txt"}
		for i := range 1200 {
			files = append(files, fmt.Sprintf("big/f%04d", i))
		}
		for i := range 1000 {
			files = append(files, fmt.Sprintf("big2/f%04d", i))
		}
		listing, shown, _ := attachWorkspace(t, files)
		lines := strings.Split(listing, "\n")
		want := []string{"  f0995", "  … 4 more entries in big2", "small/", "z.txt", "… 1 more folder not listed, to keep this listing short; list_files lists one"}
		if n := len(lines); n != treeLines+3 {
			t.Errorf("%d lines; want the bound %d and three notes", n, treeLines)
		}
		if got := strings.Join(lines[:2], "\n") + "\n" + strings.Join(lines[1000:1003], "\n"); got != "big/\n  f0000\n  f0999\n  [200 more entries not shown; list a subdirectory to narrow it]\nbig2/" {
			t.Errorf("not big's first 1000 entries and the tool's note, then big2: %q", got)
		}
		if got := lines[max(0, len(lines)-len(want)):]; strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("the listing ends with %q, want %q", got, want)
		}
		if shown != "attached: workspace listing, 2000 entries (1 folder not listed, to keep it short)\n" {
			t.Errorf("shown %q", shown)
		}
	})
	t.Run("bytes", func(t *testing.T) {
		var files []string
		for i := range 100 {
			files = append(files, fmt.Sprintf("%03d%s", i, strings.Repeat("n", 197)))
		}
		listing, _, _ := attachWorkspace(t, files)
		lines := strings.Split(listing, "\n")
		if len(listing) > treeBytes+100 || len(lines) != 82 {
			t.Errorf("%d bytes in %d lines; want 81 names of 201 bytes in the %d bytes", len(listing), len(lines), treeBytes)
		}
		if got := lines[len(lines)-1]; got != "… 19 more entries in the workspace's top folder" {
			t.Errorf("the note is %q", got)
		}
	})
	t.Run("folders", func(t *testing.T) {
		var files []string
		for i := range treeFolders + 50 {
			files = append(files, fmt.Sprintf("d%03d/f", i))
		}
		listing, shown, calls := attachWorkspace(t, files)
		if calls["list_files"] != treeFolders {
			t.Errorf("%d calls, want at most %d", calls["list_files"], treeFolders)
		}
		if !strings.HasSuffix(listing, "\n… 51 more folders not listed, to keep this listing short; list_files lists one") {
			t.Errorf("the folders left out are not said: …%q", listing[len(listing)-120:])
		}
		if shown != "attached: workspace listing, 449 entries (51 folders not listed, to keep it short)\n" {
			t.Errorf("shown %q", shown)
		}
	})
}

// TestWorkspaceTreeLinks: a link to a folder already listed is shown, and
// not listed again, so that a link to the root ends nothing.
func TestWorkspaceTreeLinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "src", "a.go"), []byte("package src\n"), 0o644)
	if err := os.Symlink("..", filepath.Join(dir, "src", "up")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	set, err := tools.NewSet(tools.ListFiles(ws))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := (&Attacher{WS: ws, Tools: set}).tree(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tree.String(), "src/\n  a.go\n  up/\n"; got != want {
		t.Errorf("listing %q, want %q", got, want)
	}
}
