package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"harness/protocol"
)

type linesArgs struct {
	N int `arg:"n" help:"how many lines"`
}

func outputsFixture(t *testing.T) *Outputs {
	t.Helper()
	lines := New("lines", "Print n numbered lines.", false, func(_ context.Context, a linesArgs) (string, error) {
		var b strings.Builder
		for i := 1; i <= a.N; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String(), nil
	})
	set, err := NewSet(lines)
	if err != nil {
		t.Fatal(err)
	}
	o := WithOutputs(set, filepath.Join(t.TempDir(), "state", "outputs", "run"))
	t.Cleanup(func() { o.Close() })
	return o
}

// keepBody keeps body as the output of the call id, as Run keeps a long
// result, whatever its length, and returns its reference.
func keepBody(tb testing.TB, o *Outputs, id, body string) string {
	tb.Helper()
	sp := &spool{o: o, base: "out_" + strings.TrimPrefix(id, "call_")}
	io.WriteString(sp, body)
	sp.mu.Lock()
	if !sp.spilled {
		sp.spill()
	}
	sp.mu.Unlock()
	sp.finish()
	o.settle(sp)
	if sp.err != nil {
		tb.Fatal(sp.err)
	}
	return sp.ref
}

func runOut(t *testing.T, o *Outputs, id, name string, args map[string]any) protocol.Result {
	t.Helper()
	return o.Run(context.Background(), protocol.Call{ID: id, Name: name, Args: args})
}

func TestOutputsShortenLongResults(t *testing.T) {
	o := outputsFixture(t)
	short := runOut(t, o, "call_1", "lines", map[string]any{"n": int64(10)})
	if !short.OK || strings.Contains(short.Body, "left out") {
		t.Fatalf("a short result was changed: %q", short.Body)
	}
	long := runOut(t, o, "call_7", "lines", map[string]any{"n": int64(5000)})
	if !long.OK {
		t.Fatalf("result %+v", long)
	}
	for _, want := range []string{"line 1\n", "line 100\n[... 4800 lines", "the whole output is out_7: call read_output with ref=\"out_7\" and offset=101", "line 4901\n", "line 5000\n"} {
		if !strings.Contains(long.Body, want) {
			t.Errorf("shortened body lacks %q", want)
		}
	}
	if strings.Contains(long.Body, "line 101\n") || strings.Contains(long.Body, "line 4900\n") {
		t.Error("the middle was not left out")
	}

	page := runOut(t, o, "call_8", "read_output", map[string]any{"ref": "out_7", "offset": int64(101), "limit": int64(3)})
	want := "line 101\nline 102\nline 103\n[lines 101-103 of 5000 of out_7; 4897 lines left: call read_output with offset=104 to read on]"
	if !page.OK || page.Body != want {
		t.Errorf("page = %q, want %q", page.Body, want)
	}
	end := runOut(t, o, "call_9", "read_output", map[string]any{"ref": "out_7", "offset": int64(4999)})
	if !strings.HasSuffix(end.Body, "line 5000\n[lines 4999-5000 of 5000 of out_7]") {
		t.Errorf("last page = %q", end.Body)
	}
	missing := runOut(t, o, "call_10", "read_output", map[string]any{"ref": "out_1"})
	if missing.OK || !strings.Contains(missing.Body, `no output is kept under "out_1"; kept: out_7`) {
		t.Errorf("unknown ref = %+v", missing)
	}
	past := runOut(t, o, "call_11", "read_output", map[string]any{"ref": "out_7", "offset": int64(9000)})
	if past.OK || !strings.Contains(past.Body, "past the end") {
		t.Errorf("offset past the end = %+v", past)
	}
}

