package tools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"harness/protocol"
)

// Set is the tools of one run, by name.
type Set struct {
	tools map[string]Tool
	specs []protocol.ToolSpec
}

// NewSet returns the set of ts. Each tool needs a name of its own.
func NewSet(ts ...Tool) (*Set, error) {
	s := &Set{tools: make(map[string]Tool, len(ts))}
	for _, t := range ts {
		name := t.spec.Name
		if name == "" {
			return nil, errors.New("tools: a tool has no name")
		}
		if _, dup := s.tools[name]; dup {
			return nil, fmt.Errorf("tools: two tools are named %q", name)
		}
		s.tools[name] = t
		s.specs = append(s.specs, t.Spec())
	}
	slices.SortFunc(s.specs, func(a, b protocol.ToolSpec) int { return strings.Compare(a.Name, b.Name) })
	return s, nil
}

// Specs returns what the model is told about the tools, sorted by name.
func (s *Set) Specs() []protocol.ToolSpec {
	specs := make([]protocol.ToolSpec, len(s.specs))
	for i, spec := range s.specs {
		specs[i] = spec
		specs[i].Args = slices.Clone(spec.Args)
	}
	return specs
}

// Run runs call and returns its result. Every failure is an ERROR result:
// a call that does not fit the tools (checked again, though the caller
// should have checked it), a tool that fails, panics or is interrupted by
// ctx. Run may be called from several goroutines at once.
func (s *Set) Run(ctx context.Context, call protocol.Call) protocol.Result {
	res := protocol.Result{CallID: call.ID, Tool: call.Name}
	call.Args = maps.Clone(call.Args) // Check converts numbers in place
	if err := protocol.Validate(s.specs, &call); err != nil {
		return protocol.Rejected(call, err)
	}
	if ctx.Err() != nil {
		res.Body = "interrupted before the call started; nothing was run"
		return res
	}
	t := s.tools[call.Name]
	ctx, notes := withNotes(ctx)
	body, err := s.call(ctx, t, call.Args)
	res.Note, res.Changed = notes.String(), notes.Changed()
	res.Wrote = t.spec.Writes && (err == nil || errors.Is(err, ErrMayHaveChanged)) && (t.reads == nil || !t.reads(ctx, call.Args)) || len(res.Changed) > 0
	switch {
	case err != nil && ctx.Err() != nil:
		res.Body = "interrupted: the call was stopped before it finished"
		if t.spec.Writes {
			res.Body += map[bool]string{true: "; it may have changed files already", false: "; nothing was written"}[res.Wrote]
		}
	case err != nil:
		res.Body = err.Error()
	default:
		res.OK = true
		res.Body = body
	}
	return res
}

// ErrMayHaveChanged is wrapped by the error of a writing tool that failed
// after it began to act, so that the workspace may have changed: a command
// that ran and exited with an error, timed out or was interrupted. Any
// other error of a writing tool means that nothing was written.
var ErrMayHaveChanged = errors.New("may have changed the workspace")

// call runs t, turning a panic into an error.
func (s *Set) call(ctx context.Context, t Tool, args map[string]any) (body string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s crashed (%v); this is a fault in the harness, not in your call", t.spec.Name, p)
		}
	}()
	return t.run(ctx, args)
}
