// Package record writes a run as it happens, one JSON object a line, and
// reads it back as a transcript.
//
// # Schema
//
// Every line is an object with these fields:
//
//	type  string   what happened (below)
//	time  string   when, RFC 3339 with nanoseconds
//	turn  int      the turn, from 1 (0 on "start")
//	step  int      the step within the turn, from 1 (0 when none)
//	origin string  the conversation the line belongs to: absent for the
//	               main one; for one a call started (a sub-agent), that
//	               call's id, e.g. "call_3" (see loop.Config.Origin). Its
//	               turn and step count in that conversation, and its lines
//	               come between the call's "call" and "result" lines.
//	               "summary" (window.SummaryOrigin) marks the request and
//	               reply of a summary that a compaction asked the model
//	               for: they carry the turn and step of the main
//	               conversation's step they came before, and the
//	               "compaction" line follows them
//
// and, by type:
//
//	start        format (int: the version of this schema, now 1; absent
//	             in records written before it had one, which read as 1),
//	             version, model, backend, workspace, options (object: the
//	             settings the backend was configured with, which every
//	             request carries; the stop sequences are on each request
//	             line), ignored ([]string: settings asked for that the
//	             backend ignores; absent when none), tools ([]string),
//	             system_prompt_bytes; in a session, also session (its id)
//	             and name (when it was saved under one)
//	turn         input: the user's words, as the model got them; typed
//	             (string): in the main conversation, the input as the
//	             user typed it, before the harness added to it (what its
//	             @tags attach, a note of what a command changed); absent
//	             when the same as input, or unknown
//	request      messages (count), bytes (of all message contents),
//	             stop ([]string): one model call is about to be made
//	reply        content, thinking, done_reason ("stop", "length" or ""),
//	             duration_ms, usage (object: prompt_tokens, output_tokens,
//	             prompt_ms, output_ms; null when the backend reported
//	             none: unknown, not zero), calls (count), forged_line
//	interrupted  content and thinking that had arrived, duration_ms: the
//	             model call was interrupted; nothing of it was run
//	call         id, tool, args (object), writes (bool): a call is about
//	             to run, or to be refused; read_as (string: the shape it
//	             was written in when not the documented one, such as
//	             "Hermes <tool_call>") and repairs ([]string: the slips
//	             forgiven in reading it, such as "trailing comma"), each
//	             absent when none
//	result       id, tool, ran (bool: false when refused before running),
//	             ok (bool), writes, wrote (bool: the call changed the
//	             workspace, or may have), duration_ms, body: what the model
//	             reads, note (string: what the user was told and the
//	             model never read, such as what a lie changed; absent
//	             when none)
//	notice       text
//	compaction   messages_before, messages_after, bytes_before,
//	             bytes_after (of all message contents), tokens_before,
//	             tokens_after (by the compactor's count, After an estimate;
//	             0 when it counts none): before the step, the conversation
//	             was compacted to fit the context window, and the step's
//	             request is the shorter one
//	model        from, to (strings): the model named to, which the
//	             conversation used as from until now, answers from turn
//	             on (the REPL's /model; in a session, also a resumed
//	             conversation that goes on with another model)
//	turn_end     answer, error (string, "" for none), report (object:
//	             turn, steps, succeeded, failed, changed, tested,
//	             tests_passed, empty_test_runs (absent when 0),
//	             unverified, interrupted, unreported (replies without a
//	             token count; absent when 0))
//	approval     id, tool, question ("run" or "send"), decision ("yes",
//	             "no", "always", or "nobody" when nobody could be asked);
//	             turn and step are the main conversation's (step 0 in
//	             records written before it had one), and the id of a call of
//	             a nested conversation is its origin, "/" and its own id
//	             (call_3/call_1)
//	answer       answer, error (string, "" for none), exit (int: the exit
//	             code the harness ends with: 0 an answer, 1 an error, 2 bad
//	             usage, 3 a limit ended the turn, 130 interrupted), limit
//	             (string: the setting whose limit ended the turn, such as
//	             "max-steps"; absent when none): how the run ended, the
//	             last line of a run's output, never in a record file
//
// A run's output (-p --output json; NewOutput) is a record written to
// stdout, with the format (as on the start line) on every line, second
// after the type, and an answer line last.
//
// A session (package session) is a record of the conversation alone: the
// messages exactly as the model was sent them, and where it stood. It uses
// the start line, with its session id, and these lines of its own:
//
//	message      role ("system", "user" or "assistant"), content: a
//	             message joins the end of the conversation
//	replace      keep (int): the conversation keeps only its first keep
//	             messages; the message lines that follow replace the rest
//	             (a compaction, or a turn whose first step failed)
//
// and, as the points at which the conversation is complete, request lines
// (before each model call) and turn_end lines (after each turn), which in a
// session carry messages (count), bytes, calls_so_far (int: the calls
// numbered so far in the conversation) and usage (of the last reply; null
// when unknown), and nothing else. Message and replace lines after the last
// such line belong to a step that never completed: while calls run, the
// reply that holds them and each result as it comes are written so. A session also holds
// model lines (the model in use changed); note lines (text: what a command
// changed behind the model's back, such as the files /undo put back,
// which it is told before the next input; turn: the turns the
// conversation had then, so a note is told until a turn that counts
// follows it), and the conversations of the
// helpers its calls started: each one's message lines and a turn_end line
// that ends it, all with its origin, written in one go when the helper is
// done, after the main conversation's message that holds the call.
//
// Each line is written with a single write as the event happens, so a run
// that is killed leaves every line before the kill whole; at worst the last
// line is cut, and Read reports that rather than failing. A start line of a
// format this package does not know is an error (*FormatError).
package record

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"sync"
	"time"

	"harness/loop"
	"harness/protocol"
)

