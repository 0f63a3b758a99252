package window_test

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"harness/fakemodel"
	"harness/loop"
	"harness/ollama"
	"harness/window"
)

// TestLongTurnOverHTTP runs the long turn against the fake Ollama server,
// which holds each request to its num_ctx as Ollama does, through the
// Ollama adapter: without compaction the server refuses the request that
// overflows, with Ollama's error; with it the turn completes, and between
// compactions the server sees each request begin with the one before.
func TestLongTurnOverHTTP(t *testing.T) {
	set, system, script := sixty.setup(t)
	for _, compact := range []bool{false, true} {
		var log bytes.Buffer
		srv := fakemodel.NewServer(script, fakemodel.EnforceWindow(), fakemodel.WithLog(&log))
		hs := httptest.NewServer(srv.Handler())
		defer hs.Close()
		host, _ := url.Parse(hs.URL)
		model := ollama.New(host, fakemodel.DefaultModelName, ollama.Options{NumCtx: sixty.Window})
		cfg := loop.Config{System: system, MaxSteps: sixty.Steps + 1, Window: sixty.Window}
		var compactions []int
		if compact {
			cfg.Compactor = window.New(window.Config{Summarizer: window.ModelSummarizer(fakemodel.New(summaries(t, 10)), nil), Target: pathOf})
		}
		a := loop.New(model, set, cfg, loop.Observe(func(e loop.Event) {
			if e.Kind == loop.Compacted {
				// Between requests: the log holds one line for each.
				compactions = append(compactions, bytes.Count(log.Bytes(), []byte("\n")))
			}
		}))
		answer, err := a.Turn(context.Background(), "read every file in src, one at a time, then say Done.")
		if !compact {
			if !errors.Is(err, ollama.ErrRefused) || !strings.Contains(err.Error(), "HTTP 400") || !strings.Contains(err.Error(), "the input length exceeds the context length") {
				t.Errorf("without compaction: %q, %v", answer, err)
			}
			continue
		}
		if err != nil || answer != "Done." {
			t.Fatalf("with compaction: %q, %v", answer, err)
		}
		reqs, err := fakemodel.ReadLog(&log)
		if err != nil {
			t.Fatal(err)
		}
		if len(reqs) != sixty.Steps+1 || len(compactions) == 0 {
			t.Fatalf("%d requests, compactions before requests %v", len(reqs), compactions)
		}
		from := 0
		for _, to := range append(compactions, len(reqs)) {
			if err := fakemodel.CheckPrefixes(reqs[from:to]); err != nil {
				t.Errorf("requests %d to %d: %v", from, to-1, err)
			}
			from = to
		}
	}
}
