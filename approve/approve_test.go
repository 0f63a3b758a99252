package approve_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"harness/approve"
	"harness/loop"
	"harness/protocol"
)

var _ loop.Tools = (*approve.Gate)(nil)

// inspector says of calls what its functions say, each optional; a call's
// subject is its command or its path unless subject says otherwise, as
// the tools say.
type inspector struct {
	check   func(context.Context, protocol.Call) error
	subject func(protocol.Call) string
	secret  func(protocol.Call) string
	edit    func(protocol.Call) bool
	preview func(protocol.Call) string
	reads   func(context.Context, protocol.Call) []string
	warn    func(protocol.Call) string
}

func (in inspector) Inspect(ctx context.Context, call protocol.Call) approve.Inspection {
	var out approve.Inspection
	for _, arg := range []string{"command", "path"} {
		if s, ok := call.Args[arg].(string); ok && out.Subject == "" {
			out.Subject = s
		}
	}
	if in.check != nil {
		out.Refusal = in.check(ctx, call)
	}
	if in.subject != nil {
		if s := in.subject(call); s != "" {
			out.Subject = s
		}
	}
	if in.secret != nil {
		out.Secret = in.secret(call)
	}
	if in.edit != nil {
		out.Edits = in.edit(call)
	}
	if in.preview != nil {
		out.Preview = in.preview(call)
	}
	if in.reads != nil {
		out.Reads = in.reads(ctx, call)
	}
	if in.warn != nil {
		out.Warn = in.warn(call)
	}
	return out
}

// fakeTools has a read tool, a write tool and a command tool, and records
// the calls that ran and whether their context allowed secrets.
type fakeTools struct {
	ran     []string
	permits []bool
	body    string
}

type permitKey struct{}

func (f *fakeTools) Specs() []protocol.ToolSpec {
	return []protocol.ToolSpec{{Name: "read_file"}, {Name: "write_file", Writes: true}, {Name: "bash", Writes: true}}
}

func (f *fakeTools) Run(ctx context.Context, call protocol.Call) protocol.Result {
	f.ran = append(f.ran, call.Name)
	ok, _ := ctx.Value(permitKey{}).(bool)
	f.permits = append(f.permits, ok)
	body := f.body
	if body == "" {
		body = "ran " + call.Name
	}
	return protocol.Result{CallID: call.ID, Tool: call.Name, OK: true, Body: body}
}

// script answers questions in order and remembers them.
type script struct {
	answers []approve.Answer
	err     error
	asked   []string
}

func (s *script) Ask(_ context.Context, q approve.Question) (approve.Answer, error) {
	s.asked = append(s.asked, q.String())
	if s.err != nil {
		return approve.No, s.err
	}
	if len(s.answers) == 0 {
		return approve.No, errors.New("unexpected question: " + q.String())
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a, nil
}

func call(name, arg string) protocol.Call {
	key := "path"
	if name == "bash" {
		key = "command"
	}
	return protocol.Call{ID: "call_1", Name: name, Args: map[string]any{key: arg}}
}

func gate(tools *fakeTools, mode approve.Mode, asker approve.Asker, decisions *[]approve.Decision) *approve.Gate {
	return approve.New(tools, approve.Config{
		Mode:  mode,
		Asker: asker,
		Inspector: inspector{
			secret: func(c protocol.Call) string {
				if c.Args["path"] == ".env" {
					return ".env is protected as a secret"
				}
				return ""
			},
			edit: func(c protocol.Call) bool { return c.Name == "write_file" },
		},
		Permit: func(ctx context.Context) context.Context { return context.WithValue(ctx, permitKey{}, true) },
		Record: func(d approve.Decision) {
			if decisions != nil {
				*decisions = append(*decisions, d)
			}
		},
	})
}

func TestModes(t *testing.T) {
	tests := []struct {
		mode   approve.Mode
		call   protocol.Call
		asked  bool // with the answer yes
		ran    bool
		permit bool
	}{
		{approve.Auto, call("read_file", "a.go"), false, true, false},
		{approve.Auto, call("write_file", "a.go"), true, true, false},
		{approve.Auto, call("bash", "go test ./..."), true, true, false},
		{approve.Auto, call("read_file", ".env"), true, true, true},
		{approve.Edits, call("read_file", "a.go"), false, true, false},
		{approve.Edits, call("write_file", "a.go"), false, true, false},
		{approve.Edits, call("bash", "go test ./..."), true, true, false},
		{approve.Edits, call("write_file", ".env"), true, true, true},
		{approve.Edits, call("read_file", ".env"), true, true, true},
		{approve.Ask, call("read_file", "a.go"), true, true, false},
		{approve.Ask, call("bash", "ls"), true, true, false},
		{approve.All, call("bash", "ls"), false, true, false},
		{approve.All, call("read_file", ".env"), false, false, false}, // nobody is asked, so a secret is never sent
		{approve.Deny, call("read_file", "a.go"), false, false, false},
		{approve.Deny, call("bash", "ls"), false, false, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %s %v", tt.mode, tt.call.Name, tt.call.Args), func(t *testing.T) {
			tools, asker := &fakeTools{}, &script{answers: []approve.Answer{approve.Yes}}
			res := gate(tools, tt.mode, asker, nil).Run(context.Background(), tt.call)
			if got := len(asker.asked) > 0; got != tt.asked {
				t.Errorf("asked %q, want asked %v", asker.asked, tt.asked)
			}
			if got := len(tools.ran) > 0; got != tt.ran || res.OK != tt.ran {
				t.Fatalf("ran %v (result %+v), want %v", tools.ran, res, tt.ran)
			}
			if tt.ran && tools.permits[0] != tt.permit {
				t.Errorf("secrets permitted %v, want %v", tools.permits[0], tt.permit)
			}
			if tt.mode == approve.Deny && !strings.Contains(res.Body, "deny") {
				t.Errorf("body %q", res.Body)
			}
		})
	}
}