// Format is the version of the schema this package writes and reads.
const Format = 1

// Start is what the first line of a record says about the run.
type Start struct {
	Format            int            `json:"format"` // set by the writer
	Session           string         `json:"session,omitempty"`
	Name              string         `json:"name,omitempty"`
	Version           string         `json:"version"`
	Model             string         `json:"model"`
	Backend           string         `json:"backend"`
	Workspace         string         `json:"workspace"`
	Options           map[string]any `json:"options,omitempty"`
	Ignored           []string       `json:"ignored,omitempty"`
	Tools             []string       `json:"tools"`
	SystemPromptBytes int            `json:"system_prompt_bytes"`
}

// IntOption is the backend setting s among the options the run started
// with, when it holds a whole number (as JSON reads a number back, a
// float64 without a fraction).
func (st Start) IntOption(s protocol.Setting) (int, bool) {
	switch v := st.Options[string(s)].(type) {
	case int:
		return v, true
	case float64:
		if v == float64(int(v)) {
			return int(v), true
		}
	}
	return 0, false
}

// Usage is a reply's usage as recorded.
type Usage struct {
	PromptTokens int     `json:"prompt_tokens"`
	OutputTokens int     `json:"output_tokens"`
	PromptMS     float64 `json:"prompt_ms"`
	OutputMS     float64 `json:"output_ms"`
}

// Line is one line of a record; which fields are set depends on Type.
type Line struct {
	Type string    `json:"type"`
	Time time.Time `json:"time"`
	Turn int       `json:"turn"`
	Step int       `json:"step"`
	// Origin is the conversation of the line: "" for the main one.
	Origin string `json:"origin,omitempty"`

	*Start `json:",omitempty"`

	Input      string         `json:"input,omitempty"`
	Typed      string         `json:"typed,omitempty"`
	Messages   int            `json:"messages,omitempty"`
	Bytes      int            `json:"bytes,omitempty"`
	Stop       []string       `json:"stop,omitempty"`
	Role       string         `json:"role,omitempty"`
	Content    string         `json:"content,omitempty"`
	Thinking   string         `json:"thinking,omitempty"`
	DoneReason *string        `json:"done_reason,omitempty"`
	DurationMS *float64       `json:"duration_ms,omitempty"`
	Usage      *Usage         `json:"usage,omitempty"`
	Calls      *int           `json:"calls,omitempty"`
	ForgedLine int            `json:"forged_line,omitempty"`
	ID         string         `json:"id,omitempty"`
	Tool       string         `json:"tool,omitempty"`
	Args       map[string]any `json:"args,omitempty"`
	ReadAs     string         `json:"read_as,omitempty"`
	Repairs    []string       `json:"repairs,omitempty"`
	Writes     *bool          `json:"writes,omitempty"`
	Ran        *bool          `json:"ran,omitempty"`
	Wrote      *bool          `json:"wrote,omitempty"`
	OK         *bool          `json:"ok,omitempty"`
	Body       *string        `json:"body,omitempty"`
	Text       string         `json:"text,omitempty"`
	Answer     *string        `json:"answer,omitempty"`
	Error      *string        `json:"error,omitempty"`
	Report     *loop.Report   `json:"report,omitempty"`
	Note       string         `json:"note,omitempty"`
	Question   string         `json:"question,omitempty"`
	Decision   string         `json:"decision,omitempty"`
	Keep       *int           `json:"keep,omitempty"`
	CallsSoFar *int           `json:"calls_so_far,omitempty"`
	From       string         `json:"from,omitempty"`
	To         string         `json:"to,omitempty"`
	Exit       *int           `json:"exit,omitempty"`
	Limit      string         `json:"limit,omitempty"`

	*Compaction `json:",omitempty"`
}

