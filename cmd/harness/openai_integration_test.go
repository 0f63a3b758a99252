//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"harness/fakemodel/tiny"
)

// The tests in this file run, like those of ollama_integration_test.go,
// against a real Ollama binary named by HARNESS_OLLAMA_BIN, and are
// skipped without it: the harness's openai backend against the server's
// OpenAI-compatible endpoint, and the real `ollama` command line against
// `harness fake-ollama`.

// completion is one /v1/chat/completions request that passed through a
// completionRecorder.
type completion struct {
	req    map[string]any
	status int
	finish string // the finish_reason the stream gave
}

// completionRecorder is a loopback proxy in front of a server that keeps
// every chat completions exchange.
type completionRecorder struct {
	srv *httptest.Server

	mu    sync.Mutex
	calls []completion
	auth  []string // the Authorization header of each request, of any path
}

func newCompletionRecorder(t *testing.T, target string) *completionRecorder {
	t.Helper()
	r := &completionRecorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		r.mu.Lock()
		r.auth = append(r.auth, req.Header.Get("Authorization"))
		r.mu.Unlock()
		resp, ok := forward(w, req, body, target)
		if !ok {
			return
		}
		defer resp.Body.Close()
		c := completion{status: resp.StatusCode}
		br := bufio.NewReader(resp.Body)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				w.Write(line)
				if f, ok := w.(http.Flusher); ok {
					f.Flush()
				}
				var chunk struct {
					Choices []struct {
						FinishReason *string `json:"finish_reason"`
					} `json:"choices"`
				}
				data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data: "))
				if ok && json.Unmarshal(data, &chunk) == nil {
					for _, ch := range chunk.Choices {
						if ch.FinishReason != nil {
							c.finish = *ch.FinishReason
						}
					}
				}
			}
			if err != nil {
				break
			}
		}
		if req.URL.Path != "/v1/chat/completions" {
			return
		}
		if err := json.Unmarshal(body, &c.req); err != nil {
			t.Errorf("recorder: chat completions request: %v", err)
		}
		r.mu.Lock()
		r.calls = append(r.calls, c)
		r.mu.Unlock()
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// baseURL is the recorder's address as the root of the OpenAI API.
func (r *completionRecorder) baseURL() string { return r.srv.URL + "/v1" }

func (r *completionRecorder) recorded() ([]completion, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]completion(nil), r.calls...), append([]string(nil), r.auth...)
}

// TestOllamaOpenAITurn is a whole turn through Ollama's OpenAI-compatible
// endpoint with the openai backend: the model calls list_files, the
// harness runs it, the model answers. The key is sent as a bearer token
// (Ollama ignores it) and shows nowhere.
func TestOllamaOpenAITurn(t *testing.T) {
	t.Parallel()
	srv := startOllama(t)
	srv.createTiny(t)
	rec := newCompletionRecorder(t, srv.addr)
	ws := workspace(t, "alpha.txt", "beta.txt")
	const key = "sk-test-S3CRET-not-needed"
	record := filepath.Join(t.TempDir(), "run.jsonl")

	// The key goes to the OPENAI_BASE_URL set beside it, never to a --base-url alone.
	r := runHarnessEnv(t, []string{"OPENAI_API_KEY=" + key, "OPENAI_BASE_URL=" + rec.baseURL()}, "-w", ws, "--backend", "openai", "-m", tinyName,
		"--record", record, "-p", "what is in this folder?")
	if r.code != exitOK {
		t.Fatalf("exit code %d, want %d", r.code, exitOK)
	}
	if r.stdout != tiny.Answer+"\n" {
		t.Errorf("stdout = %q, want the model's answer %q", r.stdout, tiny.Answer+"\n")
	}
	if !regexp.MustCompile(`(?m)^tool-success: list_files\b`).MatchString(r.stderr) {
		t.Errorf("stderr does not show list_files succeeding")
	}
	calls, auth := rec.recorded()
	if len(calls) != 2 {
		t.Fatalf("%d chat completions requests, want 2 (the call, then the answer)", len(calls))
	}
	for i, c := range calls {
		if c.status != http.StatusOK || c.finish != "stop" {
			t.Errorf("request %d: HTTP %d, finish_reason %q; want 200 and stop", i+1, c.status, c.finish)
		}
		if _, ok := c.req["tools"]; ok {
			t.Errorf("request %d offers native tools", i+1)
		}
	}
	msgs, _ := calls[1].req["messages"].([]any)
	if len(msgs) < 2 {
		t.Fatalf("the second request has %d messages", len(msgs))
	}
	last, _ := msgs[len(msgs)-1].(map[string]any)["content"].(string)
	if !strings.HasPrefix(last, "TOOL_RESULT call_1 list_files SUCCESS\n") || !strings.Contains(last, "alpha.txt") {
		t.Errorf("the second request does not end with the listing:\n%s", last)
	}
	for i, a := range auth {
		if a != "Bearer "+key {
			t.Errorf("request %d: Authorization %q, want the key as a bearer token", i+1, a)
		}
	}
	data, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "the record": string(data)} {
		if strings.Contains(text, "S3CRET") {
			t.Errorf("the key is in %s", what)
		}
	}
}

