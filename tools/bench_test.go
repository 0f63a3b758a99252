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

// benchTree builds a workspace whose root holds files files and dirs
// folders of 20 files each, and returns the default file tools on it.
func benchTree(b *testing.B, files, dirs int) *Outputs {
	b.Helper()
	root := b.TempDir()
	for i := range files {
		benchWrite(b, filepath.Join(root, fmt.Sprintf("file_%05d.go", i)), "")
	}
	for i := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("dir_%04d", i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range 20 {
			benchWrite(b, filepath.Join(dir, fmt.Sprintf("f%02d.go", j)), "")
		}
	}
	return benchTools(b, root)
}

func benchWrite(b *testing.B, path, text string) {
	b.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
}

// benchTools returns the default file tools on the workspace root.
func benchTools(b *testing.B, root string) *Outputs {
	b.Helper()
	ws, err := NewWorkspace(root)
	if err != nil {
		b.Fatal(err)
	}
	set, err := NewSet(ReadFile(ws), ListFiles(ws), EditFile(ws), WriteFile(ws))
	if err != nil {
		b.Fatal(err)
	}
	return WithOutputs(set)
}

func benchRun(b *testing.B, ts *Outputs, call protocol.Call) {
	b.Helper()
	if err := protocol.Check(ts.Specs(), &call); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := ts.Run(ctx, call); !res.OK {
			b.Fatal(res.Body)
		}
	}
}

// BenchmarkListFiles lists the root of a large tree (3000 files and 200
// folders: the listing is cut at 1000 entries) and one of its folders.
func BenchmarkListFiles(b *testing.B) {
	ts := benchTree(b, 3000, 200)
	b.Run("root", func(b *testing.B) {
		benchRun(b, ts, protocol.Call{ID: "call_1", Name: listName, Args: map[string]any{}})
	})
	b.Run("folder", func(b *testing.B) {
		benchRun(b, ts, protocol.Call{ID: "call_1", Name: listName, Args: map[string]any{"path": "dir_0100"}})
	})
}

// BenchmarkReadFile reads a 2.5 KB file whole, and a file of 5000 lines
// (200 KB) of which it shows the first 2000.
func BenchmarkReadFile(b *testing.B) {
	root := b.TempDir()
	benchWrite(b, filepath.Join(root, "small.go"), strings.Repeat("func f(a, b int) int { return a*b + 1 }\n", 64))
	benchWrite(b, filepath.Join(root, "big.go"), strings.Repeat("func f(a, b int) int { return a*b + 1 }\n", 5000))
	ts := benchTools(b, root)
	b.Run("2.5KB", func(b *testing.B) {
		benchRun(b, ts, protocol.Call{ID: "call_1", Name: readName, Args: map[string]any{"path": "small.go"}})
	})
	b.Run("5000lines", func(b *testing.B) {
		benchRun(b, ts, protocol.Call{ID: "call_1", Name: readName, Args: map[string]any{"path": "big.go"}})
	})
}

// hiddenTree builds a workspace of 250 folders of 20 files each, with a
// .gitignore and a few secrets, aged so that a walk trusts what it sees.
func hiddenTree(b *testing.B) *Workspace {
	b.Helper()
	root := b.TempDir()
	benchWrite(b, filepath.Join(root, ".gitignore"), "*.log\nbuild/\n")
	for i := range 250 {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range 20 {
			benchWrite(b, filepath.Join(dir, fmt.Sprintf("f%02d.go", j)), "")
		}
		if i%50 == 0 {
			benchWrite(b, filepath.Join(dir, ".env"), "")
			benchWrite(b, filepath.Join(dir, "run.log"), "")
		}
	}
	ws, err := NewWorkspace(root)
	if err != nil {
		b.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	return ws
}

// BenchmarkHiddenWalk is what finding the hidden paths costs a command
// when anything in the workspace changed: a walk of every folder.
func BenchmarkHiddenWalk(b *testing.B) {
	ws := hiddenTree(b)
	for b.Loop() {
		ws.hidden.walked = false
		if len(ws.Hidden()) != 10 {
			b.Fatal("wrong list")
		}
	}
}

// BenchmarkHiddenUnchanged is what it costs when nothing changed: a look
// at the times of the folders and ignore files the last walk saw.
func BenchmarkHiddenUnchanged(b *testing.B) {
	ws := hiddenTree(b)
	ws.Hidden()
	for b.Loop() {
		if len(ws.Hidden()) != 10 {
			b.Fatal("wrong list")
		}
	}
	if ws.hidden.walks != 1 {
		b.Fatalf("%d walks", ws.hidden.walks)
	}
}

// BenchmarkNewWorkspace opens a workspace of 3000 files in 200 folders,
// each with a .gitignore, reading the ignore rules of the start.
func BenchmarkNewWorkspace(b *testing.B) {
	root := b.TempDir()
	for i := range 200 {
		dir := filepath.Join(root, fmt.Sprintf("dir_%04d", i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		benchWrite(b, filepath.Join(dir, ".gitignore"), "*.tmp\n")
		for j := range 15 {
			benchWrite(b, filepath.Join(dir, fmt.Sprintf("f%02d.go", j)), "")
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewWorkspace(root); err != nil {
			b.Fatal(err)
		}
	}
}
