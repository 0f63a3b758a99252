package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/rogpeppe/go-internal/testscript"

	"harness/fakemodel"
	"harness/record"
	"harness/window"
)

// cmdMkfiles writes COUNT files of BYTES bytes each into DIR, named
// f01.txt, f02.txt, ... (or f001.txt when there are a hundred or more),
// each line of each naming its file, so that no two files are alike: the
// long conversations of the context window's tests, without a txtar of
// hundreds of kilobytes.
func cmdMkfiles(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: mkfiles DIR COUNT BYTES")
	}
	count, err := strconv.Atoi(args[1])
	ts.Check(err)
	size, err := strconv.Atoi(args[2])
	ts.Check(err)
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	width := len(strconv.Itoa(max(count, 10)))
	for n := 1; n <= count; n++ {
		name := fmt.Sprintf("f%0*d.txt", width, n)
		var b strings.Builder
		for line := 1; b.Len() < size; line++ {
			fmt.Fprintf(&b, "%s line %d: the quick brown fox jumps over the lazy dog\n", name, line)
		}
		ts.Check(os.WriteFile(filepath.Join(dir, name), []byte(b.String()[:size]), 0o644))
	}
}

// summaryMark is in the last message of every request for a summary that
// the window package's Compactor makes, and in no other request of the
// tests.
const summaryMark = "Write the summary"

// withSummaries returns main with the chat requests for a summary sent to
// a fake server of its own, when dir holds a script for them: where a
// compaction falls in a long run depends on the sizes of everything sent
// (the system prompt's included), so a script of the run's steps cannot
// say which of its replies a summary request would take. The summaries'
// server has options opts and logs its requests apart. close closes its
// log.
func withSummaries(dir string, main http.Handler, opts []fakemodel.Option) (h http.Handler, close func(), err error) {
	path := filepath.Join(dir, summaryScript)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return main, func() {}, nil
	}
	script, err := fakemodel.Load(path)
	if err != nil {
		return nil, nil, err
	}
	log, err := os.Create(filepath.Join(dir, summaryLog))
	if err != nil {
		return nil, nil, err
	}
	summaries := fakemodel.NewServer(script, append(opts, fakemodel.WithLog(log))...).Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/chat" {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			var req api.ChatRequest
			if json.Unmarshal(body, &req) == nil && len(req.Messages) > 0 && strings.Contains(req.Messages[len(req.Messages)-1].Content, summaryMark) {
				summaries.ServeHTTP(w, r)
				return
			}
		}
		main.ServeHTTP(w, r)
	}), func() { log.Close() }, nil
}

// compactionRuns splits the requests of a log at the compactions the run's
// record at path says happened before them (see splitAtCompactions); the
// log holds the main conversation's requests only.
func compactionRuns(ts *testscript.TestScript, reqs []api.ChatRequest, path string) [][]api.ChatRequest {
	f, err := os.Open(ts.MkAbs(path))
	ts.Check(err)
	defer f.Close()
	lines, err := record.Read(f)
	ts.Check(err)
	runs, err := splitAtCompactions(lines, reqs, false)
	ts.Check(err)
	var sizes []int
	for _, r := range runs {
		sizes = append(sizes, len(r))
	}
	ts.Logf("%d compactions; requests between them: %v", len(runs)-1, sizes)
	return runs
}

// splitAtCompactions returns the main conversation's requests among reqs
// split at the compactions that lines, the run's record, says happened
// before them. reqs are the requests a server received, in order: those of
// the main conversation, and when withSummaries, the summary requests
// among them, which are left out. It is an error when the record has no
// compaction or not as many requests as reqs, and when a compaction did
// not make the conversation smaller or the request after it is not the
// conversation it left.
func splitAtCompactions(lines []record.Line, reqs []api.ChatRequest, withSummaries bool) ([][]api.ChatRequest, error) {
	var main []api.ChatRequest
	var cuts []int  // indexes in main of the requests that follow a compaction
	var after []int // the bytes each compaction left
	n := 0
	for _, l := range lines {
		switch {
		case l.Type == "request" && (l.Origin == "" || withSummaries && l.Origin == window.SummaryOrigin):
			if n >= len(reqs) {
				return nil, fmt.Errorf("the record has more requests than the %d received", len(reqs))
			}
			if l.Origin == "" {
				main = append(main, reqs[n])
			}
			n++
		case l.Type == "compaction" && l.Origin == "" && l.Compaction != nil:
			if l.BytesAfter >= l.BytesBefore {
				return nil, fmt.Errorf("a compaction from %d bytes to %d", l.BytesBefore, l.BytesAfter)
			}
			cuts, after = append(cuts, len(main)), append(after, l.BytesAfter)
		}
	}
	switch {
	case n != len(reqs):
		return nil, fmt.Errorf("the record has %d requests, the server received %d", n, len(reqs))
	case len(cuts) == 0:
		return nil, errors.New("the record has no compaction")
	}
	var runs [][]api.ChatRequest
	from := 0
	for i, cut := range cuts {
		if cut == 0 || cut >= len(main) {
			return nil, fmt.Errorf("a compaction before request %d of %d", cut+1, len(main))
		}
		if got := size(main[cut]); got != after[i] {
			return nil, fmt.Errorf("request %d, after a compaction that left %d bytes, is %d bytes", cut+1, after[i], got)
		}
		runs = append(runs, main[from:cut])
		from = cut
	}
	return append(runs, main[from:]), nil
}

// size is the bytes of req's message contents.
func size(req api.ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	return n
}
