package loop_test

import (
	"context"
	"testing"

	"harness/loop"
	"harness/protocol"
)

// With the strict parser a call after a sentence is part of the answer and
// never runs; the default parser runs it.
func TestConfigParse(t *testing.T) {
	script := ">>>\nLet me echo.\nTOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}\n>>> expect=\"echo: hi\"\nDone.\n"
	for _, tt := range []struct {
		name   string
		parse  func(string) protocol.Parsed
		answer string
		runs   int64
	}{
		{"default", nil, "Done.", 1},
		{"strict", protocol.ParseStrict, "Let me echo.\nTOOL_CALL {\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, script, loop.Config{Parse: tt.parse})
			answer, err := h.agent.Turn(context.Background(), "go")
			if err != nil || answer != tt.answer {
				t.Fatalf("Turn = %q, %v; want %q", answer, err, tt.answer)
			}
			if got := h.runs.Load(); got != tt.runs {
				t.Errorf("the tool ran %d times, want %d", got, tt.runs)
			}
		})
	}
}
