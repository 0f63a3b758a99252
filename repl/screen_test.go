package repl

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"harness/approve"
	"harness/view"
)

// lockedBuffer is a terminal the test reads while others write to it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor waits until the buffer holds s.
func waitFor(t *testing.T, b *lockedBuffer, s string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(b.String(), s); {
		if time.Now().After(deadline) {
			t.Fatalf("no %q within 10s in:\n%s", s, b.String())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestScreenQuestionWhole: helpers that write while a question is open
// write nothing into it: the question, an answer it does not understand,
// the note, the question again and the answer are together, and every
// line the helpers wrote is shown, whole, after them.
func TestScreenQuestionWhole(t *testing.T) {
	term := &lockedBuffer{}
	screen := NewScreen(term)
	answers, typed := io.Pipe()
	defer typed.Close()
	a := &Asker{Out: screen, Style: view.Style(false)}
	a.Use(PlainInput(answers, screen, true))

	const helpers, lines = 4, 300
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for h := range helpers {
		wg.Go(func() {
			for i := range lines {
				fmt.Fprintf(screen, "[call_%d] tool-success: line %d\n", h, i)
				if i == lines/2 {
					<-stop // half before the answer, half after
				}
			}
		})
	}

	type result struct {
		answer approve.Answer
		err    error
	}
	got := make(chan result, 1)
	go func() {
		answer, err := a.Ask(context.Background(), approve.Question{Kind: approve.Run, Tool: "bash", Subject: "cat go.mod"})
		got <- result{answer, err}
	}()
	question := "Run bash: cat go.mod? [y/N/a(lways)] "
	waitFor(t, term, question)
	fmt.Fprintln(typed, "/tools")
	waitFor(t, term, "is not an answer")
	fmt.Fprintln(typed, "y")
	r := <-got
	close(stop)
	wg.Wait()

	if r.err != nil || r.answer != approve.Yes {
		t.Fatalf("Ask = %v, %v; want yes", r.answer, r.err)
	}
	out := term.String()
	want := question + "/tools\n" +
		`"/tools" is not an answer: type y (yes), n (no) or a (always); Enter alone is no` + "\n" +
		question + "y\n"
	if !strings.Contains(out, want) {
		t.Errorf("the question and its answers are not together; want %q in:\n%s", want, out)
	}
	rest := strings.Replace(out, want, "", 1)
	line := regexp.MustCompile(`^\[call_\d\] tool-success: line \d+$`)
	seen := 0
	for l := range strings.Lines(rest) {
		if !line.MatchString(strings.TrimSuffix(l, "\n")) {
			t.Errorf("a helper's line was broken: %q", l)
		}
		seen++
	}
	if seen != helpers*lines {
		t.Errorf("%d helper lines shown, want %d", seen, helpers*lines)
	}
}

// TestScreenKeepsBound: what is written while a question is open is kept
// up to maxHeld bytes; the rest is counted, and said.
func TestScreenKeepsBound(t *testing.T) {
	var term bytes.Buffer
	screen := NewScreen(&term)
	w, release := screen.hold()
	fmt.Fprint(w, "question? ")
	big := strings.Repeat("x", maxHeld+10)
	if n, err := screen.Write([]byte(big)); n != len(big) || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if term.String() != "question? " {
		t.Fatalf("written while held: %q", term.String()[:min(40, term.Len())])
	}
	release()
	release() // a second release changes nothing
	out := term.String()
	if !strings.HasPrefix(out, "question? "+strings.Repeat("x", maxHeld)+"\n[10 more bytes") {
		t.Errorf("after the release: %q…", out[:min(60, len(out))])
	}
	fmt.Fprint(screen, "after")
	if !strings.HasSuffix(term.String(), "not shown]\nafter") {
		t.Errorf("not written through after the release: …%q", out[max(0, len(out)-60):])
	}
}

// TestAskUnclear: an answer the asker does not understand is asked again,
// and after maxUnclear of them the question is refused; Enter alone is no.
func TestAskUnclear(t *testing.T) {
	tests := []struct {
		typed string
		want  approve.Answer
		notes int
	}{
		{"/tools\ny\n", approve.Yes, 1},
		{"sure\nok\na\n", approve.Always, 2},
		{"\n", approve.No, 0},
		{"what\n?\nhuh\ny\n", approve.No, 3},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSpace(tt.typed), func(t *testing.T) {
			var out bytes.Buffer
			a := &Asker{Out: &out, Style: view.Style(false)}
			a.Use(PlainInput(strings.NewReader(tt.typed), &out, false))
			got, err := a.Ask(context.Background(), approve.Question{Kind: approve.Run, Tool: "bash", Subject: "ls"})
			if err != nil || got != tt.want {
				t.Fatalf("Ask = %v, %v; want %v", got, err, tt.want)
			}
			if n := strings.Count(out.String(), "is not an answer") + strings.Count(out.String(), "taken as no"); n != tt.notes {
				t.Errorf("%d notes, want %d:\n%s", n, tt.notes, out.String())
			}
			if tt.notes == maxUnclear && !strings.Contains(out.String(), "no answer understood after 3 tries; taken as no") {
				t.Errorf("no word that the question was refused:\n%s", out.String())
			}
		})
	}
}
