package window_test

import (
	"os"
	"testing"

	"harness/protocol"
	"harness/window"
)

func TestMeasure(t *testing.T) {
	b := window.New(window.Config{}).Budget(4000)
	tests := []struct {
		name         string
		msgs         []protocol.Message
		u            protocol.Usage
		instructions string
		want         [6]int
	}{
		// Each message counts its bytes and 16 of template; 4 bytes a token.
		{
			name: "every part",
			msgs: []protocol.Message{sys(n(384)), user(n(184)), window.SummaryMessage(n(284 - len(window.SummaryHeader) - 1)),
				call(n(84 - len(call("").Content))), result("call_1", true, n(400-16-38))},
			want: [6]int{100, 0, 50, 25, 100, 75},
		},
		{
			name:         "instructions in the system prompt",
			msgs:         []protocol.Message{sys(n(184) + "RULES" + n(195)), user(n(184))},
			instructions: "RULES" + n(195),
			want:         [6]int{50, 50, 50, 0, 0, 0},
		},
		{
			// The backend counted 300 tokens where the estimate said 200:
			// the parts it measured grow in proportion.
			name: "measured by the backend",
			msgs: []protocol.Message{sys(n(384)), user(n(384)), asst(n(384))},
			u:    protocol.Usage{Known: true, PromptTokens: 300},
			want: [6]int{150, 0, 150, 100, 0, 0},
		},
		{name: "nothing", want: [6]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c window.Counter
			d := window.Measure(tt.msgs, tt.u, &c, b, tt.instructions)
			sum := 0
			for _, n := range d.Tokens {
				sum += n
			}
			if [6]int(d.Tokens) != tt.want || d.Used != sum || d.Budget != b {
				t.Errorf("Measure = %+v, want %v", d, tt.want)
			}
			if d.Used != c.Count(tt.msgs, tt.u) {
				t.Errorf("Used %d, Count %d", d.Used, c.Count(tt.msgs, tt.u))
			}
		})
	}
}

func TestShort(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{0, "0"}, {950, "950"}, {999, "999"}, {1000, "1.0k"}, {4096, "4.1k"}, {9123, "9.1k"},
		{9949, "9.9k"}, {9950, "10k"}, {16384, "16k"}, {131072, "131k"},
	}
	for _, tt := range tests {
		if got := window.Short(tt.n); got != tt.want {
			t.Errorf("Short(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func ExampleBreakdown_Render() {
	msgs := []protocol.Message{
		sys(n(4000)),
		user("read the files"),
		window.SummaryMessage(n(1200)),
		call("a.go"), result("call_1", true, n(9000)),
		call("b.go"), result("call_2", true, n(20000)),
	}
	c := window.New(window.Config{})
	d := window.Measure(msgs, protocol.Usage{}, c.Counter(), c.Budget(16384), "")
	d.Render(os.Stdout)
	// Output:
	// context window 16k tokens: 8.7k used (53%), 5.7k free
	//   system prompt   1.0k   6%  #
	//   instructions       0   0%
	//   user messages      8   0%
	//   replies           38   0%
	//   tool results    7.3k  44%  #########
	//   summaries        328   2%
	//   free            5.7k  35%  #######
	//   reply reserve   2.0k  13%  ###
	// compaction above 13k (79%), down to 7.2k (44%)
}

// TestCompactorMeasure holds that a compactor measures a conversation
// with its replies read as its Parse reads them: the result of a call in
// another format (bare JSON, which only a Reader that knows the tool
// reads) counts as a tool result, not as the user's words.
func TestCompactorMeasure(t *testing.T) {
	specs := []protocol.ToolSpec{{Name: "read_file", Args: []protocol.Arg{{Name: "path", Type: protocol.String, Required: true}}}}
	msgs := []protocol.Message{
		sys("system"),
		user("read it"),
		{Role: protocol.Assistant, Content: "{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}"},
		result("call_1", true, n(4000)),
	}
	c := window.New(window.Config{Parse: protocol.NewReader(specs).Parse})
	d := c.Measure(msgs, protocol.Usage{}, 16384, "")
	if d.Tokens[window.Results] == 0 || d.Tokens[window.Inputs] > 100 {
		t.Errorf("tool results %d, user messages %d tokens: the result was not told from the user's words", d.Tokens[window.Results], d.Tokens[window.Inputs])
	}
}
