package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"harness/guard"
	"harness/protocol"
	"harness/sandbox"
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
	return benchToolsOn(b, ws)
}

// benchToolsOn returns the default file tools on ws.
func benchToolsOn(b *testing.B, ws *Workspace) *Outputs {
	b.Helper()
	set, err := NewSet(ReadFile(ws), ListFiles(ws), EditFile(ws), WriteFile(ws))
	if err != nil {
		b.Fatal(err)
	}
	o := WithOutputs(set, "")
	b.Cleanup(func() { o.Close() })
	return o
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
		if len(mustHidden(b, ws)) != 10 {
			b.Fatal("wrong list")
		}
	}
}

// BenchmarkHiddenUnchanged is what it costs when nothing changed: a read
// of the watch of the folders the last walk saw and a look at the times
// of its ignore files, or, with times, a look at the times of the folders
// too.
func BenchmarkHiddenUnchanged(b *testing.B) {
	for _, mode := range []string{"watch", "times"} {
		b.Run(mode, func(b *testing.B) {
			ws := hiddenTree(b)
			ws.hidden.noWatch = mode == "times"
			ws.Hidden()
			for b.Loop() {
				if len(mustHidden(b, ws)) != 10 {
					b.Fatal("wrong list")
				}
			}
			if ws.hidden.walks != 1 {
				b.Fatalf("%d walks", ws.hidden.walks)
			}
		})
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

// bigFile writes a file of about size bytes of numbered lines of about 50
// bytes (a 50 MB file has a million lines) and returns its name.
func bigFile(b *testing.B, root string, size int) string {
	b.Helper()
	var s strings.Builder
	s.Grow(size + 100)
	for i := 1; s.Len() < size; i++ {
		fmt.Fprintf(&s, "%07d func f(a, b int) int { return a*b + 1 }\n", i)
	}
	name := fmt.Sprintf("big%d.txt", size)
	benchWrite(b, filepath.Join(root, name), s.String())
	return name
}

// BenchmarkReadFilePage reads the 25th page of 2000 lines of a 50 MB file
// (lines 48001 to 50000): the first time a file version is read, when its
// lines are counted, and after, when they are known; and, for scale, the
// whole file with os.ReadFile, and the same lines with sed -n. A page once the file is known should cost
// what the page costs, and the first read about what reading the file does.
func BenchmarkReadFilePage(b *testing.B) {
	root := b.TempDir()
	name := bigFile(b, root, 50<<20)
	page := protocol.Call{ID: "call_1", Name: readName, Args: map[string]any{"path": name, "offset": json.Number("48001")}}
	b.Run("first", func(b *testing.B) {
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			ts := benchTools(b, root) // knows no file yet
			call := page
			if err := protocol.Check(ts.Specs(), &call); err != nil {
				b.Fatal(err)
			}
			if res := ts.Run(ctx, call); !res.OK {
				b.Fatal(res.Body)
			}
		}
	})
	b.Run("again", func(b *testing.B) {
		benchRun(b, benchTools(b, root), page)
	})
	b.Run("os.ReadFile", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := os.ReadFile(filepath.Join(root, name)); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The floor a page is measured against: the same lines printed by sed,
	// program start included.
	b.Run("sed", func(b *testing.B) {
		if _, err := exec.LookPath("sed"); err != nil {
			b.Skip(err)
		}
		for b.Loop() {
			if out, err := exec.Command("sed", "-n", "48001,50000p", filepath.Join(root, name)).Output(); err != nil || len(out) == 0 {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReadFileAll pages through the whole of a 2 MB and an 8 MB file
// with read_file, as a model reading on would: the cost must grow in
// proportion to the file.
func BenchmarkReadFileAll(b *testing.B) {
	for _, size := range []int{2 << 20, 8 << 20} {
		root := b.TempDir()
		name := bigFile(b, root, size)
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				ts := benchTools(b, root)
				for offset := 1; offset > 0; {
					call := protocol.Call{ID: "call_1", Name: readName, Args: map[string]any{"path": name, "offset": json.Number(strconv.Itoa(offset))}}
					if err := protocol.Check(ts.Specs(), &call); err != nil {
						b.Fatal(err)
					}
					res := ts.Run(ctx, call)
					if !res.OK {
						b.Fatal(res.Body)
					}
					offset = nextOffset(res.Body)
				}
			}
		})
	}
}

// nextOffset is the offset a read_file result says to read on from, or 0.
func nextOffset(body string) int {
	_, rest, ok := strings.Cut(body[max(0, len(body)-200):], "with offset=")
	if !ok {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSuffix(rest, "]"), " to read on"))
	return n
}

// BenchmarkReadOutputAll pages with read_output through the whole of a
// kept output of 1 MB and of 4 MB (an output keeps at most 4 MiB): the
// cost must grow in proportion to the output.
func BenchmarkReadOutputAll(b *testing.B) {
	for _, size := range []int{1 << 20, 4 << 20} {
		size -= 64 << 10 // within the bound, with room for the last line
		var s strings.Builder
		for i := 1; s.Len() < size; i++ {
			fmt.Fprintf(&s, "%07d func f(a, b int) int { return a*b + 1 }\n", i)
		}
		body := s.String()
		b.Run(fmt.Sprintf("%dMB", (size+64<<10)>>20), func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				o := benchTools(b, b.TempDir())
				if keepBody(b, o, "call_1", body); o.size != int64(len(body)) {
					b.Fatalf("kept %d bytes of %d", o.size, len(body))
				}
				for offset := 1; offset > 0; {
					call := protocol.Call{ID: "call_2", Name: outputName, Args: map[string]any{"ref": "out_1", "offset": json.Number(strconv.Itoa(offset))}}
					if err := protocol.Check(o.Specs(), &call); err != nil {
						b.Fatal(err)
					}
					res := o.Run(ctx, call)
					if !res.OK {
						b.Fatal(res.Body)
					}
					offset = nextOffset(res.Body)
				}
			}
		})
	}
}

// echoTree builds a git repository of files files, 20 to a folder, with a
// .gitignore, and a secret and an ignored file in its first and middle
// folders, aged so that nothing in it looks just changed.
func echoTree(b *testing.B, files int) *Workspace {
	b.Helper()
	root := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		b.Skipf("git init: %v %s", err, out)
	}
	benchWrite(b, filepath.Join(root, ".gitignore"), "*.log\nbuild/\n")
	dirs := (files + 19) / 20
	for i := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("pkg%04d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range min(20, files-20*i) {
			benchWrite(b, filepath.Join(dir, fmt.Sprintf("f%02d.go", j)), "package p\n")
		}
		if i == 0 || i == dirs/2 {
			benchWrite(b, filepath.Join(dir, ".env"), "KEY=x\n")
			benchWrite(b, filepath.Join(dir, "run.log"), "")
		}
	}
	old := time.Now().Add(-time.Hour)
	filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	ws, err := NewWorkspace(root)
	if err != nil {
		b.Fatal(err)
	}
	return ws
}

