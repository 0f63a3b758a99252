// Package approve puts the user between the model and the tools. A Gate
// wraps the tools of a run: before a call runs, and before its output goes
// back to the model, it may ask the user, through an Asker, whether to go
// on. The loop sees a Gate as any other set of tools.
//
// # Modes
//
//	auto   reads run without asking; writes and commands ask first
//	edits  reads and file edits (Inspection.Edits) run without asking; commands ask first
//	ask    every call asks first
//	deny   no call runs
//	all    every call runs without asking (for tests and throwaway sandboxes)
//
// In auto, edits and ask, a call that would read a secret asks first, even
// a read or an edit, and output that looks like it holds a secret (a
// private key, an access token, a password) asks before it is sent back.
// In all, which asks nothing, nobody can agree to a secret: such a call is
// refused (outcome SecretKept), and such an output withheld.
// Without anyone to ask, mode edits is the one that lets an unattended run
// change files: its commands and secrets are refused. Answering "always" stops
// the same question (same tool, same command or path) from being asked
// again in the run. An Asker that cannot reach anyone, as when there is no
// terminal, answers no: the call is refused and its result says that
// nobody could approve it.
//
// # Secrets are decided per file
//
// Given the files a call reads (Inspection.Reads) and what their text seems
// to hold (Config.Leak), the Gate decides secrecy for a whole file, once: a file
// any part of which looks like it holds a secret is asked about before
// any part of it is sent, whichever page or transformation of it (rev,
// xxd, read_file with an offset) the call would return, and the answer
// stands for that file for the rest of the run. A "no" for a secret,
// found by its name or by its text, stands for every later call that
// reads the file, even should the file stop looking secret (an approved
// edit of .gitignore).
package approve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"harness/protocol"
)

// Mode says when the user is asked.
type Mode string

const (
	Auto  Mode = "auto"
	Edits Mode = "edits"
	Ask   Mode = "ask"
	Deny  Mode = "deny"
	All   Mode = "all"
)

// ParseMode reads a mode by its name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Auto, Edits, Ask, Deny, All:
		return m, nil
	}
	return "", fmt.Errorf("unknown approval mode %q; use auto, edits, ask, deny or all", s)
}

// Answer is what the user said.
type Answer int

const (
	No     Answer = iota
	Yes           // this once
	Always        // this time and whenever the same question comes again
)

// Kind says what a question is about.
type Kind int

const (
	Run  Kind = iota // running a call
	Send             // sending a call's output back to the model
)

// Question is one thing the user is asked.
type Question struct {
	Kind Kind
	Tool string
	// Subject is what the call acts on: its command or its path; it may be
	// empty.
	Subject string
	// Why says what makes the question needed beyond the mode, such as the
	// secret a call would read; it may be empty.
	Why string
	// Detail shows what the call would do, to read before answering: the
	// diff of an edit, the first lines of a new file (Inspection.Preview). It
	// may be empty, is never part of String, and is shown with the
	// characters a terminal would act on escaped. Two questions that
	// differ only in Detail are the same question to "always".
	Detail string
}

// String returns the question as the user reads it, e.g.
// "Run bash: go test ./...?". Control characters in the subject are shown
// escaped, so that a command cannot hide part of itself on a terminal. A
// subject of more than one line is shown with its lines numbered, each
// run of blank lines as one line, and its count of lines stated, so that
// no line can hide below a screenful of blank ones:
//
//	Run bash (62 lines, 60 blank):
//	 1  git status --short
//	 …  60 blank lines (2-61)
//	62  git push
//	Run all 62 lines?
func (q Question) String() string {
	subject := strings.TrimSuffix(q.Subject, "\n")
	if lines := strings.Split(subject, "\n"); len(lines) > 1 {
		return q.lines(lines)
	}
	what := q.Tool
	if subject != "" {
		what += ": " + squeeze(Visible(subject))
	}
	s := "Run " + what + "?"
	if q.Kind == Send {
		s = "Send the output of " + what + " to the model?"
	}
	if q.Why != "" {
		s += " (" + q.Why + ")"
	}
	return s
}

