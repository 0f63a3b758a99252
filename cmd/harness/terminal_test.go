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
	bin, err := exec.LookPath("harness")
	if err != nil {
		t.Skip("the harness command is not installed by TestMain")
	}
	dir, state, home := t.TempDir(), t.TempDir(), t.TempDir()
	fake := filepath.Join(dir, "model.fake")
	script := `>>> expect="hello"
hi there
>>> expect="hello"
hi again
>>> expect="line one\nline two"
pasted
>>> expect="first\nsecond"
block
`
	if err := os.WriteFile(fake, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--fake", fake, "-w", dir)
	cmd.Env = []string{"HOME=" + home, "XDG_STATE_HOME=" + state, "NO_COLOR=1", "TERM=xterm"}
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer tty.Close()
	s := &screen{done: make(chan struct{})}
	go s.copy(tty)
	typ := func(keys string) {
		t.Helper()
		if _, err := tty.WriteString(keys); err != nil {
			t.Fatal(err)
		}
	}

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
		t.Logf("%q", s.buf.String())
	}
	typ("\x04") // Ctrl-D leaves
	werr := make(chan error, 1)
	go func() { werr <- cmd.Wait() }()
	select {
	case err := <-werr:
		if err != nil {
			t.Errorf("the REPL ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("Ctrl-D did not end the REPL")
	}
	history, err := os.ReadFile(filepath.Join(state, "harness", "history"))
	if err != nil || !strings.Contains(string(history), "hello\n") || strings.Contains(string(history), "never sent") {
		t.Errorf("history %q, %v: want the inputs sent, and only those", history, err)
	}
	if errors.Is(err, os.ErrNotExist) {
		t.Error("no history was kept")
	}
}
