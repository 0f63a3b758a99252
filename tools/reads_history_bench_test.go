package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// historyRepo makes a repository of commits commits, each changing
// files files of 2 KiB, its files settled (changed a minute ago).
func historyRepo(b *testing.B, commits, files int) string {
	b.Helper()
	root := b.TempDir()
	var stream strings.Builder
	line := strings.Repeat("x", 63) + "\n"
	for c := 1; c <= commits; c++ {
		fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter dev <dev@example.com> %d +0000\ndata 2\nc\n", 1700000000+c)
		for f := range files {
			body := fmt.Sprintf("commit %d file %d\n%s", c, f, strings.Repeat(line, 32))
			fmt.Fprintf(&stream, "M 100644 inline f%03d.txt\ndata %d\n%s\n", f, len(body), body)
		}
		if c == 1 {
			fmt.Fprintf(&stream, "M 100644 inline .env\ndata 8\nTOKEN=x\n\n")
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"fast-import", "--quiet"}, {"reset", "-q", "main"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Stdin = strings.NewReader(stream.String())
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %s: %v\n%s", args[0], err, out)
		}
	}
	old := time.Now().Add(-time.Minute)
	filepath.Walk(filepath.Join(root, ".git"), func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	return root
}

// BenchmarkHistorySecrets measures a history read's check in a
// repository of 200 commits of 20 files: the first, which lists history
// and reads every blob's text, and a later one in the same state.
func BenchmarkHistorySecrets(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("needs git")
	}
	root := historyRepo(b, 200, 20)
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			ws, err := NewWorkspace(root)
			if err != nil {
				b.Fatal(err)
			}
			if got, err := ws.HistorySecrets(b.Context(), []string{"."}); err != nil || len(got) != 1 {
				b.Fatalf("HistorySecrets = %v, %v", got, err)
			}
		}
	})
	b.Run("again", func(b *testing.B) {
		ws, err := NewWorkspace(root)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ws.HistorySecrets(b.Context(), []string{"."}); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if got, err := ws.HistorySecrets(b.Context(), []string{"."}); err != nil || len(got) != 1 {
				b.Fatalf("HistorySecrets = %v, %v", got, err)
			}
		}
		if ws.history.lists != 1 {
			b.Errorf("listed %d times, want 1", ws.history.lists)
		}
	})
}
