//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/parser"

	"harness/fakemodel/tiny"
)

// The tests in this file run the real harness binary against a real Ollama
// server and the tiny model. They need an Ollama binary, named by
// HARNESS_OLLAMA_BIN (.ci/ollama.sh builds one from the version go.mod
// pins), and are skipped without it. Each test starts its own server on a
// free loopback port, with its own models and home folders, and stops it
// when done.

const ollamaBinEnv = "HARNESS_OLLAMA_BIN"

// Bounds on every wait, so that a stuck server fails a test instead of
// hanging it.
const (
	serverStartTimeout = 30 * time.Second
	serverStopTimeout  = 10 * time.Second
	requestTimeout     = 2 * time.Minute
)

const tinyName = "tiny"

// ollamaServer is an `ollama serve` process started for one test.
type ollamaServer struct {
	addr   string // host:port, on loopback
	client *api.Client
	cmd    *exec.Cmd
	exited chan struct{}
	once   sync.Once
}

// startOllama starts a server and returns once it answers. The server is
// stopped when the test ends, and its log shown if the test failed.
func startOllama(t *testing.T) *ollamaServer {
	t.Helper()
	bin := os.Getenv(ollamaBinEnv)
	if bin == "" {
		t.Skipf("skipping the tests against a real Ollama: set %s to an ollama binary (.ci/ollama.sh builds one)", ollamaBinEnv)
	}
	dir := t.TempDir()
	for _, sub := range []string{"home", "models", "tmp"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	addr := freeLoopbackAddr(t)
	logPath := filepath.Join(dir, "server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()

	cmd := exec.Command(bin, "serve")
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(dir, "home"),
		"TMPDIR=" + filepath.Join(dir, "tmp"),
		"OLLAMA_HOST=" + addr,
		"OLLAMA_MODELS=" + filepath.Join(dir, "models"),
		// One slot, so that consecutive requests share one prompt cache.
		"OLLAMA_NUM_PARALLEL=1",
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// The server starts runner processes of its own: give them a process
	// group to be stopped with.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	s := &ollamaServer{
		addr:   addr,
		client: api.NewClient(&url.URL{Scheme: "http", Host: addr}, http.DefaultClient),
		cmd:    cmd,
		exited: make(chan struct{}),
	}
	go func() {
		cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		s.stop(t)
		if t.Failed() {
			if log, err := os.ReadFile(logPath); err == nil {
				t.Logf("ollama server log:\n%s", tail(string(log), 60))
			}
		}
	})

	deadline := time.Now().Add(serverStartTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := s.client.Version(ctx)
		cancel()
		if err == nil {
			return s
		}
		select {
		case <-s.exited:
			t.Fatalf("ollama serve exited before answering: %v", cmd.ProcessState)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("ollama serve did not answer at %s within %v: %v", addr, serverStartTimeout, err)
		}
	}
}

// stop ends the server and its runners: politely first, then by force.
func (s *ollamaServer) stop(t *testing.T) {
	s.once.Do(func() {
		pgid := s.cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(serverStopTimeout):
			t.Logf("ollama serve ignored SIGTERM for %v; killing it", serverStopTimeout)
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-s.exited
		}
		// Runners left in the group, if any, go too.
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	})
}

func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// createTiny loads the tiny model into the server the way
// `ollama create tiny -f DIR/Modelfile` does: the Modelfile becomes a
// create request, and each file it names is uploaded as a blob first.
func (s *ollamaServer) createTiny(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	if err := tiny.Write(dir); err != nil {
		t.Fatal(err)
	}
	mf, err := os.Open(filepath.Join(dir, tiny.ModelfileName))
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	parsed, err := parser.ParseFile(mf)
	if err != nil {
		t.Fatal(err)
	}
	req, err := parsed.CreateRequest(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	files := map[string]string{}
	for path, digest := range req.Files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(data); "sha256:"+hex.EncodeToString(sum[:]) != digest {
			t.Fatalf("%s: digest %s does not match its bytes", path, digest)
		}
		if err := s.client.CreateBlob(ctx, digest, bytes.NewReader(data)); err != nil {
			t.Fatalf("uploading %s: %v", path, err)
		}
		files[filepath.Base(path)] = digest
	}
	req.Model, req.Files = tinyName, files
	if err := s.client.Create(ctx, req, func(api.ProgressResponse) error { return nil }); err != nil {
		t.Fatalf("creating the tiny model: %v", err)
	}
}