// lines is String for a subject of several lines.
func (q Question) lines(lines []string) string {
	blank := 0
	for _, l := range lines {
		if isBlank(l) {
			blank++
		}
	}
	head := fmt.Sprintf("%s (%d lines, %d blank):\n", q.Tool, len(lines), blank)
	var b strings.Builder
	if q.Kind == Send {
		b.WriteString("Send the output of " + head)
	} else {
		b.WriteString("Run " + head)
	}
	width := len(fmt.Sprint(len(lines)))
	for i := 0; i < len(lines); {
		if !isBlank(lines[i]) {
			fmt.Fprintf(&b, "%*d  %s\n", width, i+1, squeeze(Visible(lines[i])))
			i++
			continue
		}
		j := i + 1
		for j < len(lines) && isBlank(lines[j]) {
			j++
		}
		if j-i == 1 {
			fmt.Fprintf(&b, "%*d\n", width, i+1)
		} else {
			fmt.Fprintf(&b, "%*s  %d blank lines (%d-%d)\n", width, "…", j-i, i+1, j)
		}
		i = j
	}
	if q.Kind == Send {
		b.WriteString("Send it to the model?")
	} else {
		fmt.Fprintf(&b, "Run all %d lines?", len(lines))
	}
	if q.Why != "" {
		b.WriteString(" (" + q.Why + ")")
	}
	return b.String()
}

func isBlank(line string) bool { return strings.TrimSpace(line) == "" }

// maxBlankRun is the longest run of spaces and tabs a question shows as
// it is; a longer one could push the start of a command rows above the
// rest of the question, out of sight.
const maxBlankRun = 32

// squeeze replaces each run of more than maxBlankRun spaces and tabs in
// line with a note of its length ("… 12000 spaces …").
func squeeze(line string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(line); {
		if line[i] != ' ' && line[i] != '\t' {
			i++
			continue
		}
		j := i
		tabs := false
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			tabs = tabs || line[j] == '\t'
			j++
		}
		if j-i > maxBlankRun {
			what := "spaces"
			if tabs {
				what = "spaces and tabs"
			}
			b.WriteString(line[last:i])
			fmt.Fprintf(&b, " … %d %s … ", j-i, what)
			last = j
		}
		i = j
	}
	if last == 0 {
		return line
	}
	b.WriteString(line[last:])
	return b.String()
}

// ErrNobody is returned by an Asker when nobody can answer.
var ErrNobody = errors.New("nobody could approve it: there is no terminal to ask on")

// Asker asks the user a question. It returns an error, such as ErrNobody or
// ctx's error, when no answer could be had.
type Asker interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// Nobody is the Asker of a run with no terminal: it answers nothing.
var Nobody Asker = nobody{}

type nobody struct{}

func (nobody) Ask(context.Context, Question) (Answer, error) { return No, ErrNobody }

// Tools is what a Gate wraps: tools.Set, or another Gate.
type Tools interface {
	Specs() []protocol.ToolSpec
	Run(ctx context.Context, call protocol.Call) protocol.Result
}

// Outcome says how a Gate decided a call. Code branches on it, never on a
// Decision's Why, which is only for people to read.
type Outcome int

const (
	// ModeAllowed: the mode let the call run without a question.
	ModeAllowed Outcome = iota + 1
	// ModeDenied: mode deny refused the call.
	ModeDenied
	// CheckRefused: the call's Inspection refused it before anyone was asked.
	CheckRefused
	// UserYes: the user was asked and said yes.
	UserYes
	// UserAlways: the user was asked and said always.
	UserAlways
	// UserNo: the user was asked and said no.
	UserNo
	// AlwaysBefore: the user said always to the same question earlier, so
	// it was not asked again.
	AlwaysBefore
	// Unanswered: the question was asked and nobody answered it: there
	// was nobody to ask, or the input ended.
	Unanswered
	// Interrupted: the question was asked and the run was interrupted
	// (its context ended) before an answer came.
	Interrupted
	// WithheldBefore: the call reads a file the user refused to share
	// earlier in the run, so it was refused without asking again.
	WithheldBefore
	// SecretKept: mode all, which asks nothing, refused a call that would
	// read a secret, or withheld an output that looks like one.
	SecretKept
)

