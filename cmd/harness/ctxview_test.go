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
// record at path says happened before them: the requests of the main
// conversation are the log's, in order. It fails the script when the
// record has no compaction or not as many requests as the log, and when
// a request after a compaction is not smaller than the one before it.
func compactionRuns(ts *testscript.TestScript, reqs []api.ChatRequest, path string) [][]api.ChatRequest {
	f, err := os.Open(ts.MkAbs(path))
	ts.Check(err)
	defer f.Close()
	lines, err := record.Read(f)
	ts.Check(err)
	var cuts []int // indexes of the requests that follow a compaction
	n := 0
	for _, l := range lines {
		switch {
		case l.Origin != "":
		case l.Type == "request":
			n++
		case l.Type == "compaction":
			cuts = append(cuts, n)
		}
	}
	if n != len(reqs) {
		ts.Fatalf("the record has %d requests, the log %d", n, len(reqs))
	}
	if len(cuts) == 0 {
		ts.Fatalf("the record has no compaction")
	}
	var runs [][]api.ChatRequest
	from := 0
	for _, cut := range cuts {
		if cut == 0 || cut >= len(reqs) {
			ts.Fatalf("a compaction before request %d of %d", cut+1, len(reqs))
		}
		if before, after := size(reqs[cut-1]), size(reqs[cut]); after >= before {
			ts.Fatalf("request %d, after a compaction, is %d bytes; the one before, %d", cut+1, after, before)
		}
		runs = append(runs, reqs[from:cut])
		from = cut
	}
	runs = append(runs, reqs[from:])
	var sizes []int
	for _, r := range runs {
		sizes = append(sizes, len(r))
	}
	ts.Logf("%d compactions; requests between them: %v", len(cuts), sizes)
	return runs
}

// size is the bytes of req's message contents.
func size(req api.ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	return n
}
