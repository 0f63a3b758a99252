package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"harness/loop"
	"harness/protocol"
	"harness/view"
	"harness/window"
)

// showTimeout bounds the question of the model's context length at start:
// a server that does not answer it soon will not answer a chat either, and
// the chat says so better.
const showTimeout = 5 * time.Second

// defaultWindow is the context window, in tokens, of a run whose backend
// sends none and whose flags give none: the num_ctx an Ollama request
// asks for unless told otherwise.
const defaultWindow = 16384

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
func windowSize(ctx context.Context, warn io.Writer, m backend, flags *modelFlags) (int, error) {
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
	sz, ok := m.(sizer)
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

// keepInWindow gives the run's conversations a context window of size
// tokens, and what shows it (r.ctxview, writing to log, after each step
// when steps is set). With compact, a Compactor keeps them inside it,
// keeping reserve tokens free for the reply (0: an eighth of the window);
// the summaries it asks of the model count in the budget and reach the
// record as the steps do. Without, it only counts, for the display.
func (r *runner) keepInWindow(log io.Writer, size, reserve int, compact, steps bool) {
	v := &view.Window{W: log, Style: view.StyleFor(log), Size: size, Steps: steps}
	hooks := []loop.Hook{r.budget}
	if r.rec != nil {
		hooks = append(hooks, r.rec)
	}
	v.Compact = window.New(window.Config{
		Reserve:    reserve,
		Target:     maskTarget,
		Parse:      r.cfg.Parse,
		Summarizer: window.ModelSummarizer(currentModel{r}, v.SummaryHooks(append(hooks, v)...)...),
	})
	r.ctxview = v
	r.cfg.Window = size
	if compact {
		r.cfg.Compactor = v.Compact
	}
}

// currentModel is the run's model at each call: the summaries are asked
// of the model the conversation uses, which /model may change.
type currentModel struct{ r *runner }

func (m currentModel) Chat(ctx context.Context, req protocol.Request, stream func(protocol.Delta)) (protocol.Reply, error) {
	return m.r.model.Chat(ctx, req, stream)
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