// String names the outcome, for messages and tests.
func (o Outcome) String() string {
	switch o {
	case ModeAllowed:
		return "mode allowed"
	case ModeDenied:
		return "mode denied"
	case CheckRefused:
		return "check refused"
	case UserYes:
		return "user yes"
	case UserAlways:
		return "user always"
	case UserNo:
		return "user no"
	case AlwaysBefore:
		return "always before"
	case Unanswered:
		return "unanswered"
	case Interrupted:
		return "interrupted"
	case WithheldBefore:
		return "withheld before"
	case SecretKept:
		return "secret kept"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Allowed reports whether the call may go on.
func (o Outcome) Allowed() bool {
	return o == ModeAllowed || o == UserYes || o == UserAlways || o == AlwaysBefore
}

// Asked reports whether the Asker was asked.
func (o Outcome) Asked() bool {
	return o == UserYes || o == UserAlways || o == UserNo || o == Unanswered || o == Interrupted
}

// Decision is one decision a Gate made, for the run's record.
type Decision struct {
	Call     protocol.Call
	Question Question // the zero Question when none was asked
	Outcome  Outcome
	// Why explains the decision to people: "mode all", "the user said
	// yes", the reason nobody could answer... It may be reworded at any
	// time: branch on Outcome.
	Why string
}

// Allowed reports whether the call may go on.
func (d Decision) Allowed() bool { return d.Outcome.Allowed() }

// Inspector says what a call would do before it runs: the tools know
// their own calls. tools.Set is one.
type Inspector interface {
	Inspect(ctx context.Context, call protocol.Call) Inspection
}

// Inspection is what an Inspector says of one call.
type Inspection struct {
	// Refusal, when set, refuses the call before anyone is asked: its
	// text is the result. The bash tool's guard refuses here, so that
	// nobody is asked about a command that would be refused anyway.
	Refusal error
	// Subject is what the call acts on, for its question: its command,
	// its path, the arguments of a tool the harness cannot see into. It
	// may be empty.
	Subject string
	// Edits says that the call only edits or writes files in the
	// workspace: mode edits runs it without asking (unless it touches a
	// secret).
	Edits bool
	// Preview shows what the call would do, for the question that asks
	// whether to run it: the Question's Detail. "" shows nothing.
	Preview string
	// Reads names what the call would read: files by their path in the
	// workspace, kept results by their reference. With Config.Leak the
	// Gate decides secrecy per file (see the package documentation).
	Reads []string
	// Secret says why the call would read a secret, or "". Such a call is
	// asked about in modes auto, edits and ask, and runs with the context
	// Config.Permit returns when allowed.
	Secret string
	// Warn says what the user should know before the call runs beyond the
	// call itself, such as the protected files a change of .gitignore
	// would expose, or "". A call it warns about is asked about in modes
	// auto, edits and ask, with the warning in the question.
	Warn string
	// With, when set, returns the context the call runs in, carrying what
	// the inspection found so that the tool need not find it again: the
	// bash tool runs the command line its inspection parsed and checked.
	With func(context.Context) context.Context
}

// Config says how a Gate decides.
type Config struct {
	Mode  Mode
	Asker Asker // nil means Nobody
	// Inspector says what each call would do; nil knows nothing of any
	// call.
	Inspector Inspector
	// Permit returns the context a call that reads a secret runs in when
	// the user allowed it (Inspection.Secret).
	Permit func(context.Context) context.Context
	// Leak says what the whole text of a name of Inspection.Reads, or as
	// much of it as is checked, seems to hold, as the package's Leak says
	// of a text. It is asked for every call that reads a file not yet
	// shared: it may keep its answer for a file that has not changed.
	Leak func(name string) string
	// Record, when set, receives every decision.
	Record func(Decision)
}

// maxReadsChecked bounds the files of one call whose text is checked
// before it runs; the output of every call is checked in any case.
const maxReadsChecked = 64

// share says what the user decided for a file's secret.
type share int

const (
	undecided share = iota
	shared          // the user said yes to its secret text
	withheld        // the user said no to a secret it holds
)

// Gate runs calls through its tools as its Config says.
type Gate struct {
	tools Tools
	cfg   Config
	specs []protocol.ToolSpec

	mu     sync.Mutex // held while asking, one question at a time; guards always and files
	always map[Question]bool
	files  map[string]share
}

// New returns a Gate over tools. It panics on an unknown mode, which is a
// mistake in the program: modes come from ParseMode.
func New(tools Tools, cfg Config) *Gate {
	if _, err := ParseMode(string(cfg.Mode)); err != nil {
		panic(err)
	}
	if cfg.Asker == nil {
		cfg.Asker = Nobody
	}
	return &Gate{tools: tools, cfg: cfg, specs: tools.Specs(), always: make(map[Question]bool), files: make(map[string]share)}
}

// Specs returns the specs of the tools the Gate wraps.
func (g *Gate) Specs() []protocol.ToolSpec { return g.tools.Specs() }

// Run decides whether call may run, runs it, and decides whether its
// output may go back to the model.
func (g *Gate) Run(ctx context.Context, call protocol.Call) protocol.Result {
	if g.cfg.Mode == Deny {
		return g.refuse(call, Decision{Outcome: ModeDenied, Why: "mode deny"},
			"Not run: the user's approval mode is deny, so no tool may run. Answer with what you know, without tools.")
	}
	in := g.inspect(ctx, call)
	if in.Refusal != nil {
		return g.refuse(call, Decision{Outcome: CheckRefused, Why: "refused by the check before asking"}, in.Refusal.Error())
	}
	if in.With != nil {
		ctx = in.With(ctx)
	}
	if g.cfg.Mode == All {
		return g.runAll(ctx, call, in)
	}
	reads := in.Reads
	if name, ok := g.withheldFile(reads); ok {
		return g.refuse(call, withheldBefore(name), withheldBody(name))
	}
	secret := in.Secret
	leaky, leakWhy, unchecked := g.secretTexts(reads)
	warn := in.Warn
	q := Question{Kind: Run, Tool: call.Name, Subject: in.Subject, Why: joinWhy(secret, leakWhy, warn)}
	if g.needsAsk(call, in.Edits, secret != "" || leakWhy != "" || warn != "") {
		q.Detail = Visible(in.Preview)
		onlyFiles := secret == "" && warn == "" && !unchecked && !g.needsAsk(call, in.Edits, false)
		ok, d, name := g.askRun(ctx, call, q, reads, leaky, secret != "", onlyFiles)
		switch {
		case d.Outcome == WithheldBefore:
			return g.refuse(call, d, withheldBody(name))
		case !ok:
			return g.refuse(call, d, g.refusal(ctx, d, q))
		}
		g.record(d)
	} else {
		g.record(Decision{Call: call, Outcome: ModeAllowed, Why: "mode " + string(g.cfg.Mode)})
	}
	if secret != "" && g.cfg.Permit != nil {
		ctx = g.cfg.Permit(ctx)
	}
	res := g.tools.Run(ctx, call)
	what := Leak(res.Body)
	if what == "" || g.sharedRead(call, reads) {
		return res
	}
	sq := Question{Kind: Send, Tool: call.Name, Subject: q.Subject, Why: "it looks like it holds " + what}
	g.mu.Lock()
	ok, d := g.ask(ctx, call, sq)
	if d.Outcome == UserNo {
		g.decide(reads, withheld)
	}
	g.mu.Unlock()
	g.record(d)
	if !ok {
		res.OK = false
		res.Body = fmt.Sprintf("The call ran, but its output was withheld: it looks like it holds %s, and %s. Do not try to read it another way; ask the user for what you need.", what, d.Why)
	}
	return res
}

// inspect is what the Inspector says of call.
func (g *Gate) inspect(ctx context.Context, call protocol.Call) Inspection {
	if g.cfg.Inspector == nil {
		return Inspection{}
	}
	return g.cfg.Inspector.Inspect(ctx, call)
}

// runAll runs call in mode all: without a question, but a call that
// would touch a protected file or read a secret is refused, and an output that looks like one is
// withheld, as a question nobody can answer would be in the other modes.
// Nothing is asked, so nothing of a secret is ever agreed to.
func (g *Gate) runAll(ctx context.Context, call protocol.Call, in Inspection) protocol.Result {
	_, leakWhy, _ := g.secretTexts(in.Reads)
	if why := joinWhy(in.Secret, leakWhy); why != "" {
		return g.refuse(call, Decision{Outcome: SecretKept, Why: why},
			fmt.Sprintf("Not run: %s. Approval mode all asks nothing, so it never runs a call that touches a protected file or a secret: nobody could agree to it. Nothing was run. Do without it, or tell the user what you need and why.", why))
	}
	g.record(Decision{Call: call, Outcome: ModeAllowed, Why: "mode all"})
	res := g.tools.Run(ctx, call)
	if what := Leak(res.Body); what != "" {
		g.record(Decision{Call: call, Question: Question{Kind: Send, Tool: call.Name, Subject: in.Subject}, Outcome: SecretKept, Why: "its output looks like it holds " + what})
		res.OK = false
		res.Body = fmt.Sprintf("The call ran, but its output was withheld: it looks like it holds %s, and approval mode all never sends a secret. Do not try to read it another way; ask the user for what you need.", what)
	}
	return res
}

// askRun asks q before call runs, and records the answer for the files
// it reads: with secret (a name made the call secret) a no stands for
// all of reads; else for leaky, the files whose text looks secret, as a
// yes does. It holds the lock from the first look at the files to the
// last, so that calls running together ask once per file: a call whose
// file the user refused meanwhile is refused (and the name of that file
// returned), and one asked only for files the user agreed to share
// meanwhile (onlyFiles) runs.
func (g *Gate) askRun(ctx context.Context, call protocol.Call, q Question, reads, leaky []string, secret, onlyFiles bool) (bool, Decision, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if name, ok := g.withheldLocked(reads); ok {
		d := withheldBefore(name)
		d.Call = call
		return false, d, name
	}
	if onlyFiles && !slices.ContainsFunc(leaky, func(name string) bool { return g.files[name] != shared }) {
		return true, Decision{Call: call, Outcome: ModeAllowed, Why: "mode " + string(g.cfg.Mode) + "; the user agreed to share the files it reads"}, ""
	}
	ok, d := g.ask(ctx, call, q)
	switch {
	case ok:
		g.decide(leaky, shared)
	case d.Outcome != UserNo:
		// Nobody answered: nothing is decided, and the next call asks.
	case secret:
		g.decide(reads, withheld)
	default:
		g.decide(leaky, withheld)
	}
	return ok, d, ""
}

// withheldBefore is the decision on a call that reads name, which the user
// refused to share earlier.
func withheldBefore(name string) Decision {
	return Decision{Outcome: WithheldBefore, Why: "the user refused to share " + name + " earlier in the run"}
}

func withheldBody(name string) string {
	return fmt.Sprintf("Not run: it reads %s, which the user refused to share earlier in this run; that answer stands for every call that reads it. Do not try to read it another way; ask the user for what you need.", name)
}

// withheldFile returns the first of reads the user refused to share.
func (g *Gate) withheldFile(reads []string) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.withheldLocked(reads)
}

func (g *Gate) withheldLocked(reads []string) (string, bool) {
	for _, name := range reads {
		if g.files[name] == withheld {
			return name, true
		}
	}
	return "", false
}

// secretTexts returns the files of reads, not yet shared, whose text
// looks like it holds a secret, and why that asks a question, or "". It
// checks the text of no more than maxReadsChecked files not yet shared;
// when reads holds more, it fails closed: unchecked is set, and the
// reason says that not all could be checked.
func (g *Gate) secretTexts(reads []string) (leaky []string, why string, unchecked bool) {
	if g.cfg.Leak == nil {
		return nil, "", false
	}
	var whys []string
	checked, skipped := 0, 0
	for _, name := range reads {
		g.mu.Lock()
		done := g.files[name] == shared
		g.mu.Unlock()
		if done {
			continue
		}
		if checked == maxReadsChecked {
			skipped++
			continue
		}
		checked++
		if what := g.cfg.Leak(name); what != "" {
			leaky = append(leaky, name)
			whys = append(whys, name+", which looks like it holds "+what)
		}
	}
	if len(leaky) > 0 {
		why = "it reads " + strings.Join(whys, ", ") + "; the answer stands for the whole file for the rest of the run"
	}
	if skipped > 0 {
		why = joinWhy(why, fmt.Sprintf("it reads %d or more files, and only %d of them could be checked for secrets, so not all could be checked", checked+skipped, maxReadsChecked))
	}
	return leaky, why, skipped > 0
}

// decide records the user's answer for the secrets of files. The caller
// holds the lock.
func (g *Gate) decide(files []string, s share) {
	for _, name := range files {
		if g.files[name] != withheld { // a no stands
			g.files[name] = s
		}
	}
}

// sharedRead reports whether call only reads, and only files whose
// secret text the user already agreed to share: its output is their
// text, which needs no second question.
func (g *Gate) sharedRead(call protocol.Call, reads []string) bool {
	if len(reads) == 0 || g.writes(call) {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, name := range reads {
		if g.files[name] != shared {
			return false
		}
	}
	return true
}

func joinWhy(whys ...string) string {
	var out []string
	for _, w := range whys {
		if w != "" {
			out = append(out, w)
		}
	}
	return strings.Join(out, "; ")
}

// needsAsk reports whether running call needs a question in this mode;
// edits says that it only edits files in the workspace, special that
// something about it (a secret, a warning) needs one.
func (g *Gate) needsAsk(call protocol.Call, edits, special bool) bool {
	switch g.cfg.Mode {
	case All:
		return false
	case Ask:
		return true
	}
	if special {
		return true
	}
	if g.cfg.Mode == Edits && edits {
		return false
	}
	return g.writes(call)
}

// writes reports whether call's tool may write, as its spec says; an
// unknown tool may.
func (g *Gate) writes(call protocol.Call) bool {
	i := slices.IndexFunc(g.specs, func(s protocol.ToolSpec) bool { return s.Name == call.Name })
	return i < 0 || g.specs[i].Writes
}

// ask asks q unless the user already answered it with always, and returns
// whether the call may go on and the decision. The caller holds the lock:
// one question at a time.
func (g *Gate) ask(ctx context.Context, call protocol.Call, q Question) (bool, Decision) {
	d := Decision{Call: call, Question: q}
	key := q
	key.Detail = ""
	if g.always[key] {
		d.Outcome, d.Why = AlwaysBefore, "the user said always before"
		return true, d
	}
	answer, err := g.cfg.Asker.Ask(ctx, q)
	switch {
	case err != nil && ctx.Err() != nil:
		d.Outcome, d.Why = Interrupted, "the question was interrupted"
	case err != nil:
		d.Outcome, d.Why = Unanswered, err.Error()
	case answer == Always:
		g.always[key] = true
		d.Outcome, d.Why = UserAlways, "the user said always"
	case answer == Yes:
		d.Outcome, d.Why = UserYes, "the user said yes"
	default:
		d.Outcome, d.Why = UserNo, "the user said no"
	}
	return d.Allowed(), d
}

// refusal is the result body of a call the user did not approve.
func (g *Gate) refusal(ctx context.Context, d Decision, q Question) string {
	if ctx.Err() != nil {
		return "interrupted"
	}
	return fmt.Sprintf("Not run: %s needs the user's approval (approval mode %s), and %s. Nothing was run. Do something else, or tell the user what you wanted to do and why.", strings.TrimSuffix(q.String(), "?"), g.cfg.Mode, d.Why)
}

func (g *Gate) refuse(call protocol.Call, d Decision, body string) protocol.Result {
	d.Call = call
	g.record(d)
	return protocol.Result{CallID: call.ID, Tool: call.Name, Body: body, Refused: true}
}

func (g *Gate) record(d Decision) {
	if g.cfg.Record != nil {
		g.cfg.Record(d)
	}
}

// Visible escapes the characters of s that a terminal would act on rather
// than show: control characters other than newline and tab, and the
// characters that reorder text. Whatever a model or a file wrote passes
// through it before it reaches the user's terminal. Bytes that are not
// UTF-8 show as U+FFFD. Text with nothing to escape comes back as it is,
// without a copy: a streamed reply passes through it line by line.
func Visible(s string) string {
	i := firstToEscape(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case acts(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r) // U+FFFD for a byte that is not UTF-8
		}
	}
	return b.String()
}

// firstToEscape is where the first character of s that Visible changes
// starts, or -1.
func firstToEscape(s string) int {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || acts(r) {
			return i
		}
		i += n
	}
	return -1
}

// acts reports whether a terminal acts on r rather than showing it: a
// control character (C0, DEL, C1), or one that reorders text.
func acts(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f
}
