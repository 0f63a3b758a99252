package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"harness/approve"
	"harness/guard"
	"harness/loop"
	"harness/protocol"
	"harness/record"
	"harness/sandbox"
	"harness/tools"
)

// safetyFlags choose how commands run and when the user is asked. Their
// zero values mean the defaults, so a command that only shows the tools
// (harness prompt) can build them without parsing any.
type safetyFlags struct {
	Sandbox      string        `default:"auto" enum:"auto,bwrap,none" env:"HARNESS_SANDBOX" group:"Safety" help:"Run bash commands inside bubblewrap (bwrap): auto uses it where it works and says so once when it does not, bwrap requires it, none runs commands checked by the command guard only."`
	SandboxHide  []string      `placeholder:"PATH" sep:"none" group:"Safety" help:"Hide PATH from commands, besides ~/.ssh, ~/.aws, ~/.gnupg and the other known secret places (with bwrap). Repeatable."`
	SandboxWrite []string      `placeholder:"PATH" sep:"none" group:"Safety" help:"Let commands write PATH, such as a build cache (with bwrap; only the workspace and a private /tmp are writable otherwise). Repeatable."`
	BashTimeout  time.Duration `default:"2m" group:"Safety" help:"Most time one bash command may take; then it and everything it started are killed."`
	BashAllow    []string      `placeholder:"NAME" group:"Safety" help:"Add NAME to the commands bash may run (default: read-only tools and common build and test commands). Repeatable."`
	BashBlock    []string      `placeholder:"NAME" group:"Safety" help:"Refuse the command NAME even when allowed. Repeatable."`
	Approve      string        `default:"auto" enum:"auto,ask,deny,all" env:"HARNESS_APPROVE" group:"Safety" help:"When to ask you: auto asks before writes and commands, ask before every call, deny refuses every call, all never asks (for tests and throwaway sandboxes). Without a terminal a question counts as no."`

	state *safety `kong:"-"`
}

// safety is what the flags built, kept between building the tools and
// wrapping them.
type safety struct {
	ws     *tools.Workspace
	policy *guard.Policy
	box    *sandbox.Sandbox
	log    io.Writer
	rec    *record.Recorder
	turn   atomic.Int64
	told   atomic.Bool // the user was told commands run without bwrap
	mu     sync.Mutex  // calls that only read may run, and be decided, at once
}

// bashTool returns the bash tool for ws as the first of flags configures
// it, or as the defaults do when none is given.
func bashTool(ws *tools.Workspace, flags ...*safetyFlags) (tools.Tool, error) {
	s := &safetyFlags{}
	if len(flags) > 0 && flags[0] != nil {
		s = flags[0]
	}
	policy, err := guard.New(s.BashAllow, s.BashBlock)
	if err != nil {
		return tools.Tool{}, fmt.Errorf("--bash-allow/--bash-block: %w", err)
	}
	mode := sandbox.Mode(s.Sandbox)
	if mode == "" {
		mode = sandbox.Auto
	}
	box, err := sandbox.New(sandbox.Config{
		Mode:    mode,
		Dir:     ws.Root(),
		Write:   homePaths(s.SandboxWrite),
		Hide:    homePaths(s.SandboxHide),
		Timeout: s.BashTimeout,
	})
	if err != nil {
		return tools.Tool{}, err
	}
	s.state = &safety{ws: ws, policy: policy, box: box}
	return tools.Bash(ws, policy, box), nil
}

// homePaths expands a leading ~/ in paths given in a way no shell expanded.
func homePaths(paths []string) []string {
	home, err := os.UserHomeDir()
	out := make([]string, len(paths))
	for i, p := range paths {
		if rest, ok := strings.CutPrefix(p, "~/"); ok && err == nil {
			p = filepath.Join(home, rest)
		}
		out[i] = p
	}
	return out
}

