package repl

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// maxHeld bounds what a Screen keeps back while a question is open; what
// is written beyond it is counted, and said, not kept.
const maxHeld = 1 << 20

// Screen is the writer of a terminal that several parts of the program
// write to at once: the turn's view, helpers running side by side, and
// the questions an Asker asks. While a question is open, what the others
// write is kept back, and written after the answer, so that nothing lands
// inside the question's line and the question and its answer are never
// split. Writes never wait for the answer: a helper goes on working while
// the question waits. Each Write reaches the terminal whole, never mixed
// with another.
//
// An Asker whose Out is a Screen holds it while it asks.
type Screen struct {
	w io.Writer

	mu      sync.Mutex
	held    bool
	kept    bytes.Buffer // written while held, in order
	dropped int          // bytes written while held beyond maxHeld

	turn chan struct{} // one holder at a time
}

// NewScreen returns a Screen that writes to w.
func NewScreen(w io.Writer) *Screen {
	return &Screen{w: w, turn: make(chan struct{}, 1)}
}

// Write writes p to the terminal, or keeps it while a question is open.
func (s *Screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.held {
		return s.w.Write(p)
	}
	room := max(0, maxHeld-s.kept.Len())
	k := min(room, len(p))
	s.kept.Write(p[:k])
	s.dropped += len(p) - k
	return len(p), nil
}

// hold keeps what others write back until release is called, and returns
// the writer the holder writes with meanwhile. A second holder waits for
// the first to release.
func (s *Screen) hold() (w io.Writer, release func()) {
	s.turn <- struct{}{}
	s.mu.Lock()
	s.held = true
	s.mu.Unlock()
	var once sync.Once
	return heldWriter{s}, func() { once.Do(s.release) }
}

// release writes what was kept back, and lets writes through again.
func (s *Screen) release() {
	s.mu.Lock()
	s.held = false
	if s.kept.Len() > 0 {
		s.w.Write(s.kept.Bytes())
		s.kept.Reset()
	}
	if s.dropped > 0 {
		fmt.Fprintf(s.w, "\n[%d more bytes of output were written while the question waited; they are not shown]\n", s.dropped)
		s.dropped = 0
	}
	s.mu.Unlock()
	<-s.turn
}

// heldWriter is how the holder of a Screen writes to the terminal.
type heldWriter struct{ s *Screen }

func (h heldWriter) Write(p []byte) (int, error) {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	return h.s.w.Write(p)
}