func TestOutputsSpecs(t *testing.T) {
	var names []string
	for _, s := range outputsFixture(t).Specs() {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "lines,read_output" {
		t.Errorf("specs = %v", names)
	}
}

// Past the bound of a run, the oldest outputs are removed, files and all,
// and read_output says so.
func TestOutputsForgetTheOldest(t *testing.T) {
	o := outputsFixture(t)
	o.maxKept = 1000
	keepBody(t, o, "call_1", strings.Repeat("a", 990))
	old, _ := o.kept["out_1"]
	keepBody(t, o, "call_2", strings.Repeat("b", 20))
	if _, ok := o.kept["out_1"]; ok {
		t.Error("the oldest output was kept past the bound")
	}
	if _, err := os.Stat(old.path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the oldest output's file is still there: %v", err)
	}
	if _, ok := o.kept["out_2"]; !ok || o.size != 20 {
		t.Errorf("newest lost or size wrong: %d", o.size)
	}
	gone := runOut(t, o, "call_3", "read_output", map[string]any{"ref": "out_1"})
	if gone.OK || !strings.Contains(gone.Body, "out_1 is no longer kept") {
		t.Errorf("read_output of a removed output = %+v", gone)
	}
}

// TestOutputsLeaveReadFileWhole: read_file pages by itself, so a full window
// of it (2000 lines and its marker) is never cut a second time.
func TestOutputsLeaveReadFileWhole(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	ws := newWorkspace(t, map[string]string{"long.txt": b.String()})
	set, err := NewSet(ReadFile(ws))
	if err != nil {
		t.Fatal(err)
	}
	o := WithOutputs(set, "")
	defer o.Close()
	res := o.Run(context.Background(), protocol.Call{ID: "call_1", Name: "read_file", Args: map[string]any{"path": "long.txt"}})
	if !res.OK || strings.Contains(res.Body, "left out") || !strings.HasSuffix(res.Body, "2000\n[showing lines 1-2000 of 5000; 3000 lines left: call read_file with offset=2001 to read on]") {
		t.Errorf("a full read_file window was changed: ...%q", res.Body[max(0, len(res.Body)-120):])
	}
}

// TestOutputsPages pages through a kept output with one Outputs, which
// counts the output's lines at the first page and then starts near the
// page asked for, and checks every page against an Outputs paging it for
// the first time.
func TestOutputsPages(t *testing.T) {
	var b strings.Builder
	for i := range 30000 {
		n := i % 90
		if i%4999 == 0 {
			n = 70000
		}
		fmt.Fprintf(&b, "%d %s\n", i+1, strings.Repeat("y", n))
	}
	b.WriteString("no newline at the end")
	body := b.String()
	o := outputsFixture(t)
	keepBody(t, o, "call_1", body)
	for _, limit := range []int64{0, 3, 1999} {
		for offset := int64(1); ; offset += 1 + offset/2 {
			args := map[string]any{"ref": "out_1", "offset": offset, "limit": limit}
			got := runOut(t, o, "call_2", "read_output", args)
			fresh := outputsFixture(t)
			keepBody(t, fresh, "call_1", body)
			want := runOut(t, fresh, "call_2", "read_output", args)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("offset %d limit %d:\ngot  %.200q\nwant %.200q", offset, limit, got.Body, want.Body)
			}
			if !want.OK {
				break
			}
		}
	}
}

