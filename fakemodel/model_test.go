package fakemodel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"harness/loop"
	"harness/protocol"
)

var _ loop.Model = (*Model)(nil)

func mustParse(t testing.TB, text string) *Script {
	t.Helper()
	s, err := Parse(t.Name(), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func userReq(content string) protocol.Request {
	return protocol.Request{Messages: []protocol.Message{
		{Role: protocol.System, Content: "You are a test."},
		{Role: protocol.User, Content: content},
	}}
}

func TestModelOrder(t *testing.T) {
	m := New(mustParse(t, ">>>\none\n>>>\ntwo\n"))
	if n := m.Remaining(); n != 2 {
		t.Fatalf("Remaining = %d, want 2", n)
	}
	for i, want := range []string{"one", "two"} {
		r, err := m.Chat(t.Context(), userReq("hi"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Content != want || r.DoneReason != protocol.DoneStop {
			t.Errorf("reply %d = %+v, want %q, done stop", i+1, r, want)
		}
	}
	if n := m.Remaining(); n != 0 {
		t.Errorf("Remaining = %d, want 0", n)
	}
	_, err := m.Chat(t.Context(), userReq("one more"), nil)
	if !errors.Is(err, ErrExhausted) {
		t.Fatalf("Chat after the last reply: %v, want ErrExhausted", err)
	}
	if !strings.Contains(err.Error(), "one more") {
		t.Errorf("error does not show the last message: %v", err)
	}
}

func TestModelExpectations(t *testing.T) {
	tests := []struct {
		name   string
		script string
		req    protocol.Request
		ok     bool
	}{
		{"expect met", ">>> expect=TOOL_RESULT\nx\n", userReq("TOOL_RESULT call_1 read SUCCESS"), true},
		{"expect unmet", ">>> expect=TOOL_RESULT\nx\n", userReq("hello"), false},
		{"role met", ">>> role=user\nx\n", userReq("hello"), true},
		{"role unmet", ">>> role=assistant\nx\n", userReq("hello"), false},
		{"no messages, no expectations", ">>>\nx\n", protocol.Request{}, true},
		{"no messages, expect unmet", ">>> expect=a\nx\n", protocol.Request{}, false},
		{"only the last message counts", ">>> expect=test\nx\n", userReq("hello"), false},
		{"whole met", ">>> expect=hello match=whole\nx\n", userReq("hello"), true},
		{"whole unmet by more", ">>> expect=hello match=whole\nx\n", userReq("hello there"), false},
		{"end met", ">>> expect=there match=end\nx\n", userReq("hello there"), true},
		{"end unmet", ">>> expect=hello match=end\nx\n", userReq("hello there"), false},
		{"contains, said", ">>> expect=ll match=contains\nx\n", userReq("hello"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(mustParse(t, tt.script))
			_, err := m.Chat(t.Context(), tt.req, nil)
			if tt.ok && err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if !tt.ok && !errors.Is(err, ErrExpectation) {
				t.Fatalf("Chat: %v, want ErrExpectation", err)
			}
			if m.Remaining() != 0 {
				t.Errorf("reply not used up")
			}
		})
	}
}

func TestModelReplies(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		stop     []string
		content  string
		thinking string
		done     string
	}{
		{"plain", ">>>\nhello\nworld\n", nil, "hello\nworld", "", protocol.DoneStop},
		{"length", ">>> done=length\ncut off", nil, "cut off", "", protocol.DoneLength},
		{"thinking", ">>> think=\"let me see\\nfirst\"\nanswer\n", nil, "answer", "let me see\nfirst", protocol.DoneStop},
		{"stop cuts", ">>>\nTOOL_CALL {}\nTOOL_RESULT invented\n", []string{"\nTOOL_RESULT"}, "TOOL_CALL {}", "", protocol.DoneStop},
		{"earliest stop wins", ">>>\na STOP2 b STOP1 c\n", []string{"STOP1", "", "STOP2"}, "a ", "", protocol.DoneStop},
		{"stop overrides length", ">>> done=length\na|b\n", []string{"|"}, "a", "", protocol.DoneStop},
		{"absent stop changes nothing", ">>> done=length\nab\n", []string{"|"}, "ab", "", protocol.DoneLength},
		{"thinking is not cut", ">>> think=a|b\nc|d\n", []string{"|"}, "c", "a|b", protocol.DoneStop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(mustParse(t, tt.script))
			var content, thinking strings.Builder
			chunks := 0
			req := userReq("hi")
			req.Stop = tt.stop
			r, err := m.Chat(t.Context(), req, func(d protocol.Delta) {
				chunks++
				if d.Content != "" && d.Thinking != "" {
					t.Errorf("delta carries both content and thinking: %+v", d)
				}
				if d.Content != "" && thinking.Len() < len(tt.thinking) {
					t.Errorf("content streamed before all thinking")
				}
				content.WriteString(d.Content)
				thinking.WriteString(d.Thinking)
			})
			if err != nil {
				t.Fatal(err)
			}
			if r.Content != tt.content || r.Thinking != tt.thinking || r.DoneReason != tt.done {
				t.Errorf("reply = %+v, want content %q thinking %q done %q", r, tt.content, tt.thinking, tt.done)
			}
			if content.String() != r.Content || thinking.String() != r.Thinking {
				t.Errorf("streamed content %q thinking %q, reply has %q %q", content.String(), thinking.String(), r.Content, r.Thinking)
			}
			if len(r.Content) > 1 && chunks < 2 {
				t.Errorf("streamed in %d chunks, want several", chunks)
			}
		})
	}
}

func TestModelUsage(t *testing.T) {
	m := New(mustParse(t, ">>> think=abcd\n12345678\n"))
	req := protocol.Request{Messages: []protocol.Message{
		{Role: protocol.System, Content: "0123456789"}, // 10 bytes
		{Role: protocol.User, Content: "ab"},           // 2 bytes
	}}
	r, err := m.Chat(t.Context(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := protocol.Usage{Known: true, PromptTokens: 3, OutputTokens: 3}
	if r.Usage != want {
		t.Errorf("Usage = %+v, want %+v", r.Usage, want)
	}
}

func TestModelDelay(t *testing.T) {
	m := New(mustParse(t, ">>> delay=20ms\nslow\n>>> delay=1h\nnever\n>>>\nafter\n"))
	start := time.Now()
	if _, err := m.Chat(t.Context(), userReq("hi"), nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Errorf("replied after %v, want at least 20ms", d)
	}

	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(10*time.Millisecond, cancel)
	called := false
	_, err := m.Chat(ctx, userReq("hi"), func(protocol.Delta) { called = true })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Chat: %v, want context.Canceled", err)
	}
	if called {
		t.Error("a cancelled reply was streamed")
	}

	// The cancelled reply is used up; a cancelled context takes nothing.
	if _, err := m.Chat(ctx, userReq("hi"), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Chat with a done context: %v, want context.Canceled", err)
	}
	r, err := m.Chat(t.Context(), userReq("hi"), nil)
	if err != nil || r.Content != "after" {
		t.Fatalf("Chat after cancel = %q, %v; want \"after\"", r.Content, err)
	}
}

// TestModelPace: a paced reply streams a word at a time, thinking first,
// and a cancel between two words ends it.
func TestModelPace(t *testing.T) {
	m := New(mustParse(t, ">>> pace=1ms think=\"hm, yes\"\none two\nthree\n>>> pace=1h\nnever ends\n"))
	var got []protocol.Delta
	r, err := m.Chat(t.Context(), userReq("hi"), func(d protocol.Delta) { got = append(got, d) })
	if err != nil || r.Content != "one two\nthree" {
		t.Fatalf("Chat = %q, %v", r.Content, err)
	}
	want := []protocol.Delta{{Thinking: "hm, "}, {Thinking: "yes"}, {Content: "one "}, {Content: "two\n"}, {Content: "three"}}
	if !slices.Equal(got, want) {
		t.Errorf("streamed %q, want %q", got, want)
	}

	ctx, cancel := context.WithCancel(t.Context())
	got = nil
	_, err = m.Chat(ctx, userReq("hi"), func(d protocol.Delta) { got = append(got, d); cancel() })
	if !errors.Is(err, context.Canceled) || len(got) != 1 || got[0].Content != "never " {
		t.Errorf("cancelled after the first word: %v, streamed %q", err, got)
	}
}

func TestModelConcurrent(t *testing.T) {
	const n = 20
	m := New(mustParse(t, strings.Repeat(">>>\nx\n", n)))
	var wg sync.WaitGroup
	errs := make(chan error, n+1)
	for range n + 1 {
		wg.Go(func() {
			_, err := m.Chat(t.Context(), userReq("hi"), func(protocol.Delta) {})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	exhausted := 0
	for err := range errs {
		switch {
		case errors.Is(err, ErrExhausted):
			exhausted++
		case err != nil:
			t.Error(err)
		}
	}
	if exhausted != 1 {
		t.Errorf("%d calls found the script exhausted, want 1", exhausted)
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("é", 1000)
	got := excerpt(long)
	if len(got) > 600 || !strings.Contains(got, "bytes") {
		t.Errorf("excerpt of a long text: %d bytes: %s", len(got), got)
	}
	if got := excerpt("short\n"); got != `"short\n"` {
		t.Errorf("excerpt(short) = %s", got)
	}
}

// The fake names its script as its model, and honours the stop sequences
// (which it cuts at, above) and no other setting.
func TestDescribe(t *testing.T) {
	s, err := Parse("demo.fake", []byte(">>>\nhi\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := New(s).Describe()
	if b.Name != "fake" || b.Model != "demo.fake" || len(b.Options) != 0 {
		t.Errorf("described as %+v", b)
	}
	for _, set := range []protocol.Setting{protocol.NumCtx, protocol.NumPredict, protocol.Temperature, protocol.Seed, protocol.Stop} {
		if got, want := b.Honours(set), set == protocol.Stop; got != want {
			t.Errorf("honours %s: %v, want %v", set, got, want)
		}
	}
}

// convReq is a request of the conversation that began with first, at a
// later step.
func convReq(first string) protocol.Request {
	return protocol.Request{Messages: []protocol.Message{
		{Role: protocol.System, Content: "You are a test."},
		{Role: protocol.User, Content: first},
		{Role: protocol.Assistant, Content: "TOOL_CALL ..."},
		{Role: protocol.User, Content: "TOOL_RESULT call_1 x SUCCESS\nok"},
	}}
}

// TestModelConversations: replies with when go to the conversation whose
// first user message contains it, each conversation's in script order,
// whatever order the requests come in; the rest go to the others.
func TestModelConversations(t *testing.T) {
	m := New(mustParse(t, `>>>
main 1
>>> when="task a"
a 1
>>> when="task b"
b 1
>>> when="task a"
a 2
>>>
main 2
>>> when="task"
any task
`))
	steps := []struct{ first, want string }{
		{"task b: look", "b 1"},
		{"do it", "main 1"},
		{"task a and task b", "a 1"}, // both match: the first when in the script wins
		{"task a", "a 2"},
		{"a task of its own", "any task"},
		{"do it", "main 2"},
	}
	for i, s := range steps {
		r, err := m.Chat(t.Context(), convReq(s.first), nil)
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		if r.Content != s.want {
			t.Errorf("request %d (%q): %q, want %q", i+1, s.first, r.Content, s.want)
		}
	}
	if n := m.Remaining(); n != 0 {
		t.Errorf("Remaining = %d", n)
	}
	_, err := m.Chat(t.Context(), convReq("task b"), nil)
	if !errors.Is(err, ErrExhausted) || !strings.Contains(err.Error(), `conversation when="task b" (it had 1)`) {
		t.Errorf("an exhausted conversation: %v", err)
	}
	_, err = m.Chat(t.Context(), convReq("other"), nil)
	if !errors.Is(err, ErrExhausted) || !strings.Contains(err.Error(), "no when attribute names (it had 2)") {
		t.Errorf("the exhausted conversation without when: %v", err)
	}
}

// TestModelConversationErrors: an expectation names the reply's line in
// the script, whichever conversation it belongs to.
func TestModelConversationErrors(t *testing.T) {
	m := New(mustParse(t, ">>>\nmain\n>>> when=sub expect=RESULT\nchild\n"))
	_, err := m.Chat(t.Context(), userReq("sub task"), nil)
	if !errors.Is(err, ErrExpectation) || !strings.Contains(err.Error(), ":3: reply 2") {
		t.Errorf("err = %v, want an expectation failure at line 3, reply 2", err)
	}
	if r, err := m.Chat(t.Context(), userReq("main task"), nil); err != nil || r.Content != "main" {
		t.Errorf("the main conversation: %q, %v", r.Content, err)
	}
}

// TestModelConversationsConcurrent: conversations that ask at the same
// time each get their own replies in order.
func TestModelConversationsConcurrent(t *testing.T) {
	const convs, steps = 4, 5
	var script strings.Builder
	for s := range steps {
		for c := range convs {
			fmt.Fprintf(&script, ">>> when=\"task %d\"\n%d.%d\n", c, c, s)
		}
	}
	m := New(mustParse(t, script.String()))
	var wg sync.WaitGroup
	for c := range convs {
		wg.Go(func() {
			for s := range steps {
				r, err := m.Chat(t.Context(), convReq(fmt.Sprintf("task %d", c)), nil)
				if want := fmt.Sprintf("%d.%d", c, s); err != nil || r.Content != want {
					t.Errorf("conversation %d, step %d: %q, %v; want %q", c, s, r.Content, err, want)
				}
			}
		})
	}
	wg.Wait()
}
