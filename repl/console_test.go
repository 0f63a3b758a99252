package repl

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"harness/chat"
	"harness/journal"
	"harness/loop"
	"harness/protocol"
	"harness/tools"
	"harness/view"
)

// stuckModel is a model whose call ignores its context: it returns only
// once released, as a call stuck in a system call would.
type stuckModel struct {
	called  chan struct{}
	release chan struct{}
}

func (m *stuckModel) Describe() protocol.Backend {
	return protocol.Backend{Name: "stuck", Model: "stuck"}
}

func (m *stuckModel) Chat(ctx context.Context, _ protocol.Request, _ func(protocol.Delta)) (protocol.Reply, error) {
	close(m.called)
	<-m.release
	return protocol.Reply{}, ctx.Err()
}

// TestSecondInterruptQuits: a second Ctrl-C while a turn is still ending
// returns ErrQuitNow at once, without waiting for the turn, so that the
// REPL returns and the run's deferred close runs before the harness exits.
func TestSecondInterruptQuits(t *testing.T) {
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := &stuckModel{called: make(chan struct{}), release: make(chan struct{})}
	defer close(m.release)
	ts, err := tools.NewSet(tools.ReadFile(ws))
	if err != nil {
		t.Fatal(err)
	}
	ch := &chat.Chat{
		Model: m, Workspace: ws, Config: loop.Config{System: "SYSTEM"}, Budget: &loop.Budget{},
		Approvals: &chat.Approvals{Log: io.Discard}, Journal: journal.New(ts, ws, ""), Script: &chat.Scripted{},
		Attach:   &Attacher{WS: ws, Tools: ts},
		ToolsFor: func(loop.Model) (loop.Tools, error) { return ts, nil },
	}
	if err := ch.BuildTools(); err != nil {
		t.Fatal(err)
	}
	ch.KeepInWindow(io.Discard, false, 4096, 0, false, false, nil)
	ch.Start(&view.Turn{Out: io.Discard, Log: io.Discard})
	c := &console{chat: ch, out: io.Discard, in: PlainInput(strings.NewReader(""), io.Discard, false)}
	sigs := make(chan os.Signal, 1)
	done := make(chan error, 1)
	go func() { done <- c.runTurn(context.Background(), "go", sigs) }()
	<-m.called
	sigs <- os.Interrupt
	select {
	case err := <-done:
		t.Fatalf("the first Ctrl-C ended the stuck turn at once: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	sigs <- os.Interrupt
	select {
	case err := <-done:
		if !errors.Is(err, ErrQuitNow) {
			t.Errorf("got %v, want ErrQuitNow", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a second Ctrl-C did not quit")
	}
}
