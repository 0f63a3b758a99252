package protocol

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	specs := []ToolSpec{
		{Name: "srv.add", Args: []Arg{
			{Name: "a", Type: Number, Required: true},
			{Name: "b", Type: Number},
			{Name: "tags", Type: Array},
			{Name: "opts", Type: Object},
			{Name: "any", Type: Any},
			{Name: "label", Type: String},
			{Name: "n", Type: Integer},
		}},
		{Name: "read_file", Args: []Arg{{Name: "path", Type: String, Required: true}}},
	}
	tests := []struct {
		name string
		args map[string]any
		want string // "" for valid; else a part of the error
	}{
		{"all", map[string]any{"a": json.Number("1.5"), "b": json.Number("2"), "tags": []any{"x"}, "opts": map[string]any{}, "any": nil, "label": "l", "n": json.Number("3")}, ""},
		{"required only", map[string]any{"a": json.Number("-1e3")}, ""},
		{"missing wide", map[string]any{"b": json.Number("2")}, `srv.add needs argument "a"`},
		{"wrong number", map[string]any{"a": "one"}, `argument "a" of srv.add must be a number, not a string`},
		{"wrong array", map[string]any{"a": json.Number("1"), "tags": "x"}, `argument "tags" of srv.add must be an array, not a string`},
		{"wrong object", map[string]any{"a": json.Number("1"), "opts": []any{}}, `argument "opts" of srv.add must be an object, not an array`},
		{"wrong narrow", map[string]any{"a": json.Number("1"), "label": true}, `argument "label" of srv.add must be a string, not a boolean`},
		{"unknown", map[string]any{"a": json.Number("1"), "c": "x"}, `srv.add does not take argument "c"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			call := &Call{Name: "srv.add", Args: tc.args, Line: 2}
			err := Validate(specs, call)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				if n, ok := call.Args["n"]; ok && n != int64(3) {
					t.Errorf("n = %#v, want int64 3 (converted as Check does)", n)
				}
				if _, ok := call.Args["a"]; !ok {
					t.Errorf("a was lost: %v", call.Args)
				}
				return
			}
			var ce *CallError
			if !errors.As(err, &ce) || !errors.Is(err, ErrMalformed) {
				t.Fatalf("Validate = %v, want a *CallError", err)
			}
			if !strings.Contains(ce.Reason, tc.want) {
				t.Errorf("reason %q, want %q in it", ce.Reason, tc.want)
			}
			if want := "Arguments of srv.add: a (number, required), b (number, optional), tags (array, optional)"; !strings.HasPrefix(ce.Hint, want) {
				t.Errorf("hint %q, want it to start %q", ce.Hint, want)
			}
			if ce.Line != 2 {
				t.Errorf("line %d, want 2", ce.Line)
			}
		})
	}
}

func TestValidateIsCheckForNarrowTools(t *testing.T) {
	specs := []ToolSpec{{Name: "read_file", Args: []Arg{{Name: "path", Type: String, Required: true}}}}
	for _, call := range []Call{
		{Name: "read_file", Args: map[string]any{"path": "a"}},
		{Name: "read_file", Args: map[string]any{}},
		{Name: "nope"},
	} {
		c1, c2 := call, call
		e1, e2 := Validate(specs, &c1), Check(specs, &c2)
		if (e1 == nil) != (e2 == nil) || e1 != nil && e1.Error() != e2.Error() {
			t.Errorf("%s: Validate = %v, Check = %v", call.Name, e1, e2)
		}
	}
}
