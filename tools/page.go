package tools

import (
	"context"
	"fmt"

	"harness/approve"
	"harness/plural"
	"harness/protocol"
)

// minPage is the fewest bytes a page holds, whatever the context allows:
// less would show too little to be worth a call.
const minPage = 1 << 10

// pageKey marks a context that bounds the pages of read_file and
// read_output.
type pageKey struct{}

// WithPageBytes returns ctx in which a page of read_file or read_output
// holds at most n bytes: what the model's context window can take of one
// result, as the program that knows the window reckons it. A page is
// never more than 64 KiB, nor less than 1 KiB; n <= 0 leaves pages at
// 64 KiB.
func WithPageBytes(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, pageKey{}, n)
}

// pageBytes is the most bytes a page holds in ctx, a whole number of KiB.
func pageBytes(ctx context.Context) int {
	n, _ := ctx.Value(pageKey{}).(int)
	if n <= 0 || n >= maxReadBytes {
		return maxReadBytes
	}
	return max(n&^(1<<10-1), minPage)
}

// kib says n bytes, a whole number of KiB, as "10 KiB".
func kib(n int) string { return fmt.Sprintf("%d KiB", n>>10) }

// readOn is the end of the note of a page of tool that ends at line last
// of total: how many lines are left and how to read on. small says the
// page ended at its size, page bytes, smaller than usual to fit the
// context window.
func readOn(tool string, last, total int, small bool, page int) string {
	s := ""
	if small {
		s = fmt.Sprintf("; a page holds at most %s, to fit the context window", kib(page))
	}
	return s + fmt.Sprintf("; %s left: call %s with offset=%d to read on", plural.Count(total-last, "line"), tool, last+1)
}

// Pages runs the calls of the tools it wraps with pages bounded as the
// context window allows (see WithPageBytes).
type Pages struct {
	inner caller
	page  func() int
}

// WithPages wraps inner so that each call runs with pages of at most
// page() bytes, asked at each call: the window may change between calls
// (another model, with another window). page returning 0 or less leaves
// pages as they are.
func WithPages(inner caller, page func() int) *Pages {
	return &Pages{inner: inner, page: page}
}

// Specs returns the wrapped tools' specs.
func (p *Pages) Specs() []protocol.ToolSpec { return p.inner.Specs() }

// Run runs call with its pages bounded.
func (p *Pages) Run(ctx context.Context, call protocol.Call) protocol.Result {
	if n := p.page(); n > 0 {
		ctx = WithPageBytes(ctx, n)
	}
	return p.inner.Run(ctx, call)
}

// Inspect says what call would do, as the wrapped tools say it.
func (p *Pages) Inspect(ctx context.Context, call protocol.Call) approve.Inspection {
	return p.inner.Inspect(ctx, call)
}
