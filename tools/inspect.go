package tools

import (
	"context"
	"io"
	"regexp"

	"harness/approve"
	"harness/fence"
	"harness/protocol"
)

// inspector says what a call of one tool would do, for the approval
// step (approve.Inspection).
type inspector func(ctx context.Context, call protocol.Call) approve.Inspection

// Inspected returns t saying of its calls what inspect says, for the
// approval step: what a call of a server's tool acts on, and whether its
// arguments are refused before anyone is asked.
func (t Tool) Inspected(inspect func(ctx context.Context, call protocol.Call) approve.Inspection) Tool {
	t.inspect = inspect
	return t
}

// Inspect says what call would do, as its tool says; of a call of a tool
// that says nothing, or of no tool of the set, only its subject
// (Subject).
func (s *Set) Inspect(ctx context.Context, call protocol.Call) approve.Inspection {
	if t, ok := s.tools[call.Name]; ok && t.inspect != nil {
		return t.inspect(ctx, call)
	}
	return approve.Inspection{Subject: Subject(call)}
}

// Subject is what a call acts on, for a question about it: its command,
// else its path, else "".
func Subject(call protocol.Call) string {
	for _, arg := range []string{"command", "path"} {
		if s, ok := call.Args[arg].(string); ok {
			return s
		}
	}
	return ""
}

// Target names what a call that wrote acted on, for a report of what
// changed: "$ " and the command line, since a command may have changed
// anything in the workspace, or the path of a file tool; "" for a call
// that has neither.
func Target(call protocol.Call) string {
	if cmd, ok := call.Args["command"].(string); ok {
		return "$ " + cmd
	}
	if p, ok := call.Args["path"].(string); ok {
		return p
	}
	return ""
}

// RunsTests returns what reports the calls whose command line matches
// tests, a pattern of the commands that run tests.
func RunsTests(tests *regexp.Regexp) func(protocol.Call) bool {
	return func(call protocol.Call) bool {
		cmd, ok := call.Args["command"].(string)
		return ok && tests.MatchString(cmd)
	}
}

// FileWritten returns the path, as the call gives it, of the one file a
// call of edit_file or write_file writes, and whether call is one.
func FileWritten(call protocol.Call) (string, bool) {
	if call.Name != editName && call.Name != writeName {
		return "", false
	}
	p, _ := call.Args["path"].(string)
	return p, true
}

// stringArg is the string argument name of call, or "".
func stringArg(call protocol.Call, name string) string {
	s, _ := call.Args[name].(string)
	return s
}

// inspectRead is what read_file and list_files say of a call: its path,
// the secret it would read, and, for read_file (file), the file it reads.
func inspectRead(ws *Workspace, file bool) inspector {
	return func(_ context.Context, call protocol.Call) approve.Inspection {
		in := approve.Inspection{Subject: Subject(call)}
		// Resolved once, for both what is secret and what is read.
		if abs, err := ws.Resolve(stringArg(call, "path")); err == nil {
			in.Secret = ws.secretAt(abs)
			if file {
				in.Reads = []string{ws.Rel(abs)}
			}
		}
		return in
	}
}

// inspectWrite is what edit_file and write_file say of a call: its path,
// that it only changes a file in the workspace, the secret it would read
// or replace, the file an edit reads, the diff it would make, and the
// protected files a change of an ignore file would expose.
func inspectWrite(ws *Workspace) inspector {
	return func(_ context.Context, call protocol.Call) approve.Inspection {
		in := approve.Inspection{Subject: Subject(call), Edits: true, Secret: ws.secretRead(call), Warn: ws.exposes(call)}
		abs, err := ws.Resolve(stringArg(call, "path"))
		if err != nil {
			return in
		}
		before := ReadText(abs)
		after, ok := afterWrite(before, stringArg(call, "content")), true
		if call.Name == editName {
			old := stringArg(call, "old_text")
			if old != "" {
				in.Reads = []string{ws.Rel(abs)}
			}
			after, ok = afterEdit(before, old, stringArg(call, "new_text"))
			if !ok { // read again, through the tools' own checks, only to say why
				in.Refusal = cannotApply(ws, abs, old, in.Secret)
			}
		}
		if ok {
			// An edit that would fail previews nothing: its result says why.
			in.Preview = Shorten(Unified(ws.Rel(abs), before, after), MaxDiffLines)
		}
		return in
	}
}

// cannotApply is the error of an edit of the file at abs that cannot
// apply to it as it is (old matches it other than once), so that nobody
// is asked about an edit that will fail: the same error the edit would
// give. It is nil when the edit may apply, when it creates a file, and
// when the error would show the user or the model part of a file the
// tools may not read without asking: one secret by its name (secret) or
// its place, one that looks secret by its text, one with other names
// (hard links). Such an edit is asked about, and fails when it runs.
func cannotApply(ws *Workspace, abs, old, secret string) error {
	if old == "" || secret != "" {
		return nil
	}
	name := ws.Rel(abs)
	if ws.checkRead(context.Background(), abs, name) != nil {
		return nil
	}
	f, err := openRegular(ws, abs, name)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDiffBytes+1))
	if err != nil || len(data) > maxDiffBytes || fence.Leak(string(data)) != "" {
		return nil
	}
	return replaceOnce(string(data), old, "").mismatch(name, old)
}
