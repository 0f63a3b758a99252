package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"harness/protocol"
)

// BenchmarkReadStep is one step of a session that reads a file it has not
// read before, as the approval step and read_file do it: what the call
// reads, whether that is secret, what its text seems to hold, then the
// read. The workspace is a folder of 200 files of 40 lines, unchanged for
// an hour, without a repository: each iteration reads the next file, in a
// workspace opened anew once all were read.
func BenchmarkReadStep(b *testing.B) {
	root := b.TempDir()
	const files = 200
	for i := range files {
		benchWrite(b, filepath.Join(root, fmt.Sprintf("file%03d.txt", i)), strings.Repeat(fmt.Sprintf("line %03d of a file used to time the loop. xxxx\n", i), 40))
	}
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{root} {
		if err := os.Chtimes(p, old, old); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(fineRacy + 50*time.Millisecond) // the change times too
	calls := make([]protocol.Call, files)
	for i := range calls {
		calls[i] = protocol.Call{ID: fmt.Sprintf("call_%d", i), Name: readName, Args: map[string]any{"path": fmt.Sprintf("file%03d.txt", i)}}
	}
	var ts *Outputs
	var src *Sources
	open := func() {
		ws, err := NewWorkspace(root)
		if err != nil {
			b.Fatal(err)
		}
		set, err := NewSet(ReadFile(ws), ListFiles(ws), EditFile(ws), WriteFile(ws))
		if err != nil {
			b.Fatal(err)
		}
		ts = WithOutputs(set, "")
		src = NewSources(ws, ts)
	}
	open()
	for i := range calls {
		if err := protocol.Check(ts.Specs(), &calls[i]); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if n == files {
			b.StopTimer()
			ts.Close()
			open()
			n = 0
			b.StartTimer()
		}
		call := calls[n]
		n++
		in := ts.Inspect(ctx, call)
		if len(in.Reads) != 1 || in.Secret != "" || src.Leak(in.Reads[0]) != "" {
			b.Fatalf("reads %q, secret %q", in.Reads, in.Secret)
		}
		if res := ts.Run(ctx, call); !res.OK {
			b.Fatal(res.Body)
		}
	}
	ts.Close()
}
