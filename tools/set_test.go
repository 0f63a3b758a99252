package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"harness/protocol"
)

type nameArgs struct {
	Name string `arg:"name"`
}

type countArgs struct {
	N int `arg:"n"`
}

func testSet(t *testing.T) *Set {
	t.Helper()
	s, err := NewSet(
		New("hello", "", false, func(_ context.Context, a nameArgs) (string, error) { return "hello " + a.Name, nil }),
		New("fail", "", false, func(context.Context, nameArgs) (string, error) {
			return "", errors.New("no such thing; try another")
		}),
		New("boom", "", false, func(context.Context, nameArgs) (string, error) { panic("kaboom") }),
		New("double", "", false, func(_ context.Context, a countArgs) (string, error) {
			return string(rune('0' + 2*a.N)), nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNewSet(t *testing.T) {
	noop := func(context.Context, nameArgs) (string, error) { return "", nil }
	tests := []struct {
		name    string
		tools   []Tool
		wantErr bool
	}{
		{"distinct", []Tool{New("a", "", false, noop), New("b", "", false, noop)}, false},
		{"none", nil, false},
		{"duplicate", []Tool{New("a", "", false, noop), New("a", "other", true, noop)}, true},
		{"empty name", []Tool{New("", "", false, noop)}, true},
		{"zero tool", []Tool{{}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewSet(tt.tools...)
			if (err != nil) != tt.wantErr {
				t.Errorf("NewSet: err = %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

func TestSetSpecsSorted(t *testing.T) {
	var names []string
	for _, s := range testSet(t).Specs() {
		names = append(names, s.Name)
	}
	want := []string{"boom", "double", "fail", "hello"}
	if len(names) != len(want) {
		t.Fatalf("Specs names = %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("Specs names = %v, want %v", names, want)
		}
	}
}

func TestSetRun(t *testing.T) {
	s := testSet(t)
	tests := []struct {
		name   string
		call   protocol.Call
		wantOK bool
		body   string // exact when set
	}{
		{"success", protocol.Call{Name: "hello", Args: map[string]any{"name": "Ada"}}, true, "hello Ada"},
		{"tool error", protocol.Call{Name: "fail", Args: map[string]any{"name": "x"}}, false, "no such thing; try another"},
		{"panic", protocol.Call{Name: "boom", Args: map[string]any{"name": "x"}}, false, ""},
		{"unknown tool", protocol.Call{Name: "nope", Args: map[string]any{}}, false, ""},
		{"malformed", protocol.Call{Name: "hello", Err: errors.New("bad JSON")}, false, ""},
		{"missing argument", protocol.Call{Name: "hello", Args: map[string]any{}}, false, ""},
		{"json number", protocol.Call{Name: "double", Args: map[string]any{"n": json.Number("3")}}, true, "6"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.call.ID = protocol.CallID(i + 1)
			res := s.Run(context.Background(), tt.call)
			if res.CallID != tt.call.ID || res.Tool != tt.call.Name {
				t.Errorf("result is for %s %s, want %s %s", res.CallID, res.Tool, tt.call.ID, tt.call.Name)
			}
			if res.OK != tt.wantOK {
				t.Errorf("OK = %v, want %v (body %q)", res.OK, tt.wantOK, res.Body)
			}
			if res.Body == "" || (tt.body != "" && res.Body != tt.body) {
				t.Errorf("Body = %q, want %q", res.Body, tt.body)
			}
			if tt.call.Err != nil && !strings.Contains(res.Body, tt.call.Err.Error()) {
				t.Errorf("Body = %q does not say why the call is malformed", res.Body)
			}
		})
	}
}

func TestSetRunLeavesArgs(t *testing.T) {
	args := map[string]any{"n": json.Number("2")}
	testSet(t).Run(context.Background(), protocol.Call{ID: "call_1", Name: "double", Args: args})
	if _, ok := args["n"].(json.Number); !ok {
		t.Errorf("Run changed the caller's arguments: %#v", args)
	}
}

func TestSetRunInterrupted(t *testing.T) {
	ran := false
	ctx, cancel := context.WithCancel(context.Background())
	s, err := NewSet(
		New("idle", "", false, func(context.Context, nameArgs) (string, error) {
			ran = true
			return "done", nil
		}),
		New("wait", "", false, func(ctx context.Context, _ nameArgs) (string, error) {
			cancel()
			<-ctx.Done()
			return "", ctx.Err()
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"name": "x"}

	res := s.Run(ctx, protocol.Call{ID: "call_1", Name: "wait", Args: args})
	if res.OK || res.Body != "interrupted: the call was stopped before it finished" || res.Wrote {
		t.Errorf("cancelled during the call: got %+v, want ERROR interrupted", res)
	}
	res = s.Run(ctx, protocol.Call{ID: "call_2", Name: "idle", Args: args})
	if res.OK || res.Body != "interrupted before the call started; nothing was run" || ran {
		t.Errorf("cancelled before the call: got %+v (ran %v), want ERROR interrupted without running", res, ran)
	}
}

func TestSetRunWrote(t *testing.T) {
	writer := func(name string, err error) Tool {
		return New(name, "", true, func(context.Context, nameArgs) (string, error) {
			if err != nil {
				return "", err
			}
			return "ok", nil
		})
	}
	s, err := NewSet(
		writer("writes", nil),
		writer("refuses", errors.New("refused; nothing was written")),
		writer("fails_midway", fail(ErrMayHaveChanged, "exit status 1")),
		New("reads", "", false, func(context.Context, nameArgs) (string, error) { return "x", nil }),
	)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"writes": true, "refuses": false, "fails_midway": true, "reads": false} {
		res := s.Run(context.Background(), protocol.Call{ID: "call_1", Name: name, Args: map[string]any{"name": "x"}})
		if res.Wrote != want {
			t.Errorf("%s: Wrote = %v, want %v (%+v)", name, res.Wrote, want, res)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	mid, _ := NewSet(New("cmd", "", true, func(ctx context.Context, _ nameArgs) (string, error) {
		cancel()
		return "", fmt.Errorf("%w: %w", ErrMayHaveChanged, ctx.Err())
	}))
	res := mid.Run(ctx, protocol.Call{ID: "call_2", Name: "cmd", Args: map[string]any{"name": "x"}})
	if !res.Wrote || res.Body != "interrupted: the call was stopped before it finished; it may have changed files already" {
		t.Errorf("interrupted command: %+v", res)
	}
}