func TestAnswers(t *testing.T) {
	tools := &fakeTools{}
	asker := &script{answers: []approve.Answer{approve.No, approve.Always, approve.Yes}}
	var decisions []approve.Decision
	g := gate(tools, approve.Auto, asker, &decisions)
	ctx := context.Background()

	res := g.Run(ctx, call("bash", "go test ./..."))
	if res.OK || !strings.Contains(res.Body, "the user said no") || !strings.Contains(res.Body, "Nothing was run") || len(tools.ran) != 0 {
		t.Errorf("after no: %+v, ran %v", res, tools.ran)
	}
	for range 3 { // always: asked once, then no more
		if res := g.Run(ctx, call("bash", "go test ./...")); !res.OK {
			t.Errorf("after always: %+v", res)
		}
	}
	if res := g.Run(ctx, call("bash", "go vet ./...")); !res.OK { // another command asks again
		t.Errorf("another command: %+v", res)
	}
	want := []string{"Run bash: go test ./...?", "Run bash: go test ./...?", "Run bash: go vet ./...?"}
	if strings.Join(asker.asked, "|") != strings.Join(want, "|") {
		t.Errorf("asked %q, want %q", asker.asked, want)
	}
	if len(tools.ran) != 4 {
		t.Errorf("ran %d calls, want 4", len(tools.ran))
	}
	var whys []string
	for _, d := range decisions {
		whys = append(whys, fmt.Sprintf("%v %s", d.Allowed(), d.Why))
	}
	wantWhys := "false the user said no|true the user said always|true the user said always before|true the user said always before|true the user said yes"
	if strings.Join(whys, "|") != wantWhys {
		t.Errorf("decisions %q", whys)
	}
}