// exchange is one /api/chat request that passed through a chatRecorder.
type exchange struct {
	req    api.ChatRequest
	status int
	final  api.ChatResponse // the last line of a streamed reply: done reason, counts, durations
}

// chatRecorder is a loopback proxy in front of a server that keeps every
// chat exchange, so that a test can see what the harness sent and what the
// server reported about it.
type chatRecorder struct {
	srv *httptest.Server

	mu        sync.Mutex
	exchanges []exchange
}

func newChatRecorder(t *testing.T, target string) *chatRecorder {
	t.Helper()
	r := &chatRecorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		resp, ok := forward(w, req, body, target)
		if !ok {
			return
		}
		defer resp.Body.Close()
		// Pass the stream on line by line, as it comes, keeping the last.
		var last []byte
		br := bufio.NewReader(resp.Body)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				w.Write(line)
				if f, ok := w.(http.Flusher); ok {
					f.Flush()
				}
				if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
					last = trimmed
				}
			}
			if err != nil {
				break
			}
		}
		if req.URL.Path != "/api/chat" {
			return
		}
		ex := exchange{status: resp.StatusCode}
		if err := json.Unmarshal(body, &ex.req); err != nil {
			t.Errorf("recorder: chat request: %v", err)
		}
		if resp.StatusCode == http.StatusOK {
			if err := json.Unmarshal(last, &ex.final); err != nil {
				t.Errorf("recorder: last line of the reply: %v", err)
			}
		}
		r.mu.Lock()
		r.exchanges = append(r.exchanges, ex)
		r.mu.Unlock()
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// addr is the recorder's host:port, for --host.
func (r *chatRecorder) addr() string { return strings.TrimPrefix(r.srv.URL, "http://") }

func (r *chatRecorder) recorded() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]exchange(nil), r.exchanges...)
}

// harnessRun is what one run of the harness binary did.
type harnessRun struct {
	stdout, stderr string
	code           int
}

// runHarness runs the real harness binary (testscript.Main put it on PATH)
// with args, in its own home folder, bounded by requestTimeout.
func runHarness(t *testing.T, args ...string) harnessRun {
	t.Helper()
	return runHarnessEnv(t, nil, args...)
}

// runHarnessEnv is runHarness with env's variables (KEY=VALUE) set. No
// settings file, and no model or server from the environment, apply
// unless env gives them.
func runHarnessEnv(t *testing.T, env []string, args ...string) harnessRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "harness", args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME=", "NO_COLOR=1", "HARNESS_MODEL=", "OLLAMA_HOST=127.0.0.1:1",
		"OPENAI_BASE_URL=", "OPENAI_API_KEY=")
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("harness %s: no end within %v\nstderr:\n%s", strings.Join(args, " "), requestTimeout, stderr.String())
	case err != nil && !errors.As(err, &exit):
		t.Fatalf("harness %s: %v", strings.Join(args, " "), err)
	}
	r := harnessRun{stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("harness %s\nexit code %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, tail(r.stdout, 20), r.stderr)
		}
	})
	return r
}

