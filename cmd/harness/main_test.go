package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/rogpeppe/go-internal/testscript"

	"harness/fakemodel"
	"harness/sandbox"
)

var update = flag.Bool("u", false, "update testscript files with the actual output")

func TestMain(m *testing.M) {
	// The test binary runs commands under Landlock as the harness does:
	// it is started again as their launcher.
	if err := sandbox.Launch(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(126)
	}
	testscript.Main(privateState{m}, map[string]func(){
		"harness": func() { os.Exit(execute(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// privateState runs the tests with settings and state folders of their
// own, so that the sessions of tests that run the harness in process go
// there and not into the user's, and the user's settings play no part;
// scripts get their own in setup.
type privateState struct{ m *testing.M }

func (p privateState) Run() int {
	dir, err := os.MkdirTemp("", "harness-state")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	return p.m.Run()
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
		Condition:           condition,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"expand":    cmdExpand,
			"front":     cmdFront,
			"mkfile":    cmdMkfile,
			"mkfiles":   cmdMkfiles,
			"prefixes":  cmdPrefixes,
			"reqsize":   cmdReqSize,
			"waitfile":  cmdWaitfile,
			"capture":   cmdCapture,
			"mcpserve":  cmdMCPServe,
			"tear":      cmdTear,
			"jsonlines": cmdJSONLines,
		},
	})
}

// setup gives each script a home, settings and state folders of its own,
// outside its work folder ($WORK), which is the workspace of most scripts:
// a script gives settings by copying a config.toml into
// $XDG_CONFIG_HOME/harness, and finds sessions in
// $XDG_STATE_HOME/harness. After the script, no folder of the harness's
// own (each of them is a folder named harness) may have appeared in $WORK:
// the harness writes nothing of its own into a workspace.
func setup(e *testscript.Env) error {
	dir, err := os.MkdirTemp("", "harness-script-")
	if err != nil {
		return err
	}
	e.Defer(func() { os.RemoveAll(dir) })
	for _, v := range []struct{ name, dir string }{{"HOME", "home"}, {"XDG_CONFIG_HOME", "config"}, {"XDG_STATE_HOME", "state"}} {
		path := filepath.Join(dir, v.dir)
		if err := os.Mkdir(path, 0o755); err != nil {
			return err
		}
		e.Setenv(v.name, path)
	}
	shipped, err := harnessFolders(e.WorkDir)
	if err != nil {
		return err
	}
	e.Defer(func() {
		found, err := harnessFolders(e.WorkDir)
		if err != nil {
			e.T().Fatal(err)
		}
		for _, f := range found {
			if !slices.Contains(shipped, f) {
				e.T().Fatal("the harness wrote a folder of its own into the work folder: " + f)
			}
		}
	})
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

// harnessFolders lists the folders named harness under dir, where the
// harness would keep its own files had it taken dir for its settings or
// state folder's base, or for the home folder.
func harnessFolders(dir string) ([]string, error) {
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "harness" {
			found = append(found, path)
		}
		return nil
	})
	return found, err
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
// the previous request's messages, byte for byte. With a regular
// expression, only the requests whose system prompt matches it are
// compared: one conversation's, when helpers' requests are logged too.
// With -only=N,M,..., only the requests of those numbers (from 1, in the
// order logged) are, in that order: a conversation that went on after
// another, such as one loaded with /load. With -record and the run's
// record, that is checked from each compaction on: the first request
// after a compaction is the conversation it left, and the ones after it
// extend it again.
func cmdPrefixes(ts *testscript.TestScript, neg bool, args []string) {
	var only []int
	var rec string
	for len(args) > 0 {
		if list, ok := strings.CutPrefix(args[0], "-only="); ok {
			for _, f := range strings.Split(list, ",") {
				n, err := strconv.Atoi(f)
				if err != nil || n < 1 {
					ts.Fatalf("-only: %q is not a request number", f)
				}
				only = append(only, n)
			}
			args = args[1:]
			continue
		}
		if len(args) > 1 && args[0] == "-record" {
			rec, args = args[1], args[2:]
			continue
		}
		break
	}
	if len(args) != 1 && len(args) != 2 {
		ts.Fatalf("usage: prefixes [-only=N,M,...] [-record RECORD] LOGFILE [SYSTEM-REGEXP]")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	reqs, err := fakemodel.ReadLog(f)
	ts.Check(err)
	if only != nil {
		var picked []api.ChatRequest
		for _, n := range only {
			if n > len(reqs) {
				ts.Fatalf("-only: request %d, but only %d were logged", n, len(reqs))
			}
			picked = append(picked, reqs[n-1])
		}
		reqs = picked
	}
	if len(args) == 2 {
		re, err := regexp.Compile(args[1])
		ts.Check(err)
		reqs = slices.DeleteFunc(reqs, func(r api.ChatRequest) bool {
			return len(r.Messages) == 0 || !re.MatchString(r.Messages[0].Content)
		})
	}
	if len(reqs) < 2 && !neg {
		ts.Fatalf("only %d request(s) logged: nothing to compare", len(reqs))
	}
	runs := [][]api.ChatRequest{reqs}
	if rec != "" {
		runs = compactionRuns(ts, reqs, rec)
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

// cmdMkfile writes a file of N lines, each TEXT and its number, so that a
// script can have a big file without holding it.
func cmdMkfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: mkfile FILE N TEXT")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s %d\n", args[2], i)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
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

// cmdCapture sets an environment variable to the first group of a regular
// expression's first match in the last command's stdout, so that a script
// can use what a command printed (a session id) in a later command.
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: capture VAR REGEXP")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if len(m) < 2 {
		ts.Fatalf("stdout has no match for %q with a group", args[1])
	}
	ts.Setenv(args[0], m[1])
}

// cmdTear cuts a file's last line in half, as a process killed while
// writing it would leave it.
func cmdTear(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: tear FILE")
	}
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	data = bytes.TrimSuffix(data, []byte("\n"))
	start := bytes.LastIndexByte(data, '\n') + 1
	ts.Check(os.WriteFile(path, data[:start+(len(data)-start)/2], 0o600))
}