// Each way a Gate decides has its own Outcome, whatever its Why says.
func TestOutcomes(t *testing.T) {
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\n-----END OPENSSH PRIVATE KEY-----\n"
	refuseSudo := func(_ context.Context, c protocol.Call) error {
		if c.Args["command"] == "sudo ls" {
			return errors.New("refused")
		}
		return nil
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name  string
		mode  approve.Mode
		asker approve.Asker
		ctx   context.Context
		body  string // what the tool returns
		calls []protocol.Call
		want  []approve.Outcome
	}{
		{"deny", approve.Deny, nil, nil, "", []protocol.Call{call("read_file", "a")}, []approve.Outcome{approve.ModeDenied}},
		{"check", approve.Ask, &script{}, nil, "", []protocol.Call{call("bash", "sudo ls")}, []approve.Outcome{approve.CheckRefused}},
		{"auto read", approve.Auto, &script{}, nil, "", []protocol.Call{call("read_file", "a")}, []approve.Outcome{approve.ModeAllowed}},
		{"all write", approve.All, &script{}, nil, "", []protocol.Call{call("write_file", "a")}, []approve.Outcome{approve.ModeAllowed}},
		{"yes", approve.Auto, &script{answers: []approve.Answer{approve.Yes}}, nil, "", []protocol.Call{call("write_file", "a")}, []approve.Outcome{approve.UserYes}},
		{"no", approve.Auto, &script{answers: []approve.Answer{approve.No}}, nil, "", []protocol.Call{call("write_file", "a")}, []approve.Outcome{approve.UserNo}},
		{"always", approve.Auto, &script{answers: []approve.Answer{approve.Always}}, nil, "",
			[]protocol.Call{call("write_file", "a"), call("write_file", "a")}, []approve.Outcome{approve.UserAlways, approve.AlwaysBefore}},
		{"nobody", approve.Auto, approve.Nobody, nil, "", []protocol.Call{call("write_file", "a")}, []approve.Outcome{approve.Unanswered}},
		{"interrupted", approve.Auto, &script{err: context.Canceled}, cancelled, "", []protocol.Call{call("write_file", "a")}, []approve.Outcome{approve.Interrupted}},
		{"send yes", approve.Auto, &script{answers: []approve.Answer{approve.Yes}}, nil, key,
			[]protocol.Call{call("read_file", "a")}, []approve.Outcome{approve.ModeAllowed, approve.UserYes}},
		{"send nobody", approve.Auto, approve.Nobody, nil, key,
			[]protocol.Call{call("read_file", "a")}, []approve.Outcome{approve.ModeAllowed, approve.Unanswered}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []approve.Outcome
			g := approve.New(&fakeTools{body: tt.body}, approve.Config{
				Mode:      tt.mode,
				Asker:     tt.asker,
				Inspector: inspector{check: refuseSudo},
				Record:    func(d approve.Decision) { got = append(got, d.Outcome) },
			})
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			for _, c := range tt.calls {
				g.Run(ctx, c)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("outcomes %v, want %v", got, tt.want)
			}
		})
	}
}

func TestOutcomeAllowedAsked(t *testing.T) {
	for _, tt := range []struct {
		o              approve.Outcome
		allowed, asked bool
	}{
		{approve.ModeAllowed, true, false},
		{approve.ModeDenied, false, false},
		{approve.CheckRefused, false, false},
		{approve.UserYes, true, true},
		{approve.UserAlways, true, true},
		{approve.UserNo, false, true},
		{approve.AlwaysBefore, true, false},
		{approve.Unanswered, false, true},
		{approve.Interrupted, false, true},
		{approve.WithheldBefore, false, false},
		{0, false, false},
	} {
		if tt.o.Allowed() != tt.allowed || tt.o.Asked() != tt.asked {
			t.Errorf("%v: allowed %v asked %v, want %v %v", tt.o, tt.o.Allowed(), tt.o.Asked(), tt.allowed, tt.asked)
		}
		if d := (approve.Decision{Outcome: tt.o, Why: "the user said yes"}); d.Allowed() != tt.allowed {
			t.Errorf("%v: a decision's Why changed whether it is allowed", tt.o)
		}
	}
}

func TestNobody(t *testing.T) {
	tools := &fakeTools{}
	res := gate(tools, approve.Auto, approve.Nobody, nil).Run(context.Background(), call("write_file", "main.go"))
	if res.OK || len(tools.ran) != 0 {
		t.Fatalf("ran without approval: %+v", res)
	}
	for _, want := range []string{"Not run: Run write_file: main.go needs the user's approval (approval mode auto)", "nobody could approve it", "no terminal"} {
		if !strings.Contains(res.Body, want) {
			t.Errorf("body %q lacks %q", res.Body, want)
		}
	}
	if res.CallID != "call_1" || res.Tool != "write_file" {
		t.Errorf("result header %s", res.Header())
	}
	// A nil Asker is nobody too.
	res = approve.New(tools, approve.Config{Mode: approve.Ask}).Run(context.Background(), call("read_file", "a"))
	if res.OK || !strings.Contains(res.Body, "nobody") {
		t.Errorf("nil asker: %+v", res)
	}
}

