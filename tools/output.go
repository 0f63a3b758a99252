package tools

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"harness/approve"
	"harness/protocol"
)

// How long results are cut: a result over read_file's limits keeps this
// much of its head and of its tail.
const (
	keepLines = 100
	keepBytes = 8 << 10
	// markerBytes is room for the line a paging tool adds to its window.
	markerBytes = 512
	// maxOutput bounds the bytes kept of one output: past it, its middle
	// is dropped and its last tailBytes kept.
	maxOutput = 4 << 20
	tailBytes = 64 << 10
	// maxKept bounds the bytes the outputs of a run keep; the oldest go
	// first.
	maxKept = 64 << 20
)

const outputName = "read_output"

// caller is what Outputs wraps: a set of tools.
type caller interface {
	Specs() []protocol.ToolSpec
	Run(ctx context.Context, call protocol.Call) protocol.Result
	Inspect(ctx context.Context, call protocol.Call) approve.Inspection
}

// Outputs runs the calls of the tools it wraps, but a result longer than
// read_file shows at once (2000 lines or 64 KiB) reaches the model cut to
// its head and tail, with a marker saying what was left out. The whole
// result is kept in a file under a reference named after the call (call_3
// keeps out_3), which the read_output tool pages through. A command's
// output goes to that file as it comes (the bash tool streams it there),
// so no long output is ever held in memory.
//
// An output keeps at most 4 MiB: past that, its middle is dropped and its
// last 64 KiB kept, and the result says how much was dropped. The outputs
// of a run keep at most 64 MiB: past that, the oldest are removed. The
// files are made 0600 in a folder made 0700 when the first is needed, and
// removed by Close.
type Outputs struct {
	inner caller
	read  *Set // read_output alone
	want  string

	mu        sync.Mutex
	dir       string // the folder made, "" until then
	dirErr    error
	closed    bool
	kept      map[string]*output
	order     []string
	size      int64
	taken     map[string]bool // every reference given, kept or not
	gone      map[string]bool // removed to keep within maxKept
	maxOutput int64
	maxKept   int64
}

// output is a whole result kept for read_output in a file, and once it has
// been paged, where its lines begin.
type output struct {
	path  string
	size  int64
	index *lineIndex
}

// WithOutputs wraps inner, keeping the whole of long results in files in
// dir, a folder it makes (with its parents) when the first is needed. When
// dir is "", or cannot be made (it exists already, or the state folder is
// not writable), a new folder in the system's temporary folder is used
// instead. Close removes the folder.
func WithOutputs(inner caller, dir string) *Outputs {
	o := &Outputs{inner: inner, want: dir, kept: map[string]*output{}, taken: map[string]bool{}, gone: map[string]bool{}, maxOutput: maxOutput, maxKept: maxKept}
	read := New(outputName,
		"Page through the whole of a long result that was cut, by its reference (such as out_3). Shows up to 2000 lines or 64 KiB at a time.",
		false, o.page)
	o.read, _ = NewSet(read) // one named tool cannot clash
	return o
}

// Specs returns the wrapped tools' specs and read_output's, sorted by name.
func (o *Outputs) Specs() []protocol.ToolSpec {
	specs := append(o.inner.Specs(), o.read.Specs()...)
	slices.SortFunc(specs, func(a, b protocol.ToolSpec) int { return strings.Compare(a.Name, b.Name) })
	return specs
}

// Run runs call and cuts a long result.
func (o *Outputs) Run(ctx context.Context, call protocol.Call) protocol.Result {
	if call.Name == outputName {
		return o.read.Run(ctx, call)
	}
	sp := &spool{o: o, base: "out_" + strings.TrimPrefix(call.ID, "call_")}
	res := o.inner.Run(withSpool(ctx, sp), call)
	// A tool that streamed its output into the spool made its result from
	// the spool's text. A tool that pages by itself (read_file) stays
	// within its limits plus one line saying how to read on; only longer
	// results are cut.
	if !sp.used() && (len(res.Body) > maxReadBytes+markerBytes || strings.Count(res.Body, "\n") > maxReadLines) {
		io.WriteString(sp, res.Body)
		res.Body = sp.finish()
	}
	o.settle(sp)
	return res
}

// Inspect says what call would do: a call of read_output reads the result
// it pages, named "output:" and its reference (Sources.Leak reads it); any
// other call is the wrapped tools' to say.
func (o *Outputs) Inspect(ctx context.Context, call protocol.Call) approve.Inspection {
	if call.Name == outputName {
		return approve.Inspection{Subject: Subject(call), Reads: []string{outputPrefix + stringArg(call, "ref")}}
	}
	return o.inner.Inspect(ctx, call)
}

// Kept returns the whole result kept under ref, such as out_3.
func (o *Outputs) Kept(ref string) (string, bool) {
	o.mu.Lock()
	out, ok := o.kept[ref]
	o.mu.Unlock()
	if !ok {
		return "", false
	}
	data, err := os.ReadFile(out.path)
	if err != nil {
		return "", false
	}
	return string(data), true
}

