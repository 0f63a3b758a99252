package window_test

import (
	"context"
	"strings"
	"testing"

	"harness/loop"
	"harness/protocol"
	"harness/window"
)

func TestPageBytes(t *testing.T) {
	system := sys(n(4000 - 16)) // 1000 tokens at 4 bytes a token
	tests := []struct {
		name   string
		cfg    window.Config
		window int
		want   int
	}{
		{"unknown window", window.Config{}, 0, 0},
		// 8192 less 1024 for the reply, 90% of that is 6451; less the
		// system prompt, halved: 2725 tokens, 10900 bytes.
		{"8k", window.Config{}, 8192, 10900},
		{"4k", window.Config{}, 4096, (3225 - 1000) / 2 * 4},
		{"a reply's reserve", window.Config{Reserve: 2048}, 8192, (5529 - 1000) / 2 * 4},
		{"a window the system prompt fills", window.Config{}, 1024, 256 * 4},
		{"a large window", window.Config{}, 131072, (103219 - 1000) / 2 * 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := window.New(tt.cfg).PageBytes(tt.window, system); got != tt.want {
				t.Errorf("PageBytes(%d) = %d, want %d", tt.window, got, tt.want)
			}
		})
	}
}

// TestAPageIsNeverElided: a result of PageBytes's size, sent into the
// window it was made for, keeps its text.
func TestAPageIsNeverElided(t *testing.T) {
	for _, size := range []int{4096, 8192, 32768} {
		c := window.New(window.Config{Target: pathOf})
		system := sys(n(3500))
		page := c.PageBytes(size, system)
		msgs := []protocol.Message{system, user("read it"), call("big.log"), result("call_1", true, n(page))}
		got, _, err := c.Compact(context.Background(), loop.Conversation{Messages: msgs, Window: size})
		if err != nil || (got != nil && window.IsMasked(strings.SplitN(got[3].Content, "\n", 2)[1])) {
			t.Errorf("window %d: a page of %d bytes was elided (%v)", size, page, err)
		}
	}
}