func TestCheckRefusesBeforeAsking(t *testing.T) {
	tools, asker := &fakeTools{}, &script{answers: []approve.Answer{approve.Yes}}
	g := approve.New(tools, approve.Config{Mode: approve.Ask, Asker: asker, Inspector: inspector{check: func(_ context.Context, c protocol.Call) error {
		if c.Args["command"] == "sudo ls" {
			return errors.New("the command was refused: sudo runs a command as another user")
		}
		return nil
	}}})
	res := g.Run(context.Background(), call("bash", "sudo ls"))
	if res.OK || !strings.Contains(res.Body, "another user") || len(asker.asked) != 0 || len(tools.ran) != 0 {
		t.Errorf("result %+v, asked %q, ran %v", res, asker.asked, tools.ran)
	}
	if res := g.Run(context.Background(), call("bash", "ls")); !res.OK || len(asker.asked) != 1 {
		t.Errorf("an allowed command: %+v, asked %q", res, asker.asked)
	}
}

func TestOutputWithSecret(t *testing.T) {
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\n-----END OPENSSH PRIVATE KEY-----\n"
	for _, tt := range []struct {
		mode   approve.Mode
		answer []approve.Answer
		sent   bool
	}{
		{approve.Auto, []approve.Answer{approve.No}, false},
		{approve.Auto, []approve.Answer{approve.Yes}, true},
		{approve.Ask, []approve.Answer{approve.Yes, approve.No}, false},
		{approve.All, nil, false},
	} {
		t.Run(fmt.Sprint(tt.mode, tt.answer), func(t *testing.T) {
			tools := &fakeTools{body: key}
			asker := &script{answers: tt.answer}
			res := gate(tools, tt.mode, asker, nil).Run(context.Background(), call("read_file", "notes.txt"))
			if got := strings.Contains(res.Body, "PRIVATE KEY"); got != tt.sent || res.OK != tt.sent {
				t.Errorf("sent %v (OK %v), want %v: %q", got, res.OK, tt.sent, res.Body)
			}
			if !tt.sent && !strings.Contains(res.Body, "withheld: it looks like it holds a private key") {
				t.Errorf("body %q", res.Body)
			}
			if tt.mode != approve.All {
				last := asker.asked[len(asker.asked)-1]
				if last != "Send the output of read_file: notes.txt to the model? (it looks like it holds a private key)" {
					t.Errorf("asked %q", last)
				}
			}
		})
	}
	// Without a terminal the output is withheld too.
	tools := &fakeTools{body: key}
	res := gate(tools, approve.Auto, approve.Nobody, nil).Run(context.Background(), call("read_file", "notes.txt"))
	if res.OK || strings.Contains(res.Body, "PRIVATE") || !strings.Contains(res.Body, "nobody could approve") {
		t.Errorf("no terminal: %+v", res)
	}
}

func TestInterruptedQuestion(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tools := &fakeTools{}
	res := gate(tools, approve.Auto, &script{err: context.Canceled}, nil).Run(ctx, call("bash", "ls"))
	if res.OK || res.Body != "interrupted" || len(tools.ran) != 0 {
		t.Errorf("result %+v, ran %v", res, tools.ran)
	}
}