// BenchmarkBashEcho runs `echo hi` through the bash tool, with the guard,
// the git directory's check and the hidden paths, in a workspace of 40
// files and in one of 47,500 (the same secrets in each; with its 2,375
// folders, 50,000 entries), with no sandbox
// and inside bwrap: what the size of a workspace adds to every command,
// once the hidden paths were found (BenchmarkHiddenWalk is that cost).
// The large one should cost about what the small one does.
func BenchmarkBashEcho(b *testing.B) {
	for _, files := range []int{40, 47500} {
		ws := echoTree(b, files)
		if n := len(mustHidden(b, ws)); n != 4 {
			b.Fatalf("%d hidden paths, want 4", n)
		}
		for _, mode := range []sandbox.Mode{sandbox.None, sandbox.Bwrap} {
			b.Run(fmt.Sprintf("%s/%d", mode, files), func(b *testing.B) {
				sb, err := sandbox.New(sandbox.Config{Mode: mode, Dir: ws.Root()})
				if err != nil {
					b.Fatal(err)
				}
				if err := sb.Start(context.Background()); err != nil {
					b.Skipf("skipped: %v", err)
				}
				p, err := guard.New(nil, nil)
				if err != nil {
					b.Fatal(err)
				}
				set, err := NewSet(Bash(ws, p, sb))
				if err != nil {
					b.Fatal(err)
				}
				o := WithOutputs(set, "")
				defer o.Close()
				benchRun(b, o, protocol.Call{ID: "call_1", Name: bashName, Args: map[string]any{"command": "echo hi"}})
				if ws.hidden.walks != 1 {
					b.Errorf("%d walks of an unchanged workspace", ws.hidden.walks)
				}
			})
		}
	}
}

