package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"harness/config"
	"harness/fakemodel"
	"harness/protocol"
	"harness/xdg"
)

// fakeServer serves an empty script as the model name, and returns its
// address (host:port).
func fakeServer(t *testing.T, name string) string {
	t.Helper()
	s, err := fakemodel.Parse("empty.fake", nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(fakemodel.NewServer(s, fakemodel.WithModelName(name)).Handler())
	t.Cleanup(hs.Close)
	return strings.TrimPrefix(hs.URL, "http://")
}

// settingsDir writes a settings file into a new folder and returns the
// folders of an environment in which it is the settings file, with env's
// variables and no home folder.
func settingsDir(t *testing.T, file string, env map[string]string) xdg.Dirs {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "harness"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "harness", "config.toml"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	env["XDG_CONFIG_HOME"] = dir
	return xdg.Dirs{Getenv: func(k string) string { return env[k] }, Home: func() (string, error) { return "", errors.New("no home in this test") }}
}

// TestProvidersListAndUse: /model lists what each provider offers, asking
// each server its own way, and switches to a model of any provider.
func TestProvidersListAndUse(t *testing.T) {
	ollamaAddr, lmsAddr := fakeServer(t, "fake"), fakeServer(t, "qwen3")
	dirs := settingsDir(t, `
[providers.lms]
type = "openai"
base_url = "http://`+lmsAddr+`/v1"

[providers.gone]
type = "ollama"
base_url = "http://127.0.0.1:1"
`, map[string]string{"OLLAMA_HOST": ollamaAddr, "OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "HARNESS_MODEL": "fake"})

	f := &providerFlags{NumCtx: 2048}
	p, err := f.choose([]string{"num-ctx"}, dirs, sampling{maxTokens: 7})
	if err != nil {
		t.Fatal(err)
	}
	offers := p.list(context.Background())
	want := []struct{ provider, models, err string }{
		{"gone", "", "cannot reach the Ollama server at http://127.0.0.1:1"},
		{"lms", "[qwen3:latest]", ""},
		{"ollama", "[fake]", ""},
		{"openai", "", "cannot reach the server at http://127.0.0.1:1/v1"},
	}
	if len(offers) != len(want) {
		t.Fatalf("listed %+v", offers)
	}
	for i, w := range want {
		o := offers[i]
		if o.Provider != w.provider || fmt.Sprint(o.Models) != w.models && w.models != "" || (o.Err == nil) != (w.err == "") ||
			o.Err != nil && !strings.HasPrefix(o.Err.Error(), w.err) {
			t.Errorf("offer %d: %+v, want %+v", i, o, w)
		}
	}

	// Another provider's model: its type, its address; the run's options.
	b, err := p.use("lms/qwen3")
	if err != nil {
		t.Fatal(err)
	}
	if d := b.Describe(); d.Name != "openai" || d.Model != "qwen3" || d.Options[string(protocol.NumPredict)] != 7 {
		t.Errorf("use lms/qwen3: %+v", d)
	}
	if p.cur.Provider.Value != "lms" {
		t.Errorf("in use: %s", p.cur.Provider.Value)
	}
	// A bare name stays on the provider in use.
	if b, err = p.use("other"); err != nil || b.Describe().Name != "openai" || p.cur.Provider.Value != "lms" {
		t.Errorf("use other: %v, %v, provider %s", b, err, p.cur.Provider.Value)
	}
	// Back to ollama, with --num-ctx.
	if b, err = p.use("ollama/fake"); err != nil || b.Describe().Options[string(protocol.NumCtx)] != 2048 {
		t.Errorf("use ollama/fake: %v, %v", b, err)
	}
	// A provider there is not: an error, and the model in use stays.
	if _, err := p.use("lsm/qwen3"); !errors.Is(err, config.ErrUnknownProvider) || p.cur.Provider.Value != "ollama" {
		t.Errorf("use lsm/qwen3: %v, provider %s", err, p.cur.Provider.Value)
	}
	if _, err := p.use(" "); err == nil {
		t.Error("use of no model: no error")
	}
	if _, err := p.use("lms/"); !errors.Is(err, config.ErrInvalid) {
		t.Errorf("use lms/: %v", err)
	}
	// pick only looks: the model in use stays.
	if b, s, err := p.pick("lms/qwen3"); err != nil || b.Describe().Model != "qwen3" || s.Provider.Value != "lms" || p.spec() != "ollama/fake" {
		t.Errorf("pick lms/qwen3: %v, %s, %v; in use %s", b, s.Provider.Value, err, p.spec())
	}
}

// TestUseKeepsTheAddressGiven: --base-url addresses the provider chosen at
// the start, for all its models, and no other provider.
func TestUseKeepsTheAddressGiven(t *testing.T) {
	addr := fakeServer(t, "fake")
	dirs := settingsDir(t, "", map[string]string{})
	f := &providerFlags{Backend: "openai", BaseURL: addr}
	p, err := f.choose([]string{"backend", "base-url"}, dirs, sampling{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.use("fake"); err != nil || p.cur.BaseURL.Value != addr {
		t.Errorf("use fake: %v, base URL %s", err, p.cur.BaseURL.Value)
	}
	if _, err := p.use("ollama/fake"); err != nil || p.cur.BaseURL.Value != "http://127.0.0.1:11434" {
		t.Errorf("use ollama/fake: %v, base URL %s", err, p.cur.BaseURL.Value)
	}
}

// TestSettingsExitCodes: a bad settings file or flag is bad usage (2); a
// server that cannot be reached is an error (1).
func TestSettingsExitCodes(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "harness"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HARNESS_MODEL", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
	write := func(doc string) {
		if err := os.WriteFile(filepath.Join(dir, "harness", "config.toml"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := t.TempDir()
	tests := []struct {
		name string
		file string
		args []string
		want int
	}{
		{"config", "", []string{"config"}, exitOK},
		{"bad file, config", "modle = 1\n", []string{"config"}, exitUsage},
		{"bad file, chat", "modle = 1\n", []string{"-w", ws, "-p", "hi"}, exitUsage},
		{"unknown provider", "", []string{"-w", ws, "-m", "lsm/x", "-p", "hi"}, exitUsage},
		{"backend of another type", "", []string{"-w", ws, "--backend", "ollama", "-m", "openai/x", "-p", "hi"}, exitUsage},
		{"unreachable openai", "", []string{"-w", ws, "--backend", "openai", "--base-url", "127.0.0.1:1", "-p", "hi"}, exitError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			write(tt.file)
			if got := execute(context.Background(), tt.args, nil, io.Discard, io.Discard); got != tt.want {
				t.Errorf("exit code %d, want %d", got, tt.want)
			}
		})
	}
}

// TestProvidersListOnlyTheChosen: with no settings file and no variable
// set, /model asks only the provider in use; never a built-in one the
// user did not choose, at its default address.
func TestProvidersListOnlyTheChosen(t *testing.T) {
	addr := fakeServer(t, "qwen3")
	dirs := settingsDir(t, "", map[string]string{"HARNESS_MODEL": "qwen3"})
	f := &providerFlags{Backend: "openai", BaseURL: "http://" + addr + "/v1"}
	p, err := f.choose([]string{"backend", "base-url"}, dirs, sampling{})
	if err != nil {
		t.Fatal(err)
	}
	offers := p.list(context.Background())
	if len(offers) != 1 || offers[0].Provider != "openai" || offers[0].Err != nil || fmt.Sprint(offers[0].Models) != "[qwen3:latest]" {
		t.Errorf("listed %+v, want only openai, the provider in use", offers)
	}
}
