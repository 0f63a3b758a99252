package tools

import (
	"path/filepath"
	"testing"
	"time"

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

// BenchmarkLargeCommandPhases is BenchmarkLargeCommandKept, with the
// census kept, cut into the parts of the workspace's work that a
// one-command run does, each reported on its own (ms per run): opening
// the workspace; finding what the command must not see, which walks the
// workspace for the ignore rules of the start (reading the census) and
// walks again what that walk read; the survey
// for repositories before the command and after it, and the look at the
// ignore files after it. The figure of whole.py's walk is their sum, or
// near it; a part that grows with the number of files shows here.
func BenchmarkLargeCommandPhases(b *testing.B) {
	root := largeTree(b)
	file := filepath.Join(b.TempDir(), "census")
	var sums [5]time.Duration
	command := func(b *testing.B) {
		t := [6]time.Time{time.Now()}
		ws, err := NewWorkspace(root)
		if err != nil {
			b.Fatal(err)
		}
		ws.KeepCensus(file)
		ws.census.settle = settleAfter(0) // the tree was made just now
		t[1] = time.Now()
		mustHidden(b, ws)
		stamps := ws.ignoreStamps()
		t[2] = time.Now()
		snap := gitdir.SnapWith(ws.root, ws.surveys)
		ws.surveyed()
		t[3] = time.Now()
		if _, err := snap.Restore(); err != nil {
			b.Fatal(err)
		}
		t[4] = time.Now()
		ws.ignoreFilesChanged(stamps)
		t[5] = time.Now()
		for i := range sums {
			sums[i] += t[i+1].Sub(t[i])
		}
	}
	command(b) // the census of the run before
	sums = [5]time.Duration{}
	n := 0
	for b.Loop() {
		command(b)
		n++
	}
	for i, name := range []string{"open", "hidden", "snap", "restore", "ignores"} {
		b.ReportMetric(float64(sums[i].Microseconds())/1000/float64(n), name+"-ms/op")
	}
}