// Close removes the files of the outputs, and their folder. The outputs
// are no longer kept after it.
func (o *Outputs) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	clear(o.kept)
	o.order, o.size = nil, 0
	if o.dir == "" {
		return nil
	}
	return os.RemoveAll(o.dir)
}

// create makes the file of a new output and returns it with its
// reference: base, or base with a number after it when base was given
// before (a helper's calls are numbered on their own).
func (o *Outputs) create(base string) (string, *os.File, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return "", nil, errors.New("the outputs were closed")
	}
	if o.dir == "" && o.dirErr == nil {
		o.dir, o.dirErr = makeDir(o.want)
	}
	if o.dirErr != nil {
		return "", nil, o.dirErr
	}
	ref := base
	for n := 2; o.taken[ref]; n++ {
		ref = fmt.Sprintf("%s_%d", base, n)
	}
	f, err := os.OpenFile(filepath.Join(o.dir, ref), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", nil, err
	}
	o.taken[ref] = true
	return ref, f, nil
}

// makeDir makes the folder want, 0700 with its parents, or, when want is
// "" or cannot be made, a new folder in the system's temporary folder.
func makeDir(want string) (string, error) {
	if want != "" {
		if err := os.MkdirAll(filepath.Dir(want), 0o700); err == nil {
			if err := os.Mkdir(want, 0o700); err == nil {
				return want, nil
			}
		}
	}
	return os.MkdirTemp("", "harness-outputs-")
}

// settle keeps the file of sp when its text named it, and removes it
// otherwise; past the bound of a run, the oldest outputs are removed.
func (o *Outputs) settle(sp *spool) {
	sp.mu.Lock()
	f, ref, keep, size := sp.f, sp.ref, sp.kept, sp.size
	sp.done = true
	sp.mu.Unlock()
	if f == nil {
		return
	}
	f.Close()
	o.mu.Lock()
	defer o.mu.Unlock()
	if !keep || o.closed {
		os.Remove(f.Name())
		return
	}
	o.kept[ref] = &output{path: f.Name(), size: size}
	o.order = append(o.order, ref)
	o.size += size
	for o.size > o.maxKept && len(o.order) > 1 {
		old := o.order[0]
		o.order = o.order[1:]
		o.size -= o.kept[old].size
		os.Remove(o.kept[old].path)
		delete(o.kept, old)
		o.gone[old] = true
	}
}

type outputArgs struct {
	Ref    string `arg:"ref" help:"The reference given where the result was cut, such as out_3"`
	Offset int    `arg:"offset,optional" help:"First line, from 1 (default 1)"`
	Limit  int    `arg:"limit,optional" help:"Most lines (default and maximum 2000)"`
}

func (o *Outputs) page(ctx context.Context, a outputArgs) (string, error) {
	o.mu.Lock()
	out, ok := o.kept[a.Ref]
	var index *lineIndex
	if ok {
		index = out.index
	}
	refs := slices.Clone(o.order)
	gone := o.gone[a.Ref]
	o.mu.Unlock()
	switch {
	case !ok && gone:
		return "", fmt.Errorf("%s is no longer kept: a run keeps at most %d bytes of outputs, and the oldest go first; run the command again, narrower", a.Ref, o.maxKept)
	case !ok && len(refs) == 0:
		return "", fmt.Errorf("no output is kept under %q: no result has been cut so far", a.Ref)
	case !ok:
		return "", fmt.Errorf("no output is kept under %q; kept: %s", a.Ref, strings.Join(refs, ", "))
	}
	first, limit := max(a.Offset, 1), a.Limit
	if limit <= 0 || limit > maxReadLines {
		limit = maxReadLines
	}
	f, err := os.Open(out.path)
	if err != nil {
		return "", fmt.Errorf("%s can no longer be read: %w", a.Ref, err)
	}
	defer f.Close()
	// The first page reads the whole output to count its lines and mark
	// where some begin; the next start near their first line.
	page := pageBytes(ctx)
	var w window
	if index == nil {
		w, err = readWindow(ctx, bufio.NewReader(f), mark{line: 1}, first, limit, page, true)
		if err == nil {
			kept := w.index
			index = &kept
			o.mu.Lock()
			out.index = index
			o.mu.Unlock()
		}
	} else if first <= index.total {
		from := index.near(first)
		if _, err = f.Seek(from.off, io.SeekStart); err == nil {
			w, err = readWindow(ctx, bufio.NewReader(f), from, first, limit, page, false)
		}
	}
	if err != nil {
		return "", err
	}
	w.total = index.total
	if first > w.total {
		return "", fmt.Errorf("offset %d is past the end of %s, which has %d lines", first, a.Ref, w.total)
	}
	text := strings.ToValidUTF8(string(w.text), "\uFFFD")
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	note := fmt.Sprintf("[lines %d-%d of %d of %s", first, w.last, w.total, a.Ref)
	if w.last < w.total {
		note += readOn(outputName, w.last, w.total, !w.cut && w.last-first+1 < limit && page < maxReadBytes, page)
	}
	return text + note + "]", nil
}
