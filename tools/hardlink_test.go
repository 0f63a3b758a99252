//go:build unix

package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A hard link that was there before the run, to a file outside the
// workspace or in .git, is not read through (hole 14 of the third
// security round): read_file and edit_file, which shows nearby text when
// old_text is not found, refuse a file with more than one name, even
// where secrets are allowed. Writing replaces the link, and leaves the
// other name as it was.
func TestHardLinksNotRead(t *testing.T) {
	ws := newWorkspace(t, map[string]string{".git/config": "[core]\n\tsecret = git\n", "plain.txt": "ok\n"})
	outside := filepath.Join(filepath.Dir(ws.Root()), "outside.txt")
	if err := os.WriteFile(outside, []byte("outside secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"notes.txt": outside, "cfg.txt": filepath.Join(ws.Root(), ".git", "config")} {
		if err := os.Link(target, filepath.Join(ws.Root(), link)); err != nil {
			t.Skipf("cannot make hard links here: %v", err)
		}
	}
	ctx := WithSecrets(context.Background())
	for _, p := range []string{"notes.txt", "cfg.txt"} {
		_, err := ReadFile(ws).run(ctx, map[string]any{"path": p})
		checkErr(t, err, ErrProtected)
		_, err = EditFile(ws).run(ctx, map[string]any{"path": p, "old_text": "nothing like it", "new_text": "x"})
		checkErr(t, err, ErrProtected)
	}
	if _, err := ReadFile(ws).run(ctx, map[string]any{"path": "plain.txt"}); err != nil {
		t.Errorf("read_file of a file with one name: %v", err)
	}
	if _, err := WriteFile(ws).run(ctx, map[string]any{"path": "notes.txt", "content": "mine\n"}); err != nil {
		t.Fatal(err)
	}
	if b := readString(t, outside); b != "outside secret\n" {
		t.Errorf("writing the link changed the file outside: %q", b)
	}
}
