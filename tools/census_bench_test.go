package tools

import (
	"path/filepath"
	"testing"

	"harness/gitdir"
)

// BenchmarkLargeCommandKept is what the first command of a run costs in a
// workspace of 52,000 entries, of the workspace's part of the bash tool:
// what it must not see, the survey of repositories before and after it,
// and the look at the ignore files after it; without a census, and with
// the census a run before kept, when nothing changed since.
func BenchmarkLargeCommandKept(b *testing.B) {
	root := largeTree(b)
	file := filepath.Join(b.TempDir(), "census")
	command := func(b *testing.B, keep bool) {
		ws, err := NewWorkspace(root)
		if err != nil {
			b.Fatal(err)
		}
		if keep {
			ws.KeepCensus(file)
			ws.census.settle = settleAfter(0) // the tree was made just now
		}
		mustHidden(b, ws)
		stamps := ws.ignoreStamps()
		snap := gitdir.SnapWith(ws.root, ws.surveys)
		if _, err := snap.Restore(); err != nil {
			b.Fatal(err)
		}
		ws.ignoreFilesChanged(stamps)
	}
	b.Run("walked", func(b *testing.B) {
		for b.Loop() {
			command(b, false)
		}
	})
	command(b, true)
	b.Run("kept", func(b *testing.B) {
		for b.Loop() {
			command(b, true)
		}
	})
}
