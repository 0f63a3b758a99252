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
		if code := execute(context.Background(), args, nil, &out, &errs); code != exitOK {
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
