package chat

import (
	"context"
	"errors"
	"strings"
	"testing"

	"harness/protocol"
	"harness/record"
	"harness/session"
)

// described is a model that only says what it is.
type described protocol.Backend

func (d described) Describe() protocol.Backend { return protocol.Backend(d) }

func (d described) Chat(context.Context, protocol.Request, func(protocol.Delta)) (protocol.Reply, error) {
	return protocol.Reply{}, errors.New("not a model to talk to")
}

// providers is where a chat finds models, by the spec of the one in use.
type providers string

func (p providers) Spec() string     { return string(p) }
func (p providers) Provider() string { return strings.Split(string(p), "/")[0] }
func (p providers) Address() string  { return "" }
func (p providers) Pick(string) (Backend, func(), error) {
	return nil, nil, errors.New("not asked here")
}
func (p providers) Offers(context.Context) []Offer { return nil }

// TestSavedModel: which model a resumed conversation goes on with. A
// model named as PROVIDER/MODEL is found on that provider; a name alone
// only on a provider of the backend whose sessions named models alone,
// for a session started on it; -m, --fake or the model in use keep the
// run's.
func TestSavedModel(t *testing.T) {
	run := func(spec string, pinned bool) *Chat {
		name := "ollama"
		if strings.HasPrefix(spec, "lms/") {
			name = "openai"
		}
		_, model, _ := strings.Cut(spec, "/")
		return &Chat{Model: described{Name: name, Model: model}, Models: providers(spec), Pinned: pinned, BareNames: "ollama"}
	}
	saved := func(backend, model string) *session.Saved {
		return &session.Saved{Start: record.Start{Backend: backend}, Model: model}
	}
	tests := []struct {
		name string
		c    *Chat
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
		{"--fake", &Chat{Model: described{Name: "fake", Model: "m.fake"}}, saved("fake", "other.fake"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.savedModel(tt.sv); got != tt.want {
				t.Errorf("savedModel = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCallList: a note names each call by its tool and what it acts on,
// a long command line cut to its start.
func TestCallList(t *testing.T) {
	calls := []protocol.Call{
		{Name: "bash", Args: map[string]any{"command": "sleep 45"}},
		{Name: "write_file", Args: map[string]any{"path": "a.txt", "content": "x"}},
		{Name: "list_files", Args: map[string]any{}},
		{Name: "bash", Args: map[string]any{"command": "cat <<EOF\n" + strings.Repeat("y", 500) + "\nEOF"}},
		{Name: "bash", Args: map[string]any{"command": strings.Repeat("z", 500)}},
	}
	want := "bash ($ sleep 45), write_file (a.txt), list_files, bash ($ cat <<EOF), bash ($ " + strings.Repeat("z", maxTargetLine-2) + "…)"
	if got := callList(calls); got != want {
		t.Errorf("callList:\n%s\nwant\n%s", got, want)
	}
}
