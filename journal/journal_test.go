package journal_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"harness/approve"
	"harness/journal"
	"harness/loop"
	"harness/protocol"
	"harness/tools"
)

// writeTool writes files in a workspace, as write_file does, for the
// journal to watch.
type writeTool struct{ root string }

func (w writeTool) Specs() []protocol.ToolSpec {
	return []protocol.ToolSpec{{Name: "write_file", Writes: true}}
}

func (w writeTool) Run(_ context.Context, c protocol.Call) protocol.Result {
	path, content := c.Args["path"].(string), c.Args["content"].(string)
	if content == "fail" {
		return protocol.Result{CallID: c.ID, Tool: c.Name, Body: "failed"}
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Join(w.root, path)), 0o755); err != nil {
		return protocol.Result{CallID: c.ID, Tool: c.Name, Body: err.Error()}
	}
	if err := os.WriteFile(filepath.Join(w.root, path), []byte(content), 0o600); err != nil {
		return protocol.Result{CallID: c.ID, Tool: c.Name, Body: err.Error()}
	}
	return protocol.Result{CallID: c.ID, Tool: c.Name, OK: true, Wrote: true, Body: "ok"}
}

// The journal keeps a file before a turn's first write to it, in the
// state directory; /undo puts back one turn at a time, mode included; a
// write that failed is not kept; closing removes the copies.
func TestJournal(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(a, []byte("one\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	j := journal.New(writeTool{dir}, ws, state)
	ctx := context.Background()
	n := 0
	write := func(path, content string) {
		n++
		j.Run(ctx, protocol.Call{ID: "call_" + string(rune('0'+n)), Name: "write_file", Args: map[string]any{"path": path, "content": content}})
	}
	turn := func(n int) {
		if n > 1 {
			j.Event(loop.Event{Kind: loop.TurnEnded, Turn: n - 1})
		}
		j.Event(loopTurn(n))
	}

	turn(1)
	write("a.txt", "two\n")
	write("a.txt", "three\n") // the turn's second write keeps nothing more
	write("b.txt", "fail")    // wrote nothing: nothing to undo
	turn(2)
	write("a.txt", "four\n")
	write("new.txt", "new\n")
	j.Event(loop.Event{Kind: loop.TurnEnded, Turn: 2})

	if d := j.Diff(); !strings.Contains(d, "-one\n+four\n") || !strings.Contains(d, "--- /dev/null\n+++ b/new.txt\n") || strings.Contains(d, "b.txt") {
		t.Errorf("diff of the conversation:\n%s", d)
	}
	if got := j.TakeDiff("call_4"); got != "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-three\n+four\n" {
		t.Errorf("diff of call_4: %q", got)
	}
	if j.TakeDiff("call_4") != "" || j.TakeDiff("call_3") != "" {
		t.Error("a diff was given twice, or for a failed write")
	}

	u := j.Undo()
	if want := []string{"restored a.txt", "removed new.txt (the turn created it)"}; u.Turn != 2 || !slices.Equal(u.Done, want) || u.Kept != nil {
		t.Errorf("first undo: %+v; want turn 2, %q", u, want)
	}
	if data, _ := os.ReadFile(a); string(data) != "three\n" {
		t.Errorf("a.txt after the first undo: %q", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("new.txt was not removed: %v", err)
	}
	if u = j.Undo(); u.Turn != 1 || !slices.Equal(u.Done, []string{"restored a.txt"}) || u.Kept != nil {
		t.Errorf("second undo: %+v", u)
	}
	fi, err := os.Stat(a)
	if data, _ := os.ReadFile(a); err != nil || string(data) != "one\n" || fi.Mode().Perm() != 0o640 {
		t.Errorf("a.txt after the second undo: %q, %v, %v", data, fi.Mode(), err)
	}
	if u = j.Undo(); u.Done != nil || u.Kept != nil {
		t.Errorf("a third undo did %+v", u)
	}
	if entries, _ := os.ReadDir(filepath.Join(state, "undo")); len(entries) != 1 {
		t.Fatalf("copies kept in %d folders, want 1", len(entries))
	}
	j.Close()
	if entries, _ := os.ReadDir(filepath.Join(state, "undo")); len(entries) != 0 {
		t.Errorf("closing left %d folders of copies", len(entries))
	}
}

// loopTurn is the event that starts turn n of the main conversation.
func loopTurn(n int) loop.Event { return loop.Event{Kind: loop.TurnStarted, Turn: n} }

// TestUndoLeavesLaterChanges: /undo puts back only a file that still holds
// what the turn left in it. One changed or removed since is left as it is,
// with how to see the diff, and its copy is kept for it; so is a file whose
// turn never ended.
func TestUndoLeavesLaterChanges(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"same.txt", "edited.txt", "removed.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("before\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	j := journal.New(writeTool{dir}, ws, state)
	ctx := context.Background()
	write := func(id, path string) {
		j.Run(ctx, protocol.Call{ID: id, Name: "write_file", Args: map[string]any{"path": path, "content": "by the turn\n"}})
	}
	j.Event(loopTurn(1))
	write("call_1", "same.txt")
	write("call_2", "edited.txt")
	write("call_3", "removed.txt")
	write("call_4", "created.txt")
	j.Event(loop.Event{Kind: loop.TurnEnded, Turn: 1})
	os.WriteFile(filepath.Join(dir, "edited.txt"), []byte("by you\n"), 0o600)
	os.Remove(filepath.Join(dir, "removed.txt"))
	os.WriteFile(filepath.Join(dir, "created.txt"), []byte("by you\n"), 0o600)

	u := j.Undo()
	if !slices.Equal(u.Done, []string{"restored same.txt"}) {
		t.Errorf("done %q, want only same.txt restored", u.Done)
	}
	want := map[string]string{
		"edited.txt":  "edited.txt was left as it is: it changed after turn 1 (you or a command changed it), and putting it back would lose that; its copy from before the turn is kept until the REPL ends: diff -u ",
		"removed.txt": "removed.txt was left as it is: it was removed after turn 1; its copy from before the turn is kept until the REPL ends: diff -u ",
		"created.txt": "created.txt was left as it is: it changed after turn 1 (you or a command changed it), and putting it back would lose that; the turn created it: remove it yourself if it should go",
	}
	for _, k := range u.Kept {
		if w, ok := want[k.Name]; !ok || !k.Changed || !strings.HasPrefix(k.Why, w) {
			t.Errorf("kept %s: %q", k.Name, k.Why)
		}
		delete(want, k.Name)
		if k.Name == "edited.txt" {
			saved := strings.Fields(k.Why)[len(strings.Fields(k.Why))-2]
			if data, err := os.ReadFile(saved); err != nil || string(data) != "before\n" {
				t.Errorf("the copy for the diff: %q, %v", data, err)
			}
		}
	}
	if len(want) != 0 {
		t.Errorf("not reported: %v", want)
	}
	for name, content := range map[string]string{"same.txt": "before\n", "edited.txt": "by you\n", "created.txt": "by you\n"} {
		if data, _ := os.ReadFile(filepath.Join(dir, name)); string(data) != content {
			t.Errorf("%s holds %q, want %q", name, data, content)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "removed.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("removed.txt came back: %v", err)
	}

	// A turn that has not ended is not known: nothing is put back.
	j.Event(loopTurn(2))
	write("call_5", "same.txt")
	if u := j.Undo(); u.Done != nil || len(u.Kept) != 1 || !strings.Contains(u.Kept[0].Why, "what turn 2 left in it is not known") {
		t.Errorf("undo of a turn that did not end: %+v", u)
	}
	j.Close()
}

// A diff an approval question showed is not given again after the write;
// a write the question did not show is.
func TestPreviewedDiff(t *testing.T) {
	dir := t.TempDir()
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	j := journal.New(writeTool{dir}, ws, "")
	defer j.Close()
	ctx := context.Background()
	for _, id := range []string{"call_1", "call_2"} {
		call := protocol.Call{ID: id, Name: "write_file", Args: map[string]any{"path": id + ".txt", "content": "x\n"}}
		if id == "call_1" {
			j.Decided(approve.Decision{Call: call, Question: approve.Question{Detail: "+x"}, Outcome: approve.UserYes})
		}
		j.Run(ctx, call)
	}
	if d := j.TakeDiff("call_1"); d != "" {
		t.Errorf("the previewed diff was given again: %q", d)
	}
	if d := j.TakeDiff("call_2"); d != "--- /dev/null\n+++ b/call_2.txt\n@@ -0,0 +1 @@\n+x\n" {
		t.Errorf("diff of call_2: %q", d)
	}
	if j.Diff() != "" {
		t.Error("a journal that keeps no copies has a diff")
	}
}

// The way Undo tells to see a file it left as it is quotes the paths for
// a shell.
func TestUndoQuotesPaths(t *testing.T) {
	dir, state := t.TempDir(), filepath.Join(t.TempDir(), "it's state")
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("before\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	j := journal.New(writeTool{dir}, ws, state)
	defer j.Close()
	j.Event(loopTurn(1))
	j.Run(context.Background(), protocol.Call{ID: "call_1", Name: "write_file", Args: map[string]any{"path": "a.txt", "content": "by the turn\n"}})
	j.Event(loop.Event{Kind: loop.TurnEnded, Turn: 1})
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("by you\n"), 0o600)
	u := j.Undo()
	if len(u.Kept) != 1 || !strings.Contains(u.Kept[0].Why, "diff -u '") || !strings.Contains(u.Kept[0].Why, filepath.FromSlash(`/it'\''s state/undo/`)) {
		t.Errorf("kept: %+v", u.Kept)
	}
}

// Undo removes the folders, inside the workspace, that a turn made for the
// files it wrote, when they are empty again, the deepest first.
func TestUndoRemovesMadeFolders(t *testing.T) {
	dir := t.TempDir()
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	j := journal.New(writeTool{dir}, ws, t.TempDir())
	defer j.Close()
	j.Event(loopTurn(1))
	j.Run(context.Background(), protocol.Call{ID: "call_1", Name: "write_file", Args: map[string]any{"path": "new/sub/a.txt", "content": "a\n"}})
	j.Event(loop.Event{Kind: loop.TurnEnded, Turn: 1})
	u := j.Undo()
	want := []string{"removed new/sub/a.txt (the turn created it)", "removed the folder new/sub/ (the turn made it)", "removed the folder new/ (the turn made it)"}
	if !slices.Equal(u.Done, want) || u.Kept != nil {
		t.Errorf("undo: %+v, want %q", u, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("new/ stays: %v", err)
	}
}