// TestOllamaOpenAILengthStop: a reply cut by max_tokens ends with
// finish_reason length, and its call is not run.
func TestOllamaOpenAILengthStop(t *testing.T) {
	t.Parallel()
	srv := startOllama(t)
	srv.createTiny(t)
	rec := newCompletionRecorder(t, srv.addr)

	r := runHarness(t, "-w", workspace(t, "a.txt"), "--backend", "openai", "--base-url", rec.baseURL(), "-m", tinyName,
		"--max-tokens", "5", "-p", "list the files")
	if strings.Contains(r.stderr, "tool-success:") {
		t.Error("a call from a cut-off reply was run")
	}
	if !strings.Contains(r.stderr, "Not run: your reply was cut off by the output limit") {
		t.Error("stderr does not say the cut-off call was not run")
	}
	calls, _ := rec.recorded()
	if len(calls) == 0 {
		t.Fatal("no chat completions request reached the server")
	}
	if got := calls[0].finish; got != "length" {
		t.Errorf("finish_reason of the first reply = %q, want length", got)
	}
	if got := calls[0].req["max_tokens"]; got != 5.0 {
		t.Errorf("max_tokens sent = %v, want 5", got)
	}
}

// TestOllamaRunAgainstFake: the real `ollama` command line talks to
// `harness fake-ollama` as to a server of its own: `ollama run` with a
// prompt (POST /api/generate), and with the prompt on its input, `ollama
// ls` (/api/tags) and `ollama ps` (/api/ps).
func TestOllamaRunAgainstFake(t *testing.T) {
	t.Parallel()
	bin := os.Getenv(ollamaBinEnv)
	if bin == "" {
		t.Skipf("skipping the tests against a real Ollama: set %s to an ollama binary (.ci/ollama.sh builds one)", ollamaBinEnv)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "run.fake")
	if err := os.WriteFile(script, []byte(">>> expect=\"say hi\"\nHello from the script.\n>>> expect=\"again\"\nA second reply.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	fake := exec.CommandContext(ctx, "harness", "fake-ollama", "--script", script)
	out, err := fake.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var fakeErr bytes.Buffer
	fake.Stderr = &fakeErr
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		fake.Process.Signal(os.Interrupt)
		fake.Wait()
	})
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("fake-ollama printed no address: %v\n%s", err, fakeErr.String())
	}
	addr = strings.TrimSpace(addr)

	ollama := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "OLLAMA_HOST=" + addr}
		cmd.Stdin = strings.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("ollama %s: %v\nstderr:\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return stdout.String()
	}
	if got := ollama("", "run", "fake", "say hi"); strings.TrimSpace(got) != "Hello from the script." {
		t.Errorf("ollama run fake 'say hi' printed %q", got)
	}
	if got := ollama("again\n", "run", "fake"); strings.TrimSpace(got) != "A second reply." {
		t.Errorf("ollama run fake, prompt on its input, printed %q", got)
	}
	for _, args := range [][]string{{"ls"}, {"ps"}} {
		if got := ollama("", args...); !regexp.MustCompile(`(?m)^fake:latest\s`).MatchString(got) {
			t.Errorf("ollama %s does not list fake:latest:\n%s", args[0], got)
		}
	}
}
