//go:build linux || darwin

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// screen is what a program writes to a pseudo-terminal, as it arrives.
type screen struct {
	tty  *os.File
	mu   sync.Mutex
	buf  bytes.Buffer
	seen int // where the next expect starts looking
	done chan struct{}
}

func (s *screen) copy(r io.Reader) {
	defer close(s.done)
	b := make([]byte, 4096)
	for {
		n, err := r.Read(b)
		s.mu.Lock()
		s.buf.Write(b[:n])
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// expect waits until what the program wrote after the last match matches
// pattern.
func (s *screen) expect(t *testing.T, pattern string) {
	t.Helper()
	re := regexp.MustCompile(pattern)
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.mu.Lock()
		out := s.buf.Bytes()[s.seen:]
		loc := re.FindIndex(out)
		if loc != nil {
			s.seen += loc[1]
		}
		all := s.buf.String()
		s.mu.Unlock()
		if loc != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the screen did not show %q within 10s; it shows:\n%q", pattern, all)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestREPLTerminal runs the REPL on a pseudo-terminal, as a person at a
// terminal would: a typed line is sent, the up arrow recalls it, a
// bracketed paste of two lines is one input, text between """ lines is
// one input, Ctrl-C at the prompt clears it, and Ctrl-D leaves. The
// history is kept in the state directory.
func TestREPLTerminal(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	script := `>>> expect="hello"
hi there
>>> expect="hello"
hi again
>>> expect="line one\nline two"
pasted
>>> expect="first\nsecond"
block
`
	s, typ, cmd := startREPL(t, dir, state, script)
	defer s.close()

	s.expect(t, `You: `)
	typ("hello\r")
	s.expect(t, `Assistant: hi there`)
	s.expect(t, `You: `)
	typ("\x1b[A") // up arrow: the last input comes back
	s.expect(t, `hello`)
	typ("\r")
	s.expect(t, `Assistant: hi again`)
	s.expect(t, `You: `)
	typ("\x1b[200~line one\rline two\x1b[201~") // a paste, then Enter
	s.expect(t, `line two`)
	typ("\r")
	s.expect(t, `Assistant: pasted`)
	s.expect(t, `You: `)
	for _, line := range []string{`"""`, "first", "second", `"""`} {
		typ(line + "\r")
		s.expect(t, `\.\.\.  |Assistant`)
	}
	s.expect(t, `block`)
	s.expect(t, `You: `)
	typ("never sent\x03") // Ctrl-C clears the line
	s.expect(t, `\(Ctrl-D, exit or /exit leaves\)`)
	s.expect(t, `You: `)
	if os.Getenv("SHOW_SCREEN") != "" {
		t.Logf("%q", s.text())
	}
	typ("\x04") // Ctrl-D leaves
	waitExit(t, cmd)
	history, err := os.ReadFile(filepath.Join(state, "harness", "history"))
	if err != nil || !strings.Contains(string(history), "hello\n") || strings.Contains(string(history), "never sent") {
		t.Errorf("history %q, %v: want the inputs sent, and only those", history, err)
	}
	if errors.Is(err, os.ErrNotExist) {
		t.Error("no history was kept")
	}
}

// startREPL starts the REPL of the harness on a pseudo-terminal in the
// workspace dir with the state folder state, its model the fake script,
// and returns its screen, a function that types keys, and the command.
func startREPL(t *testing.T, dir, state, script string, args ...string) (*screen, func(string), *exec.Cmd) {
	t.Helper()
	bin, err := exec.LookPath("harness")
	if err != nil {
		t.Skip("the harness command is not installed by TestMain")
	}
	fake := filepath.Join(t.TempDir(), "model.fake")
	if err := os.WriteFile(fake, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"--fake", fake, "-w", dir}, args...)...)
	cmd.Env = []string{"HOME=" + t.TempDir(), "XDG_STATE_HOME=" + state, "NO_COLOR=1", "TERM=xterm"}
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	s := &screen{done: make(chan struct{}), tty: tty}
	go s.copy(tty)
	typ := func(keys string) {
		t.Helper()
		if _, err := tty.WriteString(keys); err != nil {
			t.Fatal(err)
		}
	}
	return s, typ, cmd
}

func (s *screen) close() { s.tty.Close() }

// text is all the program wrote so far.
func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitExit waits for the REPL to end, by itself and well.
func waitExit(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	werr := make(chan error, 1)
	go func() { werr <- cmd.Wait() }()
	select {
	case err := <-werr:
		if err != nil {
			t.Errorf("the REPL ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the REPL did not end")
	}
}

// TestREPLTerminalTab: Tab completes a command's name, and an @tag's path
// in the workspace, but never to a secret; an answer to a question is not
// completed, and not kept in the history.
func TestREPLTerminalTab(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	for name, content := range map[string]string{"notes.txt": "buy milk\n", "server.key": "secret\n", "src/app.go": "package src\n"} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := `>>> expect="read @notes.txt\n"
TOOL_CALL {"name":"write_file","arguments":{"path":"out.txt","content":"milk"}}
>>> expect="TOOL_RESULT call_1 write_file SUCCESS"
done
>>> expect="see @ser"
no such file
>>> expect="open @src/app.go"
opened
`
	s, typ, cmd := startREPL(t, dir, state, script)
	defer s.close()

	s.expect(t, `You: `)
	typ("/he\t")
	s.expect(t, `/help`)
	typ("\r")
	s.expect(t, `list the commands`)
	s.expect(t, `You: `)
	typ("read @no\t")
	s.expect(t, `@notes\.txt`)
	typ("\r")
	s.expect(t, `attached: notes\.txt, 1 line`)
	s.expect(t, `Run write_file: out\.txt\? \[y/N/a\(lways\)\] `)
	typ("y\t\r") // Tab completes nothing in an answer
	s.expect(t, `tool-success: write_file`)
	s.expect(t, `Assistant: done`)
	s.expect(t, `You: `)
	typ("see @ser\t\r") // server.key is a secret: never offered
	s.expect(t, `Assistant: no such file`)
	s.expect(t, `You: `)
	typ("open @s\ta\t\r") // a folder, then a file in it
	s.expect(t, `Assistant: opened`)
	s.expect(t, `You: `)
	if os.Getenv("SHOW_SCREEN") != "" {
		t.Logf("%q", s.text())
	}
	typ("\x04")
	waitExit(t, cmd)
	if strings.Contains(s.text(), "server.key") {
		t.Error("Tab offered a secret")
	}
	history, err := os.ReadFile(filepath.Join(state, "harness", "history"))
	if err != nil || string(history) != "/help\nread @notes.txt\nsee @ser\nopen @src/app.go\n" {
		t.Errorf("history %q, %v: want the inputs, and no answer", history, err)
	}
}

// TestPromptTerminalEscapes: with -p at a terminal, what the model and a
// file wrote shows escaped, never acting on the terminal: the answer on
// stdout as well as the lines on stderr.
func TestPromptTerminalEscapes(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "evil.txt"), []byte("x\x1b[2Jy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := ">>>\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":\"evil.txt\"}}\n>>>\nTitle\x1b]0;PWNED\a set.\n"
	s, _, cmd := startREPL(t, dir, state, script, "--approve", "all", "-p", "go")
	defer s.close()
	s.expect(t, `tool-success: read_file -> x\\u001b\[2Jy`)
	s.expect(t, `Title\\u001b\]0;PWNED\\u0007 set\.`)
	waitExit(t, cmd)
	if strings.Contains(s.text(), "\x1b]0;") || strings.Contains(s.text(), "\x1b[2J") {
		t.Errorf("an escape sequence reached the terminal: %q", s.text())
	}
}

// TestREPLStreamsWords: a reply from a server that sends a word at a time
// shows a word at a time, not a line at a time: the first words are on
// the screen while the last has not been sent.
func TestREPLStreamsWords(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	s, typ, cmd := startREPL(t, dir, state, ">>> expect=\"hello\" pace=300ms\nHello there, here is a slow answer.\n")
	defer s.close()
	s.expect(t, `You: `)
	typ("hello\r")
	s.expect(t, `Assistant: Hello there,`)
	if strings.Contains(s.text(), "answer.") {
		t.Fatalf("the first words showed only with the last:\n%q", s.text())
	}
	s.expect(t, `slow answer\.`)
	s.expect(t, `You: `)
	typ("\x04")
	waitExit(t, cmd)
}
