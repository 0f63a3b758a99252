package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/rogpeppe/go-internal/testscript"

	"harness/fakemodel"
)

var update = flag.Bool("u", false, "update testscript files with the actual output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"harness": func() { os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// ollamaScript is the file that, when a test script ships it, is served as
// a fake Ollama for that script alone; OLLAMA_HOST then points at it and
// every request it receives is logged to requestLog. When the script also
// ships ollamaWindow, the server holds each request to its num_ctx as
// Ollama does (fakemodel.EnforceWindow); the file may hold the model's
// context length, which /api/show then reports. When it ships
// summaryScript, the requests for a summary that a compaction makes are
// served from that script instead, and logged to summaryLog (see
// withSummaries).
const (
	ollamaScript  = "ollama.fake"
	ollamaWindow  = "ollama.window"
	requestLog    = "requests.jsonl"
	summaryScript = "summaries.fake"
	summaryLog    = "summaries.jsonl"
)

func TestScript(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script"),
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup:               setup,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"mkfiles":  cmdMkfiles,
			"prefixes": cmdPrefixes,
			"reqsize":  cmdReqSize,
			"waitfile": cmdWaitfile,
		},
	})
}

func setup(e *testscript.Env) error {
	home := filepath.Join(e.WorkDir, ".home")
	if err := os.Mkdir(home, 0o755); err != nil {
		return err
	}
	e.Setenv("HOME", home)
	e.Setenv("NO_COLOR", "1")
	e.Setenv("HARNESS_MODEL", "fake")
	// Port 1 on loopback never has an Ollama behind it, so a script that
	// forgets to bring its own server fails instead of reaching a real one.
	e.Setenv("OLLAMA_HOST", "127.0.0.1:1")

	path := filepath.Join(e.WorkDir, ollamaScript)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	script, err := fakemodel.Load(path)
	if err != nil {
		return err
	}
	log, err := os.Create(filepath.Join(e.WorkDir, requestLog))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	opts, err := windowOptions(filepath.Join(e.WorkDir, ollamaWindow))
	if err != nil {
		return err
	}
	handler := fakemodel.NewServer(script, append(opts, fakemodel.WithLog(log))...).Handler()
	handler, closeSummaries, err := withSummaries(e.WorkDir, handler, opts)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: handler}
	go hs.Serve(ln)
	e.Setenv("OLLAMA_HOST", ln.Addr().String())
	e.Defer(func() {
		hs.Close()
		log.Close()
		closeSummaries()
	})
	return nil
}

// windowOptions are the fake server's options that the file at path asks
// for: none when there is no such file; a window held as Ollama holds it
// when there is, with the context length the file holds, if any.
func windowOptions(path string) ([]fakemodel.Option, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	opts := []fakemodel.Option{fakemodel.EnforceWindow()}
	if s := strings.TrimSpace(string(data)); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ollamaWindow, err)
		}
		opts = append(opts, fakemodel.WithContextLength(n))
	}
	return opts, nil
}

// cmdPrefixes checks a request log: each request's messages must begin with
// the previous request's messages, byte for byte. Given the run's record
// too, it checks that from each compaction on: the first request after a
// compaction is shorter, and the ones after it extend it again.
func cmdPrefixes(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 && len(args) != 2 {
		ts.Fatalf("usage: prefixes LOGFILE [RECORD]")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	reqs, err := fakemodel.ReadLog(f)
	ts.Check(err)
	if len(reqs) < 2 && !neg {
		ts.Fatalf("only %d request(s) logged: nothing to compare", len(reqs))
	}
	runs := [][]api.ChatRequest{reqs}
	if len(args) == 2 {
		runs = compactionRuns(ts, reqs, args[1])
	}
	for _, run := range runs {
		if err = fakemodel.CheckPrefixes(run); err != nil {
			break
		}
	}
	switch {
	case neg && err == nil:
		ts.Fatalf("every request extends the one before")
	case !neg && err != nil:
		ts.Fatalf("%v", err)
	}
}

// cmdWaitfile waits until a file holds a match for a regular expression, so
// a script can act at a known point of a command running in the background.
func cmdWaitfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfile FILE REGEXP")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(ts.MkAbs(args[0]))
		if re.Match(data) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s did not match %q within 10s; it holds:\n%s", args[0], args[1], data)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