// workspace returns a folder holding files with the given names.
func workspace(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestOllamaTurn is the whole of a turn on a real server: the model calls
// list_files, the harness runs it and sends the result, the model answers.
func TestOllamaTurn(t *testing.T) {
	t.Parallel()
	srv := startOllama(t)
	srv.createTiny(t)
	rec := newChatRecorder(t, srv.addr)
	ws := workspace(t, "alpha.txt", "beta.txt")

	r := runHarness(t, "-w", ws, "--host", rec.addr(), "-m", tinyName, "-p", "what is in this folder?")
	if r.code != exitOK {
		t.Fatalf("exit code %d, want %d", r.code, exitOK)
	}
	if r.stdout != tiny.Answer+"\n" {
		t.Errorf("stdout = %q, want the model's answer %q", r.stdout, tiny.Answer+"\n")
	}
	if !regexp.MustCompile(`(?m)^tool-success: list_files\b`).MatchString(r.stderr) {
		t.Errorf("stderr does not show list_files succeeding")
	}

	ex := rec.recorded()
	if len(ex) != 2 {
		t.Fatalf("%d chat requests, want 2 (the call, then the answer)", len(ex))
	}
	for i, e := range ex {
		if e.status != http.StatusOK || e.final.DoneReason != "stop" {
			t.Errorf("request %d: HTTP %d, done reason %q; want 200 and stop", i+1, e.status, e.final.DoneReason)
		}
		if len(e.req.Tools) > 0 {
			t.Errorf("request %d offers native tools", i+1)
		}
	}
	msgs := ex[1].req.Messages
	last := msgs[len(msgs)-1].Content
	if !strings.HasPrefix(last, "TOOL_RESULT call_1 list_files SUCCESS\n") ||
		!strings.Contains(last, "alpha.txt") || !strings.Contains(last, "beta.txt") {
		t.Errorf("the second request does not end with the listing:\n%s", last)
	}
	if got := msgs[len(msgs)-2].Content; !strings.Contains(got, tiny.Call) {
		t.Errorf("the second request does not carry the model's call: %q", got)
	}
}

// TestOllamaLengthStop: a reply cut by num_predict may hold half a call;
// the harness must not run it.
func TestOllamaLengthStop(t *testing.T) {
	t.Parallel()
	srv := startOllama(t)
	srv.createTiny(t)
	rec := newChatRecorder(t, srv.addr)

	r := runHarness(t, "-w", workspace(t, "a.txt"), "--host", rec.addr(), "-m", tinyName, "--max-tokens", "5", "-p", "list the files")
	if strings.Contains(r.stderr, "tool-success:") {
		t.Error("a call from a cut-off reply was run")
	}
	if !strings.Contains(r.stderr, "Not run: your reply was cut off by the output limit") {
		t.Error("stderr does not say the cut-off call was not run")
	}
	ex := rec.recorded()
	if len(ex) == 0 {
		t.Fatal("no chat request reached the server")
	}
	if got := ex[0].final.DoneReason; got != "length" {
		t.Errorf("done reason of the first reply = %q, want length", got)
	}
	if got := ex[0].final.EvalCount; got != 5 {
		t.Errorf("the first reply has %d tokens, want 5", got)
	}
}

// TestOllamaErrors: a model the server lacks, and a server that is gone,
// each end the run with an error that says what to do.
func TestOllamaErrors(t *testing.T) {
	t.Parallel()
	srv := startOllama(t)
	srv.createTiny(t)
	ws := workspace(t, "a.txt")
	host := regexp.QuoteMeta("http://" + srv.addr)

	r := runHarness(t, "-w", ws, "--host", srv.addr, "-m", "nosuch", "-p", "hi")
	want := regexp.MustCompile(`(?m)^harness: model not found: "nosuch" is not on the Ollama server at ` + host + `; get it with: ollama pull nosuch, or start again with --model NAME with one it has: \S*tiny`)
	if r.code != exitError || !want.MatchString(r.stderr) {
		t.Errorf("unknown model: exit code %d, stderr %q; want %d and a match for %s", r.code, r.stderr, exitError, want)
	}

	srv.stop(t)
	r = runHarness(t, "-w", ws, "--host", srv.addr, "-m", tinyName, "-p", "hi")
	want = regexp.MustCompile(`(?m)^harness: cannot reach the Ollama server at ` + host + ": start it with `ollama serve`")
	if r.code != exitError || !want.MatchString(r.stderr) {
		t.Errorf("server down: exit code %d, stderr %q; want %d and a match for %s", r.code, r.stderr, exitError, want)
	}
}

// TestOllamaContextOverflow: without compaction, a conversation that
// outgrows --num-ctx is an error the user sees, never a prompt the server
// quietly cuts (ollama_window_test.go has the same with compaction).
func TestOllamaContextOverflow(t *testing.T) {
	t.Parallel()
	srv := startOllama(t)
	srv.createTiny(t)
	rec := newChatRecorder(t, srv.addr)

	// Long file names make the listing long.
	var names []string
	for i := range 40 {
		names = append(names, fmt.Sprintf("a-file-with-a-rather-long-name-%02d.txt", i))
	}
	ws := workspace(t, names...)

	// The tiny model spends one token per byte of prompt (fewer for the
	// control tokens). Leave room for the first step, the system prompt and
	// the question, and its reply, but not for the listing of the second.
	prompt := runHarness(t, "prompt", "-w", ws)
	if prompt.code != exitOK {
		t.Fatalf("harness prompt: exit code %d", prompt.code)
	}
	numCtx := len(prompt.stdout) + 300
	listing := 0
	for _, n := range names {
		listing += len(n) + 1
	}
	if listing < 600 {
		t.Fatalf("the listing (%d bytes) is too short to overflow the context", listing)
	}

	r := runHarness(t, "-w", ws, "--host", rec.addr(), "-m", tinyName, "--num-ctx", fmt.Sprint(numCtx), "--no-compact", "-p", "list the files")
	if r.code != exitError {
		t.Errorf("exit code %d, want %d", r.code, exitError)
	}
	if !regexp.MustCompile(`(?m)^tool-success: list_files\b`).MatchString(r.stderr) {
		t.Error("the first step did not run list_files: the context was too small even for it")
	}
	if !regexp.MustCompile(`(?m)^harness: .*exceeds the context length`).MatchString(r.stderr) {
		t.Error("stderr does not report the context overflow")
	}
	if r.stdout != "" {
		t.Errorf("an answer was printed: %q", r.stdout)
	}
	ex := rec.recorded()
	if len(ex) != 2 {
		t.Fatalf("%d chat requests, want 2", len(ex))
	}
	if ex[0].status != http.StatusOK || ex[1].status != http.StatusBadRequest {
		t.Errorf("HTTP statuses %d and %d, want 200 then 400", ex[0].status, ex[1].status)
	}
	if tr := ex[1].req.Truncate; tr == nil || *tr {
		t.Errorf("the second request does not forbid truncation (truncate = %v)", tr)
	}
}

// TestOllamaPromptCache: the second step of a turn extends the first, so
// the server evaluates only what is new. prompt_eval_count is always the
// whole prompt; the saving shows in prompt_eval_duration, compared with the
// same request after its system prompt was changed at its start.
//
// Not parallel: it compares timings, so it runs alone among this package's
// tests.
func TestOllamaPromptCache(t *testing.T) {
	srv := startOllama(t)
	srv.createTiny(t)
	rec := newChatRecorder(t, srv.addr)

	r := runHarness(t, "-w", workspace(t, "a.txt"), "--host", rec.addr(), "-m", tinyName, "-p", "list the files")
	if r.code != exitOK {
		t.Fatalf("exit code %d, want %d", r.code, exitOK)
	}
	ex := rec.recorded()
	if len(ex) != 2 {
		t.Fatalf("%d chat requests, want 2", len(ex))
	}
	first, second := ex[0].final, ex[1].final

	// The second request again, with the system prompt's first character
	// changed: nothing of it is in the cache beyond the template's "system: ".
	req := ex[1].req
	req.Messages = append([]api.Message(nil), req.Messages...)
	sys := req.Messages[0]
	if sys.Role != "system" || sys.Content == "" {
		t.Fatalf("the first message is not a system prompt: %+v", sys)
	}
	sys.Content = flipCase(sys.Content[:1]) + sys.Content[1:]
	req.Messages[0] = sys
	no := false
	req.Stream = &no
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	var cold api.ChatResponse
	if err := srv.client.Chat(ctx, &req, func(r api.ChatResponse) error { cold = r; return nil }); err != nil {
		t.Fatal(err)
	}

	t.Logf("step 1:                        %5d prompt tokens, evaluated in %v", first.PromptEvalCount, first.PromptEvalDuration)
	t.Logf("step 2:                        %5d prompt tokens, evaluated in %v", second.PromptEvalCount, second.PromptEvalDuration)
	t.Logf("step 2, system prompt changed: %5d prompt tokens, evaluated in %v", cold.PromptEvalCount, cold.PromptEvalDuration)
	ratio := float64(second.PromptEvalDuration) / float64(cold.PromptEvalDuration)
	t.Logf("prompt cache ratio (step 2 / step 2 with the system prompt changed): %.3f", ratio)

	if cold.PromptEvalCount != second.PromptEvalCount {
		t.Errorf("the changed request has %d prompt tokens, the original %d: not comparable", cold.PromptEvalCount, second.PromptEvalCount)
	}
	if ratio >= 0.5 {
		t.Errorf("ratio %.3f: the second step's prompt was not served from the cache", ratio)
	}
	if second.PromptEvalDuration >= first.PromptEvalDuration/2 {
		t.Errorf("step 2 took %v to evaluate its prompt, step 1 %v: no saving", second.PromptEvalDuration, first.PromptEvalDuration)
	}
}

func flipCase(s string) string {
	if u := strings.ToUpper(s); u != s {
		return u
	}
	if l := strings.ToLower(s); l != s {
		return l
	}
	return "#"
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// forward sends req, with body, on to the server at target, and starts the
// answer to w with that server's status and headers; the caller passes the
// body on and closes it. When the server cannot be reached it answers 502
// itself and returns false.
func forward(w http.ResponseWriter, req *http.Request, body []byte, target string) (*http.Response, bool) {
	out, err := http.NewRequestWithContext(req.Context(), req.Method, "http://"+target+req.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return nil, false
	}
	out.Header = req.Header.Clone()
	resp, err := http.DefaultClient.Do(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return nil, false
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	return resp, true
}