// Compaction is what a "compaction" line says.
type Compaction struct {
	MessagesBefore int `json:"messages_before"`
	MessagesAfter  int `json:"messages_after"`
	BytesBefore    int `json:"bytes_before"`
	BytesAfter     int `json:"bytes_after"`
	TokensBefore   int `json:"tokens_before"`
	TokensAfter    int `json:"tokens_after"`
}

// Recorder is a loop hook that writes every event as a line.
type Recorder struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
	err error
	// typed is what the user typed for the next turn of the main
	// conversation (see Typed).
	typed string
	// output marks a run's output (NewOutput): every line says its
	// format, and End writes the last.
	output bool
	// turn is the main conversation's last turn written, for End.
	turn int
}

// New returns a recorder writing to w. Give it an unbuffered writer, such as
// an *os.File, so that each line reaches the file as it is written.
func New(w io.Writer) *Recorder { return &Recorder{w: w, now: time.Now} }

// NewOutput returns a recorder of a run's output (-p --output json) to w:
// the lines of a record, each with the format field a record has on its
// start line only, so that a program reading them line by line knows the
// schema of each; End writes the last line, "answer".
func NewOutput(w io.Writer) *Recorder { return &Recorder{w: w, now: time.Now, output: true} }

// End writes the last line of an output: how the run ended (see the
// "answer" line of the schema). exit is the exit code the harness ends
// with; err what ended the run without an answer, nil when nothing did.
func (r *Recorder) End(answer string, exit int, err error) error {
	msg, limit := "", ""
	if err != nil {
		msg = err.Error()
	}
	var le *loop.LimitError
	if errors.As(err, &le) {
		limit = le.Name
	}
	r.mu.Lock()
	turn := r.turn
	r.mu.Unlock()
	return r.write(&Line{Type: "answer", Turn: turn, Answer: &answer, Error: &msg, Exit: &exit, Limit: limit})
}

// Start writes the first line.
func (r *Recorder) Start(s Start) error {
	s.Format = Format
	return r.write(&Line{Type: "start", Start: &s})
}

// Approval records a decision about a call (see the schema), made in step
// of turn of the main conversation.
func (r *Recorder) Approval(turn, step int, id, tool, question, decision string) error {
	return r.write(&Line{Type: "approval", Turn: turn, Step: step, ID: id, Tool: tool, Question: question, Decision: decision})
}

// Typed says what the user typed for the next turn of the main
// conversation, before the harness added to it: the turn line records it
// as typed (when it differs from the input the model gets), so that the
// run can be typed again.
func (r *Recorder) Typed(input string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.typed = input
}

// Model records that the model to answers from turn on, after from.
func (r *Recorder) Model(turn int, from, to string) error {
	return r.write(&Line{Type: "model", Turn: turn, From: from, To: to})
}