// BenchmarkReadChecked is read_file of a 2.5 KB file two folders deep in
// a repository whose .gitignore holds 40 rules, with the checks the
// approval step makes before it (what the call reads, whether that is
// secret, what the text it would read seems to hold): the cost of one
// read a model asks for.
func BenchmarkReadChecked(b *testing.B) {
	root := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		b.Skipf("skipped: git init: %v %s", err, out)
	}
	var rules strings.Builder
	for i := range 20 {
		fmt.Fprintf(&rules, "build%d/\n*.tmp%d\n", i, i)
	}
	benchWrite(b, filepath.Join(root, ".gitignore"), rules.String())
	old := time.Now().Add(-time.Hour) // as a workspace's usually is
	if err := os.Chtimes(filepath.Join(root, ".gitignore"), old, old); err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "src", "pkg"), 0o755); err != nil {
		b.Fatal(err)
	}
	benchWrite(b, filepath.Join(root, "src", "pkg", "small.go"), strings.Repeat("func f(a, b int) int { return a*b + 1 }\n", 64))
	ws, err := NewWorkspace(root)
	if err != nil {
		b.Fatal(err)
	}
	ts := benchToolsOn(b, ws)
	src := NewSources(ws, ts)
	call := protocol.Call{ID: "call_1", Name: readName, Args: map[string]any{"path": "src/pkg/small.go"}}
	if err := protocol.Check(ts.Specs(), &call); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		in := ts.Inspect(ctx, call)
		reads := in.Reads
		if len(reads) != 1 || in.Secret != "" || src.Leak(reads[0]) != "" {
			b.Fatalf("reads %q", reads)
		}
		if res := ts.Run(ctx, call); !res.OK {
			b.Fatal(res.Body)
		}
	}
}

// largeTree builds a workspace of 2000 folders of 25 empty files each
// (52,000 entries), the size of a large repository, and returns its root.
func largeTree(b *testing.B) string {
	b.Helper()
	root := b.TempDir()
	for d := range 2000 {
		dir := filepath.Join(root, fmt.Sprintf("d%04d", d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for k := range 25 {
			benchWrite(b, filepath.Join(dir, fmt.Sprintf("f%02d.txt", k)), "")
		}
	}
	return root
}

// BenchmarkLargeStart is what a workspace of 52,000 entries costs a run:
// opening it, which every run does; reading the ignore rules of the
// start, which the first write, command or listing does; and finding what
// the first command must not see, which includes that.
func BenchmarkLargeStart(b *testing.B) {
	root := largeTree(b)
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			if _, err := NewWorkspace(root); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("start", func(b *testing.B) {
		for b.Loop() {
			ws, err := NewWorkspace(root)
			if err != nil {
				b.Fatal(err)
			}
			ws.begin()
		}
	})
	command := func(b *testing.B) {
		for b.Loop() {
			ws, err := NewWorkspace(root)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := ws.Hidden(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("command", command)
	// As in most repositories, something is ignored: what the start
	// protected is known by identity, wherever it moves.
	benchWrite(b, filepath.Join(root, ".gitignore"), "*.log\n")
	benchWrite(b, filepath.Join(root, "d0000", "build.log"), "")
	b.Run("command, something ignored", command)
	// A later command, after the one before made a file: the walk is made
	// again, and looks at the files of the folder that changed.
	b.Run("next command, something ignored", func(b *testing.B) {
		ws, err := NewWorkspace(root)
		if err != nil {
			b.Fatal(err)
		}
		mustHidden(b, ws)
		made := filepath.Join(root, "d0001", "made.go")
		for b.Loop() {
			b.StopTimer()
			benchWrite(b, made, "")
			b.StartTimer()
			mustHidden(b, ws)
			b.StopTimer()
			os.Remove(made)
			mustHidden(b, ws)
			b.StartTimer()
		}
	})
}
