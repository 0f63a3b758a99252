package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"harness/fakemodel"
	"harness/protocol"
	"harness/record"
	"harness/session"
)

// TestResumeKeepsTheSavedSystemPrompt: when the system prompt the harness
// builds differs from the one a session was saved with, resuming says so
// and goes on with the saved one, so the next request still begins with
// the bytes sent before.
func TestResumeKeepsTheSavedSystemPrompt(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	ws := t.TempDir()
	script, err := fakemodel.Parse("test.fake", []byte(">>> expect=hi\nhello\n>>> expect=again\nhello again\n"))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	fake := fakemodel.NewServer(script, fakemodel.WithLog(&log))
	srv := httptest.NewServer(fake.Handler())
	defer srv.Close()
	chat := func(args ...string) string {
		t.Helper()
		var out, errs strings.Builder
		args = append([]string{"-w", ws, "--host", srv.Listener.Addr().String(), "-m", "fake"}, args...)
		if code := run(context.Background(), args, nil, &out, &errs); code != exitOK {
			t.Fatalf("harness %s: exit %d\n%s", strings.Join(args, " "), code, errs.String())
		}
		return errs.String()
	}
	chat("-p", "hi")
	files, _ := filepath.Glob(filepath.Join(state, "harness", "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	// The prompt the session holds is not the one this harness builds.
	edited := strings.Replace(string(data), "Workspace root: ", "Workspace root (as it was): ", 1)
	if err := os.WriteFile(files[0], []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	stderr := chat("-c", "-p", "again")
	if !strings.Contains(stderr, "note: the system prompt has changed since session ") {
		t.Errorf("no note of the changed prompt:\n%s", stderr)
	}
	reqs, err := fakemodel.ReadLog(&log)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || len(reqs[1].Messages) != 4 || !strings.Contains(reqs[1].Messages[0].Content, "Workspace root (as it was): ") ||
		reqs[1].Messages[1].Content != "hi" || reqs[1].Messages[3].Content != "again" {
		t.Fatalf("the resumed request is not the saved conversation, saved prompt first: %+v", reqs)
	}
}

// TestSavedModel: which model a resumed conversation goes on with. A
// model named as PROVIDER/MODEL is found on that provider; a name alone
// only on an Ollama provider, for a session started on Ollama; -m, --fake
// or the model in use keep the run's.
func TestSavedModel(t *testing.T) {
	getenv := settingsDir(t, "[providers.lms]\ntype = \"openai\"\nbase_url = \"http://127.0.0.1:1/v1\"\n",
		map[string]string{"OLLAMA_HOST": "127.0.0.1:1", "HARNESS_MODEL": "fake"})
	run := func(model string, pinned bool) *runner {
		p, err := (&providerFlags{Model: model}).choose([]string{"model"}, getenv, sampling{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := p.backend(p.cur)
		if err != nil {
			t.Fatal(err)
		}
		return &runner{providers: p, backend: b.Describe(), pinned: pinned}
	}
	saved := func(backend, model string) *session.Saved {
		return &session.Saved{Start: record.Start{Backend: backend}, Model: model}
	}
	tests := []struct {
		name string
		r    *runner
		sv   *session.Saved
		want string
	}{
		{"another provider's", run("ollama/fake", false), saved("ollama", "lms/qwen3"), "lms/qwen3"},
		{"another of this provider's", run("ollama/fake", false), saved("ollama", "ollama/qwen3"), "ollama/qwen3"},
		{"a name alone, on ollama", run("ollama/fake", false), saved("ollama", "qwen3"), "qwen3"},
		{"a name alone, of another backend", run("ollama/fake", false), saved("openai", "qwen3"), ""},
		{"a name alone, on openai", run("lms/fake", false), saved("openai", "qwen3"), ""},
		{"the model in use, by its spec", run("lms/qwen3", false), saved("ollama", "lms/qwen3"), ""},
		{"the model in use, by its name", run("ollama/fake", false), saved("ollama", "fake"), ""},
		{"-m given", run("ollama/fake", true), saved("ollama", "lms/qwen3"), ""},
		{"no model saved", run("ollama/fake", false), saved("ollama", ""), ""},
		{"--fake", &runner{backend: protocol.Backend{Name: "fake", Model: "m.fake"}}, saved("fake", "other.fake"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.savedModel(tt.sv); got != tt.want {
				t.Errorf("savedModel = %q, want %q", got, tt.want)
			}
		})
	}
}