// Event writes e, unless it is a streamed piece (the reply line holds the
// whole). After a failed write every later one fails too: a record with a
// hole would mislead.
func (r *Recorder) Event(e loop.Event) error {
	l := &Line{Turn: e.Turn, Step: e.Step, Origin: e.Origin}
	switch e.Kind {
	case loop.TurnStarted:
		l.Type, l.Input = "turn", e.Text
		if e.Origin == "" {
			l.Typed = r.takeTyped(e.Text, e.Turn)
		}
	case loop.StepStarted:
		l.Type, l.Messages, l.Stop = "request", len(e.Request.Messages), e.Request.Stop
		for _, m := range e.Request.Messages {
			l.Bytes += len(m.Content)
		}
	case loop.Replied:
		l.Type, l.Content, l.Thinking = "reply", e.Reply.Content, e.Reply.Thinking
		l.DoneReason, l.DurationMS = ptr(e.Reply.DoneReason), ms(e.Duration)
		l.Usage, l.Calls, l.ForgedLine = usage(e.Reply.Usage), ptr(len(e.Parsed.Calls)), e.Parsed.Forged
	case loop.Interrupted:
		l.Type, l.Content, l.Thinking, l.DurationMS = "interrupted", e.Reply.Content, e.Reply.Thinking, ms(e.Duration)
	case loop.CallStarted:
		l.Type, l.ID, l.Tool, l.Args, l.Writes = "call", e.Call.ID, e.Call.Name, e.Call.Args, ptr(e.Writes)
		l.ReadAs, l.Repairs = e.Call.Shape, e.Call.Repairs
	case loop.CallEnded:
		l.Type, l.ID, l.Tool, l.Writes, l.Ran, l.Wrote = "result", e.Call.ID, e.Call.Name, ptr(e.Writes), ptr(e.Ran), ptr(e.Result.Wrote)
		l.OK, l.DurationMS, l.Body = ptr(e.Result.OK), ms(e.Duration), ptr(e.Result.Body)
		l.Note = e.Result.Note
	case loop.Noticed:
		l.Type, l.Text = "notice", e.Text
	case loop.Compacted:
		c := e.Compaction
		l.Type, l.Compaction = "compaction", &Compaction{
			MessagesBefore: c.Before, MessagesAfter: c.After,
			BytesBefore: c.BeforeBytes, BytesAfter: c.AfterBytes,
			TokensBefore: c.BeforeTokens, TokensAfter: c.AfterTokens,
		}
	case loop.TurnEnded:
		msg := ""
		if e.Err != nil {
			msg = e.Err.Error()
		}
		l.Type, l.Answer, l.Error, l.Report = "turn_end", ptr(e.Text), ptr(msg), listed(e.Report)
	default:
		return nil
	}
	return r.write(l)
}

// takeTyped returns what was typed for the turn whose input is input, ""
// when that is input itself or unknown, and forgets it; turn is the main
// conversation's from now on.
func (r *Recorder) takeTyped(input string, turn int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.turn = turn
	typed := r.typed
	r.typed = ""
	if typed == input {
		return ""
	}
	return typed
}

func (r *Recorder) write(l *Line) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	l.Time = r.now().UTC()
	var v any = l
	if r.output {
		v = outputLine{Type: l.Type, Format: Format, Line: l}
	}
	b, err := json.Marshal(v)
	if err == nil {
		_, err = r.w.Write(append(b, '\n'))
	}
	r.err = err
	return err
}

// outputLine is a line of an output: a record's line with its format
// second, after its type. Its own fields hide the line's of the same name.
type outputLine struct {
	Type   string `json:"type"`
	Format int    `json:"format"`
	*Line
}

// listed is r with its lists empty rather than nil, so that a program
// reading the line finds a list where the schema says one is, never null.
func listed(r *loop.Report) *loop.Report {
	if r == nil {
		return nil
	}
	c := *r
	if c.Changed == nil {
		c.Changed = []string{}
	}
	if c.Unverified == nil {
		c.Unverified = []string{}
	}
	return &c
}

func ptr[T any](v T) *T { return &v }

func ms(d time.Duration) *float64 { return ptr(float64(d.Microseconds()) / 1000) }

// UsageOf is u as recorded: nil when the backend reported none. Durations
// keep microseconds.
func UsageOf(u protocol.Usage) *Usage { return usage(u) }

// Protocol is the usage u records: unknown when u is nil.
func (u *Usage) Protocol() protocol.Usage {
	if u == nil {
		return protocol.Usage{}
	}
	return protocol.Usage{
		Known:          true,
		PromptTokens:   u.PromptTokens,
		OutputTokens:   u.OutputTokens,
		PromptDuration: time.Duration(math.Round(u.PromptMS*1e3)) * time.Microsecond,
		OutputDuration: time.Duration(math.Round(u.OutputMS*1e3)) * time.Microsecond,
	}
}

func usage(u protocol.Usage) *Usage {
	if !u.Known {
		return nil
	}
	return &Usage{
		PromptTokens: u.PromptTokens,
		OutputTokens: u.OutputTokens,
		PromptMS:     float64(u.PromptDuration.Microseconds()) / 1000,
		OutputMS:     float64(u.OutputDuration.Microseconds()) / 1000,
	}
}
