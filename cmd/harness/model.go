package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"harness/chat"
	"harness/fakemodel"
	"harness/ollama"
	"harness/protocol"
	"harness/xdg"
)

// showTimeout bounds the question of the model's context length at start:
// a server that does not answer it soon will not answer a chat either, and
// the chat says so better.
const showTimeout = 5 * time.Second

// defaultWindow is the context window, in tokens, of a run whose backend
// sends none and whose flags give none: the num_ctx an Ollama request
// asks for unless told otherwise.
const defaultWindow = ollama.DefaultNumCtx

// numCtx is the context window the flags ask for: --num-ctx, else the
// default. A backend that sends it (Ollama) has it from the settings,
// which may also come from the environment or the settings file.
func (m *modelFlags) numCtx() int {
	if m.NumCtx > 0 {
		return m.NumCtx
	}
	return defaultWindow
}

// windowSize returns the context window of the run: the num_ctx the
// backend sends, else --num-ctx or its default, lowered to the model's own
// context length when a server that can say (a sizer, as Ollama's) says it
// is smaller (the server lowers num_ctx to it), with a warning on warn. When the server cannot
// say, the size stands: the first request will tell what is wrong. A reply
// limit (maxTokens) as large as the window leaves no room for the
// conversation, and every request would be refused: it is an error.
func windowSize(ctx context.Context, warn io.Writer, m chat.Backend, flags *modelFlags) (int, error) {
	b := m.Describe()
	size, ok := b.Options[string(protocol.NumCtx)].(int)
	if !ok {
		size = flags.numCtx()
	}
	if size <= 0 {
		return 0, fmt.Errorf("--num-ctx must be positive, not %d", size)
	}
	maxTokens := flags.MaxTokens
	if maxTokens >= size {
		return 0, fmt.Errorf("--max-tokens %d leaves no room for the conversation in --num-ctx %d: the reply's tokens are kept free in the context window, so --max-tokens must be less than --num-ctx", maxTokens, size)
	}
	sz, ok := m.(chat.Sizer)
	if !ok {
		return size, nil
	}
	ctx, cancel := context.WithTimeout(ctx, showTimeout)
	defer cancel()
	n, err := sz.ContextLength(ctx)
	if err != nil || n <= 0 || size <= n {
		return size, nil
	}
	if maxTokens >= n {
		return 0, fmt.Errorf("--max-tokens %d leaves no room for the conversation: %s holds at most %d tokens, whatever --num-ctx says", maxTokens, b.Model, n)
	}
	fmt.Fprintf(warn, "harness: --num-ctx %d is more than the %d tokens %s can hold; the context window is %d\n", size, n, b.Model, n)
	return n, nil
}

// maskTarget names what a call acted on in the line that replaces its
// result, as target does for the turn report, but nothing when that would
// only repeat the tool's name.
func maskTarget(c protocol.Call) string {
	if t := target(c); t != c.Name {
		return t
	}
	return ""
}

// model returns the model of the run, and, unless it is the fake, the
// providers it was chosen from. given names the flags given on the
// command line; dirs finds the settings file, and reads the environment.
func (m *modelFlags) model(given []string, dirs xdg.Dirs) (chat.Backend, *providers, error) {
	if m.Fake != "" {
		s, err := fakemodel.Load(m.Fake)
		if err != nil {
			return nil, nil, err
		}
		fake := fakemodel.New(s)
		fake.SetWindow(m.numCtx())
		return fake, nil, nil
	}
	p, err := m.choose(given, dirs, sampling{maxTokens: m.MaxTokens, temperature: m.Temperature, seed: m.Seed})
	if err != nil {
		return nil, nil, err
	}
	b, err := p.backend(p.cur)
	if err != nil {
		return nil, nil, err
	}
	return b, p, nil
}
