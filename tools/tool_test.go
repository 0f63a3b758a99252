package tools

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"harness/protocol"
)

type sampleArgs struct {
	Path   string `arg:"path" help:"A path"`
	Offset int    `arg:"offset,optional" help:"An offset"`
	Big    int64  `arg:"big,optional"`
	Force  bool   `arg:"force,optional" help:"Force it"`
}

func TestNewSpec(t *testing.T) {
	tool := New("sample", "Does things.", true, func(context.Context, sampleArgs) (string, error) { return "", nil })
	want := protocol.ToolSpec{
		Name:        "sample",
		Description: "Does things.",
		Writes:      true,
		Args: []protocol.Arg{
			{Name: "path", Type: protocol.String, Required: true, Description: "A path"},
			{Name: "offset", Type: protocol.Integer, Description: "An offset"},
			{Name: "big", Type: protocol.Integer},
			{Name: "force", Type: protocol.Boolean, Description: "Force it"},
		},
	}
	if got := tool.Spec(); !reflect.DeepEqual(got, want) {
		t.Errorf("Spec() =\n%+v\nwant\n%+v", got, want)
	}
	tool.Spec().Args[0].Name = "changed"
	if tool.Spec().Args[0].Name != "path" {
		t.Error("changing the result of Spec changed the tool")
	}
}

func TestNewDecode(t *testing.T) {
	var got sampleArgs
	tool := New("sample", "", false, func(_ context.Context, a sampleArgs) (string, error) {
		got = a
		return "ok", nil
	})
	tests := []struct {
		name    string
		args    map[string]any
		want    sampleArgs
		wantErr bool
	}{
		{"all", map[string]any{"path": "a", "offset": int64(3), "big": int64(1 << 40), "force": true}, sampleArgs{"a", 3, 1 << 40, true}, false},
		{"optional missing", map[string]any{"path": "b"}, sampleArgs{Path: "b"}, false},
		{"required missing", map[string]any{}, sampleArgs{}, true},
		{"wrong type", map[string]any{"path": int64(1)}, sampleArgs{}, true},
		{"number not converted", map[string]any{"path": "a", "offset": 2.5}, sampleArgs{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got = sampleArgs{}
			_, err := run(t, tool, tt.args)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("args = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestNewPanics(t *testing.T) {
	tests := []struct {
		name string
		make func()
		want string
	}{
		{"float field", func() {
			type args struct {
				X float64 `arg:"x"`
			}
			New("t", "", false, func(context.Context, args) (string, error) { return "", nil })
		}, "float64"},
		{"slice field", func() {
			type args struct {
				X []string `arg:"x"`
			}
			New("t", "", false, func(context.Context, args) (string, error) { return "", nil })
		}, "[]string"},
		{"untagged field", func() {
			type args struct{ X string }
			New("t", "", false, func(context.Context, args) (string, error) { return "", nil })
		}, "no arg tag"},
		{"unexported field", func() {
			type args struct {
				x string `arg:"x"`
			}
			New("t", "", false, func(_ context.Context, a args) (string, error) { return a.x, nil })
		}, "unexported"},
		{"bad option", func() {
			type args struct {
				X string `arg:"x,maybe"`
			}
			New("t", "", false, func(context.Context, args) (string, error) { return "", nil })
		}, "bad arg tag"},
		{"not a struct", func() {
			New("t", "", false, func(context.Context, string) (string, error) { return "", nil })
		}, "must be a struct"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				p := recover()
				if p == nil {
					t.Fatal("New did not panic")
				}
				if msg, _ := p.(string); !strings.Contains(msg, tt.want) {
					t.Errorf("panic %q does not mention %q", p, tt.want)
				}
			}()
			tt.make()
		})
	}
}
