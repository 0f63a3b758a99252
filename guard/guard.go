package guard

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// ErrRefused is wrapped by every *Refusal.
var ErrRefused = errors.New("command refused")

// Refusal says which part of a command line was refused and why.
type Refusal struct {
	// Line and Col locate the refused part in the command line, counting
	// from 1; both are 0 when the whole line is refused.
	Line, Col int
	// Text is the refused part as written, shortened when long.
	Text string
	// Reason says why, and what to do instead.
	Reason string
}

func (r *Refusal) Error() string {
	switch {
	case r.Line == 0:
		return r.Reason
	case r.Text == "":
		return fmt.Sprintf("%d:%d: %s", r.Line, r.Col, r.Reason)
	}
	return fmt.Sprintf("%d:%d: %s: %s", r.Line, r.Col, r.Text, r.Reason)
}

func (r *Refusal) Unwrap() error { return ErrRefused }

// Workspace is what the guard needs to know of the folder a command runs
// in. tools.Workspace provides it.
type Workspace interface {
	// Root is the absolute directory the command runs in.
	Root() string
	// CheckPath returns nil when a command may use path, written as in the
	// command and taken from the root; write says whether it is written
	// (the target of >, >>) rather than read or passed on. The error says
	// why not: outside the workspace, or protected.
	CheckPath(path string, write bool) error
}

// Policy says which commands may run. The zero Policy allows nothing; use
// New.
type Policy struct {
	allow map[string]bool
	block map[string]bool
	// limit bounds the time of one check (maxCheckTime unless set).
	limit time.Duration
	// parsed counts the command lines parsed (Parse).
	parsed atomic.Int64
}

// SetCheckLimit bounds each check of the policy to d (10 seconds unless
// set; 0 for none but the caller's deadline).
func (p *Policy) SetCheckLimit(d time.Duration) { p.limit = d }

// maxCheckTime bounds the time of one check, whatever the caller's
// deadline: a line of globs over many names that look like options makes
// many paths to check, each cheap, and a check that asks no question and
// runs nothing must still end. A plain command line is checked in well
// under a millisecond.
const maxCheckTime = 10 * time.Second

// New returns the default policy with the commands in allow added to its
// allowlist and those in block refused even when allowed. A name must be a
// plain command name. Commands the guard cannot see through (eval, exec,
// sh, xargs, sudo, ...) cannot be allowed.
func New(allow, block []string) (*Policy, error) {
	p := &Policy{allow: make(map[string]bool), block: make(map[string]bool), limit: maxCheckTime}
	for _, name := range defaultAllow {
		p.allow[name] = true
	}
	for _, name := range allow {
		if err := checkName(name); err != nil {
			return nil, fmt.Errorf("allow %q: %w", name, err)
		}
		if why, ok := never()[name]; ok {
			return nil, fmt.Errorf("allow %q: it cannot be allowed: %s", name, why)
		}
		p.allow[name] = true
	}
	for _, name := range block {
		if err := checkName(name); err != nil {
			return nil, fmt.Errorf("block %q: %w", name, err)
		}
		p.block[name] = true
	}
	return p, nil
}

func checkName(name string) error {
	if name == "" || strings.ContainsAny(name, "/ \t\n\x00=$`'\"\\;&|<>(){}") {
		return errors.New("not a plain command name")
	}
	return nil
}

// Allowed returns the commands the policy lets run, sorted.
func (p *Policy) Allowed() []string {
	var names []string
	for name := range p.allow {
		if !p.block[name] {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}
