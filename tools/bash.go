package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"harness/guard"
	"harness/protocol"
	"harness/sandbox"
)

const bashName = "bash"

//go:embed bash.md
var bashDescription string

// maxSecretScan bounds the entries looked at to find the secret files a
// sandbox hides from a command.
const maxSecretScan = 50000

type bashArgs struct {
	Command string `arg:"command" help:"The command line, e.g. go test ./..."`
}

// Shell runs a command line that the guard has passed. *sandbox.Sandbox is
// one.
type Shell interface {
	Run(ctx context.Context, c sandbox.Command) (sandbox.Result, error)
}

// Bash returns the bash tool, which checks each command line with policy
// and runs what passes with sh in ws.
func Bash(ws *Workspace, policy *guard.Policy, sh Shell) Tool {
	return readsWhen(commandReads, New(bashName, strings.TrimSpace(bashDescription), true, func(ctx context.Context, a bashArgs) (string, error) {
		if err := checkCommand(ctx, ws, policy, a.Command); err != nil {
			return "", err
		}
		res, err := sh.Run(ctx, sandbox.Command{
			Script: a.Command,
			Hide:   ws.SecretFiles(maxSecretScan),
			ReadOnly: []string{
				filepath.Join(ws.root, ".git", "config"),
				filepath.Join(ws.root, ".git", "hooks"),
			},
		})
		switch {
		case err != nil && ctx.Err() != nil:
			return "", fmt.Errorf("%w: %w", ErrMayHaveChanged, ctx.Err())
		case err != nil:
			return "", fmt.Errorf("the command could not be started: %w", err)
		}
		return bashResult(res)
	}))
}

// BashCheck returns a function that refuses a bash call as the bash tool
// would refuse its command, and lets every other call pass. The approval
// step uses it so that nobody is asked about a command that cannot run.
func BashCheck(ws *Workspace, policy *guard.Policy) func(context.Context, protocol.Call) error {
	return func(ctx context.Context, call protocol.Call) error {
		if call.Name != bashName {
			return nil
		}
		command, _ := call.Args["command"].(string)
		return checkCommand(ctx, ws, policy, command)
	}
}

// checkCommand returns the error, written for the model, that refuses
// command, or nil.
func checkCommand(ctx context.Context, ws *Workspace, policy *guard.Policy, command string) error {
	root, err := os.OpenRoot(ws.root)
	if err != nil {
		return fmt.Errorf("cannot open the workspace: %w", err)
	}
	defer root.Close()
	err = policy.Check(ctx, command, commandPaths{ws: ws, ig: newIgnores(root)})
	if err == nil {
		return nil
	}
	where, why := "", err.Error()
	var r *guard.Refusal
	if errors.As(err, &r) {
		why = r.Reason
		if r.Line > 0 {
			where = fmt.Sprintf(" at line %d, column %d (%s)", r.Line, r.Col, r.Text)
		}
	}
	return fail(err, "the command was refused%s: %s. Nothing was run", where, why)
}

// commandPaths tells the guard which paths a command may use: those inside
// the workspace, but none in .git, no secret that exists, and nothing with
// a secret's name to write.
type commandPaths struct {
	ws *Workspace
	ig *ignores
}

func (p commandPaths) Root() string { return p.ws.root }

func (p commandPaths) CheckPath(path string, write bool) error {
	abs, err := p.ws.Resolve(path)
	if err != nil {
		return err
	}
	name := p.ws.Rel(abs)
	if write {
		if err := p.ws.checkWrite(abs, name); err != nil {
			return err
		}
		if why := secretName(name); why != "" {
			return fail(ErrSecret, "%s is %s: %s", name, ErrSecret, why)
		}
		return nil
	}
	if inGit(name) { // read or not: what is made there, git runs
		return fail(ErrSecret, "%s is inside .git, which is %s; use git commands such as git log or git show", name, ErrSecret)
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return nil // nothing there to read
	}
	if why := p.ws.secret(p.ig, abs, fi.IsDir()); why != "" {
		return fail(ErrSecret, "%s is %s: %s; use read_file, which can ask the user", name, ErrSecret, why)
	}
	return nil
}

// bashResult formats what a command did for the model. A command that did
// not exit with status 0 gives an ERROR result.
func bashResult(res sandbox.Result) (string, error) {
	var b strings.Builder
	switch {
	case res.Output == "":
		b.WriteString("(no output)\n")
	case !strings.HasSuffix(res.Output, "\n"):
		b.WriteString(res.Output + "\n")
	default:
		b.WriteString(res.Output)
	}
	switch {
	case res.TimedOut:
		fmt.Fprintf(&b, "[killed after %s: the command ran out of time; run something narrower, such as one package or one test]", res.Elapsed.Round(100*time.Millisecond))
	case res.Flooded:
		b.WriteString("[stopped: the command wrote more output than the limit; narrow it, for example with grep or head]")
	default:
		fmt.Fprintf(&b, "[exit status %d]", res.Exit)
	}
	if res.Notice != "" {
		fmt.Fprintf(&b, " [this and later commands run without the bubblewrap sandbox: %s]", res.Notice)
	}
	if res.Exit != 0 && strings.Contains(res.Output, "ead-only file system") {
		b.WriteString(" Commands may write only inside the workspace and /tmp; the user can allow more with --sandbox-write.")
	}
	if res.Exit == 0 && !res.TimedOut && !res.Flooded {
		return b.String(), nil
	}
	return "", fail(ErrMayHaveChanged, "%s", b.String())
}
