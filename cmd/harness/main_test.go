package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

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
	testscript.Main(m, map[string]func(){
		"harness": func() { os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// ollamaScript is the file that, when a test script ships it, is served as
// a fake Ollama for that script alone; OLLAMA_HOST then points at it and
// every request it receives is logged to requestLog.
const (
	ollamaScript = "ollama.fake"
	requestLog   = "requests.jsonl"
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
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fakemodel.NewServer(script, fakemodel.WithLog(log)).Serve(ctx, ln) }()
	e.Setenv("OLLAMA_HOST", ln.Addr().String())
	e.Defer(func() {
		cancel()
		<-done
		log.Close()
	})
	return nil
}

// cmdPrefixes checks a request log: each request's messages must begin with
// the previous request's messages, byte for byte.
func cmdPrefixes(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: prefixes LOGFILE")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	reqs, err := fakemodel.ReadLog(f)
	ts.Check(err)
	if len(reqs) < 2 && !neg {
		ts.Fatalf("only %d request(s) logged: nothing to compare", len(reqs))
	}
	err = fakemodel.CheckPrefixes(reqs)
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