// shortenBefore is how a long result was cut when it was kept whole in
// memory: the reference the file-backed cut must agree with.
func shortenBefore(body, ref string) string {
	lines := strings.SplitAfter(body, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	take := func(lines []string) int {
		size := 0
		for i, l := range lines {
			if i == keepLines || size+len(l) > keepBytes {
				return i
			}
			size += len(l)
		}
		return len(lines)
	}
	head := take(lines)
	rest := slices.Clone(lines[head:])
	slices.Reverse(rest)
	tail := len(lines) - take(rest)
	var b strings.Builder
	for _, l := range lines[:head] {
		b.WriteString(l)
	}
	if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	omitted := 0
	for _, l := range lines[head:tail] {
		omitted += len(l)
	}
	fmt.Fprintf(&b, "[... %d lines (%d bytes) left out here; the whole output is %s: call %s with ref=%q and offset=%d to read from here]\n",
		tail-head, omitted, ref, outputName, ref, head+1)
	for _, l := range lines[tail:] {
		b.WriteString(l)
	}
	return b.String()
}

// The head and tail a kept output is cut to are read from its file, and
// are what they were when the whole was held in memory.
func FuzzCut(f *testing.F) {
	line := func(n int) string { return strings.Repeat("x", n) + "\n" }
	for _, seed := range []string{
		"", "a", "a\n", "\n\n\n", strings.Repeat("line\n", 5000),
		strings.Repeat(line(100), 300) + "no newline at the end",
		line(9000) + strings.Repeat("a\n", 500) + line(9000),
		strings.Repeat(line(8191), 3), strings.Repeat(line(8192), 3), strings.Repeat(line(8193), 3),
		strings.Repeat("é\n", 3000), strings.Repeat(line(81), 101) + strings.Repeat(line(80), 101),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if !utf8.ValidString(body) {
			t.Skip()
		}
		o := outputsFixture(t)
		sp := &spool{o: o, base: "out_1"}
		io.WriteString(sp, body)
		sp.mu.Lock()
		if !sp.spilled {
			sp.spill()
		}
		sp.mu.Unlock()
		if got, want := sp.finish(), shortenBefore(body, "out_1"); got != want {
			t.Errorf("cut of %d bytes:\ngot  %.300q\nwant %.300q", len(body), got, want)
		}
		o.settle(sp)
		if kept, _ := o.Kept("out_1"); kept != body {
			t.Errorf("kept %d bytes, not the %d given", len(kept), len(body))
		}
	})
}