func TestQuestionString(t *testing.T) {
	tests := []struct {
		q    approve.Question
		want string
	}{
		{approve.Question{Kind: approve.Run, Tool: "bash", Subject: "go test ./..."}, "Run bash: go test ./...?"},
		{approve.Question{Kind: approve.Run, Tool: "list_files"}, "Run list_files?"},
		{approve.Question{Kind: approve.Run, Tool: "read_file", Subject: ".env", Why: "secret"}, "Run read_file: .env? (secret)"},
		{approve.Question{Kind: approve.Run, Tool: "bash", Subject: "ls\r\x1b[2Krm -rf ~"}, `Run bash: ls\u000d\u001b[2Krm -rf ~?`},
		{approve.Question{Kind: approve.Run, Tool: "bash", Subject: "echo \u202eevil"}, `Run bash: echo \u202eevil?`},
		{approve.Question{Kind: approve.Run, Tool: "bash", Subject: "ls\n"}, "Run bash: ls?"},
		// Long runs of spaces and tabs, which would push the start of the
		// command out of sight, are shown by their length.
		{approve.Question{Kind: approve.Run, Tool: "bash", Subject: "git push;" + strings.Repeat(" ", 12000) + "git status"},
			"Run bash: git push; … 12000 spaces … git status?"},
		{approve.Question{Kind: approve.Run, Tool: "bash", Subject: "a" + strings.Repeat(" \t", 20) + "b" + strings.Repeat(" ", 32) + "c"},
			"Run bash: a … 40 spaces and tabs … b" + strings.Repeat(" ", 32) + "c?"},
		{approve.Question{Kind: approve.Run, Tool: "bash", Subject: "ls\n" + strings.Repeat("\t", 33) + "rm x"},
			"Run bash (2 lines, 0 blank):\n1  ls\n2   … 33 spaces and tabs … rm x\nRun all 2 lines?"},
		// Several lines: numbered, blank runs collapsed, the count stated.
		{approve.Question{Kind: approve.Run, Tool: "bash", Subject: "ls\nrm x"}, "Run bash (2 lines, 0 blank):\n1  ls\n2  rm x\nRun all 2 lines?"},
		{approve.Question{Kind: approve.Run, Tool: "bash", Subject: "git status --short" + strings.Repeat("\n", 61) + "git push", Why: "w"},
			"Run bash (62 lines, 60 blank):\n 1  git status --short\n …  60 blank lines (2-61)\n62  git push\nRun all 62 lines? (w)"},
		{approve.Question{Kind: approve.Send, Tool: "bash", Subject: "a\n \t\nb\r"},
			"Send the output of bash (3 lines, 1 blank):\n1  a\n2\n3  b\\u000d\nSend it to the model?"},
	}
	for _, tt := range tests {
		if got := tt.q.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"auto", "edits", "ask", "deny", "all"} {
		if m, err := approve.ParseMode(s); err != nil || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	if _, err := approve.ParseMode("yolo"); err == nil {
		t.Error("ParseMode(yolo) succeeded")
	}
}

func TestLeak(t *testing.T) {
	tests := []struct {
		text string
		want string // "" for none
	}{
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE", "a private key"},
		{"-----BEGIN PRIVATE KEY-----", "a private key"},
		{"aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "an AWS access key"},
		{"token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "a GitHub token"},
		{"glpat-abcdefghij0123456789", "a GitLab token"},
		{"xoxb-1234567890-abcdef", "a Slack token"},
		{"OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx", "an API key"},
		{"key AIzaSyA1234567890abcdefghijklmnopqrstuv", "a Google API key"},
		{"DB_PASSWORD=hunter2hunter2", "a password or token assignment"},
		{`"api_key": "0123456789abcdef"`, "a password or token assignment"},
		{"postgres://admin:s3cret@db:5432/app", "a URL with a password"},
		{"mirror http://a:b@h and https://go.dev", "a URL with a password"}, // a short password, not the first URL
		{"SESSION_COOKIE=abcdefgh12345", "a password or token assignment"},
		{"GOOGLE_CREDENTIALS: abcdefgh1234", "a password or token assignment"},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "a JSON web token"},
		// ordinary text
		{"ok  \tharness/tools\t1.3s\nPASS", ""},
		{"password := os.Getenv(\"DB_PASSWORD\")", ""},
		{"TOKEN=$TOKEN", ""},
		{"see https://go.dev/doc", ""},
		{"func (k *Key) Private() bool", ""},
		{"keys = append(keys, k)", ""}, // KEY alone names map keys, not secrets
		{"case tea.KeyEsc:\n\tm.quit = true", ""},
		{"remote ssh://git@github.com/o/r.git", ""}, // a user name alone is no password
	}
	for _, tt := range tests {
		if got := approve.Leak(tt.text); got != tt.want {
			t.Errorf("Leak(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestPreview: the question before a call carries the preview as its
// Detail, escaped for the terminal and never in its text, and "always"
// holds for the same question whatever its preview.
func TestPreview(t *testing.T) {
	var details []string
	asker := &detailAsker{answers: []approve.Answer{approve.Always}, details: &details}
	n := 0
	g := approve.New(&fakeTools{}, approve.Config{
		Mode:  approve.Auto,
		Asker: asker,
		Inspector: inspector{preview: func(c protocol.Call) string {
			n++
			return fmt.Sprintf("-old\n+new %d\x1b[2J", n)
		}},
	})
	for range 2 {
		if res := g.Run(context.Background(), call("write_file", "a.go")); !res.OK {
			t.Fatalf("not run: %s", res.Body)
		}
	}
	if want := []string{`-old` + "\n" + `+new 1\u001b[2J`}; !slices.Equal(details, want) {
		t.Errorf("details shown %q, want %q (asked once)", details, want)
	}
	if strings.Contains(asker.text, "old") {
		t.Errorf("the question's text %q holds its detail", asker.text)
	}
}

type detailAsker struct {
	answers []approve.Answer
	details *[]string
	text    string
}

func (a *detailAsker) Ask(_ context.Context, q approve.Question) (approve.Answer, error) {
	*a.details = append(*a.details, q.Detail)
	a.text = q.String()
	ans := a.answers[0]
	a.answers = a.answers[1:]
	return ans, nil
}

// files is the text of the files a test's calls read, by name.
type files map[string]string

// reads names the file a call reads: its path, or for bash the last word
// of its command, as the guard would find it.
func reads(_ context.Context, c protocol.Call) []string {
	if p, ok := c.Args["path"].(string); ok {
		return []string{p}
	}
	if cmd, ok := c.Args["command"].(string); ok {
		words := strings.Fields(cmd)
		return words[len(words)-1:]
	}
	return nil
}

// A file with a secret anywhere in it is asked about once, before any of
// it is sent, and a "no" stands for every later call that reads it: a
// later page (read_file with an offset) or a transformation (rev, xxd).
func TestSecretDecidedPerFile(t *testing.T) {
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\nAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n"
	text := files{"key.txt": key, "notes.txt": "milk\n"}
	for _, tt := range []struct {
		answer   approve.Answer
		outcomes string
		sent     int
	}{
		{approve.No, "[user no withheld before withheld before mode allowed]", 1},
		{approve.Yes, "[user yes mode allowed mode allowed mode allowed]", 4},
	} {
		t.Run(fmt.Sprint(tt.answer), func(t *testing.T) {
			tools := &fakeTools{body: "AAAABG5vbmUAAAAEbm9uZQ"} // the key's body, past its header
			asker := &script{answers: []approve.Answer{tt.answer}}
			var got []approve.Outcome
			g := approve.New(tools, approve.Config{
				Mode: approve.Auto, Asker: asker, Inspector: inspector{reads: reads},
				Leak:   func(name string) string { return approve.Leak(text[name]) },
				Record: func(d approve.Decision) { got = append(got, d.Outcome) },
			})
			ctx := context.Background()
			page := call("read_file", "key.txt")
			page.Args["offset"] = 2
			g.Run(ctx, call("read_file", "key.txt"))
			g.Run(ctx, page)
			g.Run(ctx, call("read_file", "key.txt"))
			g.Run(ctx, call("read_file", "notes.txt"))
			if fmt.Sprint(got) != tt.outcomes {
				t.Errorf("outcomes %v, want %s", got, tt.outcomes)
			}
			if len(asker.asked) != 1 || !strings.Contains(asker.asked[0], "key.txt, which looks like it holds a private key") {
				t.Errorf("asked %q, want one question about key.txt", asker.asked)
			}
			if len(tools.ran) != tt.sent {
				t.Errorf("ran %d calls, want %d", len(tools.ran), tt.sent)
			}
		})
	}
}

// A command that reads a secret file is asked about for that file, and
// refused once the user said no to it, whatever it does with the text.
func TestSecretFileThroughBash(t *testing.T) {
	text := files{"notes.txt": "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"}
	tools := &fakeTools{body: "ELPMAXE7NNDOFSOIAIKA = di_yek_ssecca_swa"}
	asker := &script{answers: []approve.Answer{approve.No}}
	g := approve.New(tools, approve.Config{Mode: approve.Auto, Asker: asker, Inspector: inspector{reads: reads}, Leak: func(name string) string { return approve.Leak(text[name]) }})
	ctx := context.Background()
	for _, cmd := range []string{"rev notes.txt", "xxd notes.txt", "od -c notes.txt", "cut -c1- notes.txt", "tr a b < notes.txt"} {
		if res := g.Run(ctx, call("bash", cmd)); res.OK {
			t.Errorf("%s: ran: %s", cmd, res.Body)
		}
	}
	if len(tools.ran) != 0 || len(asker.asked) != 1 {
		t.Errorf("ran %v, asked %q; want nothing run and one question", tools.ran, asker.asked)
	}
	if res := g.Run(ctx, call("read_file", "notes.txt")); res.OK || !strings.Contains(res.Body, "refused to share earlier") {
		t.Errorf("read_file after no: %+v", res)
	}
}

// A "no" for a file secret by its name stands, even once the file stops
// being secret (an edit of .gitignore that unprotects it).
func TestNoForSecretStands(t *testing.T) {
	secret := true
	tools := &fakeTools{}
	asker := &script{answers: []approve.Answer{approve.No}}
	g := approve.New(tools, approve.Config{
		Mode: approve.Auto, Asker: asker, Inspector: inspector{reads: reads,
			secret: func(c protocol.Call) string {
				if secret && c.Args["path"] == "config.local" {
					return "config.local is ignored by .gitignore"
				}
				return ""
			}},
	})
	ctx := context.Background()
	g.Run(ctx, call("read_file", "config.local"))
	secret = false
	res := g.Run(ctx, call("read_file", "config.local"))
	if res.OK || len(tools.ran) != 0 || len(asker.asked) != 1 {
		t.Errorf("result %+v, ran %v, asked %q", res, tools.ran, asker.asked)
	}
}

// A warning makes even a read ask, and is in the question.
func TestWarn(t *testing.T) {
	tools := &fakeTools{}
	asker := &script{answers: []approve.Answer{approve.Yes}}
	g := approve.New(tools, approve.Config{Mode: approve.Auto, Asker: asker, Inspector: inspector{warn: func(c protocol.Call) string {
		if c.Args["path"] == ".gitignore" {
			return "it would stop protecting config.local"
		}
		return ""
	}}})
	g.Run(context.Background(), call("read_file", ".gitignore"))
	g.Run(context.Background(), call("read_file", "main.go"))
	if len(asker.asked) != 1 || !strings.Contains(asker.asked[0], "Run read_file: .gitignore? (it would stop protecting config.local)") {
		t.Errorf("asked %q", asker.asked)
	}
}

// blockingAsker answers no to each question once release is closed, and
// counts the questions.
type blockingAsker struct {
	asking  chan struct{}
	release chan struct{}
	asked   atomic.Int64
}

func (b *blockingAsker) Ask(ctx context.Context, q approve.Question) (approve.Answer, error) {
	if b.asked.Add(1) == 1 {
		close(b.asking)
	}
	<-b.release
	return approve.No, nil
}

// Reads of one secret file that run together ask once: the second waits
// for the answer to the first, which stands for it.
func TestSecretFileAskedOnceByCallsTogether(t *testing.T) {
	text := files{"key.txt": "-----BEGIN PRIVATE KEY-----\nMIIE\n"}
	tools := &lockedTools{}
	asker := &blockingAsker{asking: make(chan struct{}), release: make(chan struct{})}
	g := approve.New(tools, approve.Config{Mode: approve.Auto, Asker: asker, Inspector: inspector{reads: reads}, Leak: func(name string) string { return approve.Leak(text[name]) }})
	var wg sync.WaitGroup
	results := make([]protocol.Result, 2)
	wg.Go(func() { results[0] = g.Run(context.Background(), call("read_file", "key.txt")) })
	<-asker.asking
	wg.Go(func() { results[1] = g.Run(context.Background(), call("read_file", "key.txt")) })
	time.Sleep(10 * time.Millisecond) // let the second call reach the question, if it would ask
	close(asker.release)
	wg.Wait()
	if n := asker.asked.Load(); n != 1 {
		t.Errorf("asked %d times, want once", n)
	}
	if results[0].OK || results[1].OK || tools.ran.Load() != 0 {
		t.Errorf("results %+v, ran %d", results, tools.ran.Load())
	}
}

// lockedTools is a read tool that may run from several goroutines.
type lockedTools struct{ ran atomic.Int64 }

func (l *lockedTools) Specs() []protocol.ToolSpec { return []protocol.ToolSpec{{Name: "read_file"}} }

func (l *lockedTools) Run(_ context.Context, call protocol.Call) protocol.Result {
	l.ran.Add(1)
	return protocol.Result{CallID: call.ID, Tool: call.Name, OK: true, Body: "read"}
}

// A call that reads more files than are checked fails closed: it is asked
// about, saying that not all could be checked, and without anyone to ask
// it is refused; the secret past the limit is never sent unasked.
func TestTooManyReadsAsked(t *testing.T) {
	key := "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"
	for _, n := range []int{10, 64, 65, 300} {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("p%d", i)
		}
		names[n-1] = "server-key.txt"
		many := func(context.Context, protocol.Call) []string { return names }
		leak := func(name string) string {
			if name == "server-key.txt" {
				return approve.Leak(key)
			}
			return ""
		}
		tools := &fakeTools{}
		asker := &script{answers: []approve.Answer{approve.No}}
		g := approve.New(tools, approve.Config{Mode: approve.Auto, Asker: asker, Inspector: inspector{reads: many}, Leak: leak})
		if res := g.Run(context.Background(), call("read_file", "p0")); res.OK || len(tools.ran) != 0 {
			t.Errorf("%d files: ran: %+v", n, res)
		}
		unchecked := n > 64
		if len(asker.asked) != 1 || strings.Contains(asker.asked[0], "not all could be checked") != unchecked ||
			strings.Contains(asker.asked[0], "server-key.txt, which looks like") == unchecked {
			t.Errorf("%d files: asked %q", n, asker.asked)
		}
		g = approve.New(&fakeTools{}, approve.Config{Mode: approve.Auto, Inspector: inspector{reads: many}, Leak: leak})
		if res := g.Run(context.Background(), call("read_file", "p0")); res.OK || strings.Contains(res.Body, "not all could be checked") != unchecked {
			t.Errorf("%d files, nobody to ask: %+v", n, res)
		}
	}
}

func TestSubject(t *testing.T) {
	asker := &script{answers: []approve.Answer{approve.Yes, approve.Yes}}
	g := approve.New(&fakeTools{}, approve.Config{
		Mode:  approve.Auto,
		Asker: asker,
		Inspector: inspector{subject: func(c protocol.Call) string {
			if c.Name != "write_file" {
				return ""
			}
			return "text: two\nlines"
		}},
	})
	g.Run(context.Background(), call("write_file", "a.go"))
	g.Run(context.Background(), call("bash", "go test"))
	want := []string{"Run write_file (2 lines, 0 blank):\n1  text: two\n2  lines\nRun all 2 lines?", "Run bash: go test?"}
	if !slices.Equal(asker.asked, want) {
		t.Errorf("asked %q, want %q", asker.asked, want)
	}
}

// withKey marks the context an Inspection's With gave.
type withKey struct{}

// ctxTools records whether the context a call ran in carried withKey.
type ctxTools struct {
	fakeTools
	with []bool
}

func (c *ctxTools) Run(ctx context.Context, call protocol.Call) protocol.Result {
	c.with = append(c.with, ctx.Value(withKey{}) != nil)
	return c.fakeTools.Run(ctx, call)
}

// TestWith: a call runs in the context its Inspection's With returns, in
// every mode that runs it; a refused call does not run at all.
func TestWith(t *testing.T) {
	for _, mode := range []approve.Mode{approve.Auto, approve.All} {
		tools := &ctxTools{}
		g := approve.New(tools, approve.Config{Mode: mode, Inspector: withInspector{}})
		g.Run(context.Background(), call("read_file", "a"))
		g.Run(context.Background(), call("read_file", "refused"))
		if !slices.Equal(tools.with, []bool{true}) {
			t.Errorf("mode %s: ran with With's context: %v", mode, tools.with)
		}
	}
}

type withInspector struct{}

func (withInspector) Inspect(_ context.Context, call protocol.Call) approve.Inspection {
	if call.Args["path"] == "refused" {
		return approve.Inspection{Refusal: errors.New("refused")}
	}
	return approve.Inspection{With: func(ctx context.Context) context.Context { return context.WithValue(ctx, withKey{}, true) }}
}
