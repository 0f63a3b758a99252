//go:build linux || darwin

package repl

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"harness/approve"
	"harness/view"
)

// ptyChild names the environment variable that makes the test binary the
// program under test: a terminal's input needs the terminal as its own
// standard input and output.
const ptyChild = "REPL_TEST_PTY_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(ptyChild) == "1" {
		os.Exit(runPTYChild())
	}
	os.Exit(m.Run())
}

// runPTYChild writes 200 lines, so that the screen has scrolled, asks an
// approval question at the terminal, then reads a message at the REPL's
// prompt, and writes what it got.
func runPTYChild() int {
	out := os.Stdout
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(out, "line %d of the reply\n", i)
	}
	fmt.Fprintln(out, "tool-call: bash cat go.mod")
	in, err := TerminalInput(out, "")
	if err != nil {
		fmt.Fprintln(out, "no terminal input:", err)
		return 1
	}
	a := &Asker{Out: NewScreen(out), Style: view.Style(false)}
	a.Use(in)
	ctx := context.Background()
	answer, err := a.Ask(ctx, approve.Question{Kind: approve.Run, Tool: "bash", Subject: "cat go.mod"})
	fmt.Fprintf(out, "answer %d, %v\n", answer, err)
	fmt.Fprintln(out, "<Turn 2>")
	msg, err := in.Message(ctx, "You: ")
	fmt.Fprintf(out, "message %q, %v\n", msg, err)
	return 0
}

// ptyScreen runs the test binary as runPTYChild on a pseudo-terminal of
// rows×cols, and returns its screen and a function that types keys.
func ptyScreen(t *testing.T, rows, cols int) (*vt, func(string)) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), ptyChild+"=1", "NO_COLOR=1", "TERM=xterm", "HOME="+t.TempDir(), "INPUTRC=/dev/null")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	screen := newVT(rows, cols)
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(screen, tty)
	}()
	t.Cleanup(func() {
		tty.Close()
		cmd.Process.Kill()
		cmd.Wait()
		<-done
	})
	return screen, func(keys string) {
		t.Helper()
		if _, err := tty.WriteString(keys); err != nil {
			t.Fatal(err)
		}
	}
}

// waitScreen waits until ok holds of the screen's lines and the cursor's
// row, and still holds 100ms later (a prompt drawn, then wiped, is not
// shown), and fails the test with the screen when it does not within 10s.
func waitScreen(t *testing.T, v *vt, what string, ok func(lines []string, cursor int) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		lines, cursor := v.lines()
		if ok(lines, cursor) {
			time.Sleep(100 * time.Millisecond)
			if lines, cursor = v.lines(); ok(lines, cursor) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the screen does not show %s within 10s; it shows (the cursor on row %d):\n%s", what, cursor, strings.Join(lines, "\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// shownBelow reports whether the screen shows prompt on the cursor's row,
// with above on the row above it: the prompt is drawn, where it belongs,
// and wrote over nothing.
func shownBelow(above, prompt string) func([]string, int) bool {
	return func(lines []string, cursor int) bool {
		return cursor > 0 && strings.HasPrefix(lines[cursor], prompt) && lines[cursor-1] == above
	}
}

// TestTerminalQuestionAfterScroll: after enough output that the screen
// has scrolled, an approval question is on the screen, below the line
// before it, before any key is pressed; so is the REPL's prompt after it.
func TestTerminalQuestionAfterScroll(t *testing.T) {
	screen, typ := ptyScreen(t, 24, 80)
	question := "Run bash: cat go.mod? [y/N/a(lways)]"
	waitScreen(t, screen, "the question below the tool call", shownBelow("tool-call: bash cat go.mod", question))

	typ("y\r")
	waitScreen(t, screen, "the REPL's prompt below <Turn 2>", shownBelow("<Turn 2>", "You:"))
	lines, _ := screen.lines()
	text := strings.Join(lines, "\n")
	if want := question + " y\nanswer 1, <nil>\n<Turn 2>"; !strings.Contains(text, want) {
		t.Errorf("the screen does not show %q:\n%s", want, text)
	}

	typ("hello\r")
	waitScreen(t, screen, "the message read", func(lines []string, _ int) bool {
		return strings.Contains(strings.Join(lines, "\n"), "You: hello\nmessage \"hello\", <nil>")
	})
}
