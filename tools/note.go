package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// notes collects, for one call, what the user should be told and the model
// never reads (protocol.Result.Note): what a lie changed, for one. Set.Run
// gives each call its own, through the context the tool runs with.
type notes struct {
	mu    sync.Mutex
	lines []string
	// changed are the paths, relative to the root, the call was seen to
	// change beside what it names (protocol.Result.Changed).
	changed []string
}

type notesKey struct{}

// withNotes returns ctx carrying a new, empty set of notes.
func withNotes(ctx context.Context) (context.Context, *notes) {
	n := &notes{}
	return context.WithValue(ctx, notesKey{}, n), n
}

// note adds a line to the notes of the call that ctx runs, if it has any.
func note(ctx context.Context, format string, args ...any) {
	n, ok := ctx.Value(notesKey{}).(*notes)
	if !ok {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lines = append(n.lines, fmt.Sprintf(format, args...))
}

// changedAlso records that the call ctx runs changed the paths, relative
// to the root, beside what it names, for the turn's report.
func changedAlso(ctx context.Context, paths ...string) {
	n, ok := ctx.Value(notesKey{}).(*notes)
	if !ok {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.changed = append(n.changed, paths...)
}

// Changed returns the paths changedAlso recorded.
func (n *notes) Changed() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.changed)
}

// String returns the notes one a line, or "".
func (n *notes) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.lines, "\n")
}
