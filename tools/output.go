package tools

import (
	"bufio"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"harness/protocol"
)

// How long results are cut: a result over read_file's limits keeps this
// much of its head and of its tail.
const (
	keepLines = 100
	keepBytes = 8 << 10
	// markerBytes is room for the line a paging tool adds to its window.
	markerBytes = 512
	// maxKept bounds the memory the whole outputs take; the oldest go first.
	maxKept = 64 << 20
)

const outputName = "read_output"

// caller is what Outputs wraps: a set of tools.
type caller interface {
	Specs() []protocol.ToolSpec
	Run(ctx context.Context, call protocol.Call) protocol.Result
}

// Outputs runs the calls of the tools it wraps, but a result longer than
// read_file shows at once (2000 lines or 64 KiB) reaches the model cut to
// its head and tail, with a marker saying what was left out. The whole
// result is kept under a reference named after the call (call_3 keeps
// out_3), which the read_output tool pages through.
type Outputs struct {
	inner caller
	read  *Set // read_output alone

	mu    sync.Mutex
	kept  map[string]*output
	order []string
	size  int
}

// output is a whole result kept for read_output, and once it has been
// paged, where its lines begin.
type output struct {
	body  string
	index *lineIndex
}

// WithOutputs wraps inner.
func WithOutputs(inner caller) *Outputs {
	o := &Outputs{inner: inner, kept: map[string]*output{}}
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
	res := o.inner.Run(ctx, call)
	// A tool that pages by itself (read_file) stays within its limits plus
	// one line saying how to read on; only longer results are cut.
	if len(res.Body) <= maxReadBytes+markerBytes && strings.Count(res.Body, "\n") <= maxReadLines {
		return res
	}
	ref := "out_" + strings.TrimPrefix(call.ID, "call_")
	o.keep(ref, res.Body)
	res.Body = shorten(res.Body, ref)
	return res
}

// Kept returns the whole result kept under ref, such as out_3.
func (o *Outputs) Kept(ref string) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	out, ok := o.kept[ref]
	if !ok {
		return "", false
	}
	return out.body, true
}

func (o *Outputs) keep(ref, body string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.kept[ref] = &output{body: body}
	o.order = append(o.order, ref)
	o.size += len(body)
	for o.size > maxKept && len(o.order) > 1 {
		old := o.order[0]
		o.order = o.order[1:]
		o.size -= len(o.kept[old].body)
		delete(o.kept, old)
	}
}

// shorten keeps the head and tail of body around a marker.
func shorten(body, ref string) string {
	lines := strings.SplitAfter(body, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	head := take(lines, keepLines, keepBytes)
	tailRev := take(reversed(lines[head:]), keepLines, keepBytes)
	tail := len(lines) - tailRev
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

// take counts how many of lines, from the first, fit in n lines and max bytes.
func take(lines []string, n, max int) int {
	size := 0
	for i, l := range lines {
		if i == n || size+len(l) > max {
			return i
		}
		size += len(l)
	}
	return len(lines)
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
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
	o.mu.Unlock()
	if !ok {
		if len(refs) == 0 {
			return "", fmt.Errorf("no output is kept under %q: no result has been cut so far", a.Ref)
		}
		return "", fmt.Errorf("no output is kept under %q; kept: %s", a.Ref, strings.Join(refs, ", "))
	}
	first, limit := max(a.Offset, 1), a.Limit
	if limit <= 0 || limit > maxReadLines {
		limit = maxReadLines
	}
	// The first page reads the whole output to count its lines and mark
	// where some begin; the next start near their first line.
	var w window
	var err error
	if index == nil {
		w, err = readWindow(ctx, bufio.NewReader(strings.NewReader(out.body)), mark{line: 1}, first, limit, true)
		if err == nil {
			kept := w.index
			index = &kept
			o.mu.Lock()
			out.index = index
			o.mu.Unlock()
		}
	} else if first <= index.total {
		from := index.near(first)
		w, err = readWindow(ctx, bufio.NewReader(strings.NewReader(out.body[from.off:])), from, first, limit, false)
	}
	if err != nil {
		return "", err
	}
	w.total = index.total
	if first > w.total {
		return "", fmt.Errorf("offset %d is past the end of %s, which has %d lines", first, a.Ref, w.total)
	}
	text := string(w.text)
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	note := fmt.Sprintf("[lines %d-%d of %d of %s", first, w.last, w.total, a.Ref)
	if w.last < w.total {
		note += fmt.Sprintf("; call %s with offset=%d to read on", outputName, w.last+1)
	}
	return text + note + "]", nil
}