// gate wraps ts, built by (*workspaceFlags).tools with these flags, in
// the approval gate. It starts the sandbox, saying once when commands will
// run without bwrap. Questions go to the REPL's output in the REPL, and to
// stderr with -p, where they are answered only when stdin is a terminal.
func (s *safetyFlags) gate(e *env, ts loop.Tools, inREPL bool) (loop.Tools, error) {
	st := s.state
	if st == nil {
		return nil, fmt.Errorf("the tools were built without the safety flags")
	}
	mode, err := approve.ParseMode(s.Approve)
	if s.Approve == "" {
		mode, err = approve.Auto, nil
	}
	if err != nil {
		return nil, err
	}
	st.log = e.stderr
	var asker *lineAsker
	switch {
	case inREPL:
		st.log = e.stdout
		asker = &lineAsker{out: e.stdout, echo: !interactive(e.stdin)}
	case interactive(e.stdin):
		asker = &lineAsker{out: e.stderr, start: func() <-chan string { return readLines(e.stdin) }}
	}
	// Starting bwrap to see that it works costs a run a few tens of
	// milliseconds: it is done here only when it must fail early (bwrap
	// required) or costs nothing (bwrap missing); otherwise the first
	// command does it, and its result tells of a fallback.
	if s.Sandbox == string(sandbox.Bwrap) || !st.box.Installed() {
		if err := st.box.Start(e.ctx); err != nil {
			return nil, fmt.Errorf("--sandbox bwrap: %w", err)
		}
	}
	if why := st.box.TakeNotice(); why != "" {
		st.tellFallback(why)
	}
	cfg := approve.Config{
		Mode:   mode,
		Check:  tools.BashCheck(st.ws, st.policy),
		Secret: st.ws.SecretRead,
		Permit: tools.WithSecrets,
		Record: st.decided,
	}
	if asker != nil {
		cfg.Asker = asker
	}
	return &gated{Gate: approve.New(ts, cfg), asker: asker, st: st}, nil
}

// tellFallback says, once, that commands run without bwrap, and why.
func (st *safety) tellFallback(why string) {
	if st.told.Swap(true) {
		return
	}
	fmt.Fprintf(st.log, "sandbox: bash commands run without bubblewrap (%s); the command guard still checks each one. Install bubblewrap for a sandbox, or pass --sandbox none to say you mean it.\n", why)
}

// attach sends the gate's decisions to the run's record, when r writes
// one, with the turn each was made in.
func (s *safetyFlags) attach(r *runner) {
	st := s.state
	if st == nil {
		return
	}
	for _, h := range r.hooks {
		if rec, ok := h.(*record.Recorder); ok {
			st.rec = rec
		}
	}
	r.hooks = append(r.hooks, loop.Observe(func(e loop.Event) {
		if e.Kind == loop.TurnStarted {
			st.turn.Store(int64(e.Turn))
		}
	}))
}

// decided records a decision of the gate. Decisions nobody answered are
// also shown, since no question on the screen told of them.
func (st *safety) decided(d approve.Decision) {
	word := decisionWord(d)
	if word == "" {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	question := "run"
	if d.Question.Kind == approve.Send {
		question = "send"
	}
	if st.rec != nil {
		st.rec.Approval(int(st.turn.Load()), d.Call.ID, d.Call.Name, question, word)
	}
	if h := hint(d); h != "" {
		fmt.Fprintf(st.log, "approval: %s %s refused: %s (--approve %s)\n", d.Call.ID, d.Call.Name, d.Why, h)
	}
}

// decisionWord is the record's word for a decision a person made or could
// not make, or for mode deny; "" for one the mode or the check made alone,
// which the call and result lines already tell.
func decisionWord(d approve.Decision) string {
	switch d.Outcome {
	case approve.UserYes:
		return "yes"
	case approve.UserAlways, approve.AlwaysBefore:
		return "always"
	case approve.UserNo, approve.ModeDenied:
		return "no"
	case approve.Unanswered:
		return "nobody"
	}
	return ""
}

// hint completes "(--approve ...)" after a refusal that no question on the
// screen told of; it is "" for the decisions the screen already shows.
func hint(d approve.Decision) string {
	switch d.Outcome {
	case approve.ModeDenied:
		return "deny refuses every call"
	case approve.Unanswered:
		return "all runs everything without asking"
	}
	return ""
}

// gated is the tool set of a chat: the approval gate, and the asker it
// asks through, which the REPL gives its input lines.
type gated struct {
	*approve.Gate
	asker *lineAsker
	st    *safety
}

// Run runs call through the gate. The first command finds out whether
// bwrap works; when it does not, the user is told then, as the model is in
// the command's result.
func (g *gated) Run(ctx context.Context, call protocol.Call) protocol.Result {
	res := g.Gate.Run(ctx, call)
	if why := g.st.box.Fallback(); why != "" {
		g.st.tellFallback(why)
	}
	return res
}

// listen lets the approval questions of ts read their answers from lines,
// the REPL's input. The REPL calls it once it reads its input.
func listen(ts loop.Tools, lines <-chan string) {
	if g, ok := ts.(*gated); ok && g.asker != nil {
		g.asker.listen(lines)
	}
}

var _ loop.Tools = (*gated)(nil)