// Long outputs are files in the folder given, made 0700 when the first is
// needed, each 0600; Close removes them. A short result makes nothing.
func TestOutputsFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "harness", "outputs", "run")
	set, err := NewSet(New("lines", "n lines", false, func(_ context.Context, a linesArgs) (string, error) {
		return strings.Repeat("line\n", a.N), nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	o := WithOutputs(set, dir)
	runOut(t, o, "call_1", "lines", map[string]any{"n": int64(10)})
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a short result made the folder: %v", err)
	}
	runOut(t, o, "call_2", "lines", map[string]any{"n": int64(3000)})
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("folder %v, %v; want mode 0700", fi, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "out_2" {
		t.Fatalf("folder holds %v, want out_2 alone", entries)
	}
	if fi, err := os.Stat(filepath.Join(dir, "out_2")); err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != 3000*5 {
		t.Errorf("out_2: %v, %v; want 15000 bytes, mode 0600", fi, err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Close left the folder: %v", err)
	}
	if page := runOut(t, o, "call_3", "read_output", map[string]any{"ref": "out_2"}); page.OK {
		t.Errorf("read_output after Close = %q", page.Body)
	}
}

// A folder that cannot be made (here, under a file) gives way to a
// temporary one; with no temporary one either, the result says that what
// was left out is lost.
func TestOutputsFolderFallback(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	o := outputsFixture(t)
	o.want = filepath.Join(file, "outputs")
	res := runOut(t, o, "call_1", "lines", map[string]any{"n": int64(3000)})
	if !strings.Contains(res.Body, "the whole output is out_1") || !strings.HasPrefix(o.dir, tmp) {
		t.Errorf("folder %q, result %.200q", o.dir, res.Body)
	}
	o.Close()

	t.Setenv("TMPDIR", filepath.Join(tmp, "missing"))
	o = outputsFixture(t)
	o.want = ""
	res = runOut(t, o, "call_1", "lines", map[string]any{"n": int64(3000)})
	if !res.OK || !strings.Contains(res.Body, "line 100\n[... ") || !strings.Contains(res.Body, "bytes left out here: the output could not be kept for read_output") || !strings.HasSuffix(res.Body, "line 3000\n") {
		t.Errorf("result without a folder: %.300q", res.Body)
	}
}

// streamArgs ask the stream tool for n lines of width bytes.
type streamArgs struct {
	N     int `arg:"n" help:"lines"`
	Width int `arg:"width" help:"bytes a line"`
}

// streamed returns Outputs around a tool that writes its output into the
// call's spool, in pieces, as the bash tool's command does.
func streamed(t *testing.T) *Outputs {
	t.Helper()
	stream := New("stream", "n lines", false, func(ctx context.Context, a streamArgs) (string, error) {
		out := spoolFrom(ctx)
		for i := 1; i <= a.N; i++ {
			fmt.Fprintf(out, "%0*d\n", a.Width-1, i)
		}
		io.WriteString(out, "[exit status 0]")
		return out.finish(), nil
	})
	set, err := NewSet(stream)
	if err != nil {
		t.Fatal(err)
	}
	o := WithOutputs(set, "")
	t.Cleanup(func() { o.Close() })
	return o
}

// Past the bound of one output, its middle is dropped: the file keeps its
// start, a line saying how much was dropped and its end, and the result
// says how much was dropped; read_output still reaches the last line.
func TestOutputsDropTheMiddle(t *testing.T) {
	o := streamed(t)
	o.maxOutput = 256 << 10
	res := runOut(t, o, "call_4", "stream", map[string]any{"n": int64(100000), "width": int64(10)})
	const total = 100000*10 + len("[exit status 0]")
	kept, ok := o.Kept("out_4")
	if !ok {
		t.Fatal("nothing kept")
	}
	// The file keeps the first maxOutput-tailBytes bytes and the last
	// tailBytes.
	dropped := total - int(o.maxOutput)
	want := fmt.Sprintf("out_4 holds the output but for %d bytes dropped from its middle, since an output keeps at most %d bytes, its start and its end: call read_output", dropped, 256<<10)
	if !res.OK || !strings.Contains(res.Body, want) || !strings.HasPrefix(res.Body, "000000001\n") || !strings.HasSuffix(res.Body, "000100000\n[exit status 0]") {
		t.Errorf("result %.300q ... %.200q\nwant it to say %q", res.Body, res.Body[max(0, len(res.Body)-200):], want)
	}
	if dropped <= 0 || !strings.Contains(kept, fmt.Sprintf("\n[... %d bytes of the output dropped here: ", dropped)) || !strings.HasSuffix(kept, "000100000\n[exit status 0]") {
		t.Errorf("kept %d bytes: %.100q ... %.100q", len(kept), kept[len(kept)-tailBytes-200:], kept[len(kept)-100:])
	}
	if int64(len(kept)) > o.maxOutput+200 {
		t.Errorf("kept %d bytes, past the bound %d", len(kept), o.maxOutput)
	}
	lines := strings.Count(kept, "\n") + 1
	last := runOut(t, o, "call_5", "read_output", map[string]any{"ref": "out_4", "offset": int64(lines - 1)})
	if !last.OK || !strings.HasSuffix(last.Body, fmt.Sprintf("000100000\n[exit status 0]\n[lines %d-%d of %d of out_4]", lines-1, lines, lines)) {
		t.Errorf("last page = %q", last.Body)
	}
}

// A reference given before, as a helper's call_1 after the main
// conversation's, gets a number of its own.
func TestOutputsRefsStayUnique(t *testing.T) {
	o := streamed(t)
	first := runOut(t, o, "call_1", "stream", map[string]any{"n": int64(3000), "width": int64(4)})
	second := runOut(t, o, "call_1", "stream", map[string]any{"n": int64(3000), "width": int64(5)})
	if !strings.Contains(first.Body, `ref="out_1"`) || !strings.Contains(second.Body, `ref="out_1_2"`) {
		t.Errorf("refs of two call_1: %.200q, %.200q", first.Body[len(first.Body)/2:], second.Body[len(second.Body)/2:])
	}
	a, _ := o.Kept("out_1")
	b, _ := o.Kept("out_1_2")
	if !strings.HasPrefix(a, "001\n") || !strings.HasPrefix(b, "0001\n") {
		t.Errorf("kept %.10q and %.10q", a, b)
	}
}
