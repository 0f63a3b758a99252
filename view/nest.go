package view

import (
	"io"
	"strings"
	"sync"

	"harness/loop"
)

// Nest shows the steps of the conversations that calls start (helpers of
// the agent tool) as the main one's are shown, each line indented under
// the call that started it and marked with its id: parallel helpers'
// lines may interleave. It is the helpers' display hook; the main
// conversation's events never reach it.
type Nest struct {
	// Wire says that a Wire shows the helpers' wire on the same screen:
	// their replies are left to it, as Turn.Wire says.
	Wire bool

	w  io.Writer
	st Style

	mu    sync.Mutex
	views map[string]*Turn // by origin, while its turn lasts
}

// NewNest returns the helpers' display hook, writing to w.
func NewNest(w io.Writer, st Style) *Nest {
	return &Nest{w: w, st: st, views: make(map[string]*Turn)}
}

// Event renders e, of a nested conversation, with that conversation's own
// view.
func (n *Nest) Event(e loop.Event) error {
	if e.Origin == "" {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	v, ok := n.views[e.Origin]
	if !ok {
		in := &indented{w: n.w, prefix: strings.Repeat("  ", strings.Count(e.Origin, "/")+1) + n.st.Dim("["+e.Origin+"]") + " "}
		v = &Turn{Out: in, Log: in, Style: n.st, Wire: n.Wire}
		n.views[e.Origin] = v
	}
	v.Event(e)
	if e.Kind == loop.TurnEnded {
		delete(n.views, e.Origin)
	}
	return nil
}

// indented writes to w with prefix at the start of every line.
type indented struct {
	w      io.Writer
	prefix string
	mid    bool // the last write ended inside a line
}

func (in *indented) Write(p []byte) (int, error) {
	var b strings.Builder
	for _, line := range strings.SplitAfter(string(p), "\n") {
		if line == "" {
			continue
		}
		if !in.mid {
			b.WriteString(in.prefix)
		}
		b.WriteString(line)
		in.mid = !strings.HasSuffix(line, "\n")
	}
	if _, err := io.WriteString(in.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}
