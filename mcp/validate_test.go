package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"harness/protocol"
)

func decode(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

func TestValidate(t *testing.T) {
	const defs = `{"type":"object","properties":{"p":{"$ref":"#/$defs/point"},"q":{"$ref":"#/definitions/name"},"r":{"$ref":"#"}},
		"$defs":{"point":{"type":"object","required":["x","y"],"properties":{"x":{"type":"integer"},"y":{"type":"integer"}}}},
		"definitions":{"name":{"type":"string","minLength":1}}}`
	for _, tt := range []struct {
		schema, args string
		want         string // "" when the arguments fit
	}{
		{`{"type":"object","properties":{"a":{"type":"number"}}}`, `{"a":1.5}`, ""},
		{`{"type":"object","properties":{"a":{"type":"number"}}}`, `{"a":"1"}`, `at a: type: "1" has type "string", want "number"`},
		{`{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"a":2}`, ""},
		{`{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"a":2.0}`, ""},
		{`{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"a":2.5}`, `at a: type: 2.5 has type "number", want "integer"`},
		{`{"type":"object","properties":{"a":{"type":["string","null"]}}}`, `{"a":null}`, ""},
		{`{"type":"object","properties":{"a":{"type":["string","null"]}}}`, `{"a":true}`, `at a: type: true has type "boolean", want one of "string", "null"`},
		{`{"type":"object","properties":{"words":{"type":["null","array"],"items":{"type":"string"}}}}`, `{"words":["a",2]}`, `at words/1: type: 2 has type "integer", want "string"`},
		{`{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `["a",1]`, ""},
		{`{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `[1,1]`, `at 0: type: 1 has type "integer", want "string"`},
		{`{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `["a",1,"b"]`, `at 2: type: "b" has type "string", want "integer"`},
		{`{"prefixItems":[{"type":"string"},{"type":"string"}]}`, `["a"]`, ""},
		{`{"prefixItems":[{}],"items":false}`, `[1,2]`, `at 1: false: no value is allowed here`},
		{`{"properties":{"mode":{"enum":["fast","slow"]}}}`, `{"mode":"slow"}`, ""},
		{`{"properties":{"mode":{"enum":["fast","slow"]}}}`, `{"mode":"quick"}`, `at mode: enum: "quick" is not one of "fast", "slow"`},
		{`{"properties":{"n":{"enum":[1,[2]]}}}`, `{"n":[2]}`, ""},
		{`{"properties":{"k":{"const":"only"}}}`, `{"k":"other"}`, `at k: const: "other" is not "only"`},
		{`{"required":["a","b","a"]}`, `{"b":1}`, `required: missing property "a"`},
		{`{"required":["a","b"]}`, `{}`, `required: missing properties "a", "b"`},
		{`{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"c":2,"b":3}`, `additionalProperties: unexpected properties "b", "c"`},
		{`{"properties":{"a":{}},"additionalProperties":{"type":"string"}}`, `{"a":1,"b":"x"}`, ""},
		{`{"patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`, `{"x-a":"s"}`, ""},
		{`{"patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`, `{"x-a":1}`, `at x-a: type: 1 has type "integer", want "string"`},
		{`{"patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`, `{"y":1}`, `additionalProperties: unexpected property "y"`},
		{`{"properties":{"x-a":{"minLength":2}},"patternProperties":{"^x-":{"type":"string"}}}`, `{"x-a":1}`, `at x-a: type: 1 has type "integer", want "string"`},
		{`{"patternProperties":{"^(?!x)":{"type":"string"}},"additionalProperties":false}`, `{"y":1}`, ""}, // Go cannot compile it: any name may match
		{`{"properties":{"a":{}},"additionalProperties":{"type":"string"}}`, `{"a":1,"b":2}`, `at b: type: 2 has type "integer", want "string"`},
		{`{"properties":{"l":{"minItems":2,"maxItems":3}}}`, `{"l":[1]}`, `at l: minItems: 1 items, fewer than 2`},
		{`{"properties":{"l":{"minItems":2,"maxItems":3}}}`, `{"l":[1,2,3,4]}`, `at l: maxItems: 4 items, more than 3`},
		{`{"properties":{"n":{"minimum":1,"maximum":10}}}`, `{"n":0}`, `at n: minimum: 0 is less than 1`},
		{`{"properties":{"n":{"minimum":1,"maximum":10}}}`, `{"n":10.5}`, `at n: maximum: 10.5 is greater than 10`},
		{`{"properties":{"n":{"exclusiveMinimum":0}}}`, `{"n":0}`, `at n: exclusiveMinimum: 0 is not greater than 0`},
		{`{"properties":{"n":{"exclusiveMaximum":5}}}`, `{"n":5}`, `at n: exclusiveMaximum: 5 is not less than 5`},
		{`{"properties":{"n":{"minimum":5,"exclusiveMinimum":true}}}`, `{"n":5}`, ""}, // draft 4: not checked
		{`{"properties":{"s":{"minLength":2,"maxLength":3}}}`, `{"s":"é"}`, `at s: minLength: "é" has 1 characters, fewer than 2`},
		{`{"properties":{"s":{"minLength":2,"maxLength":3}}}`, `{"s":"éééé"}`, `at s: maxLength: "éééé" has 4 characters, more than 3`},
		{`{"properties":{"s":{"pattern":"^[a-z]+$"}}}`, `{"s":"abc"}`, ""},
		{`{"properties":{"s":{"pattern":"^[a-z]+$"}}}`, `{"s":"ab1"}`, `at s: pattern: "ab1" does not match the regular expression "^[a-z]+$"`},
		{`{"properties":{"s":{"pattern":"^(?!x)"}}}`, `{"s":"xyz"}`, ""}, // Go cannot compile it: not checked
		{`{"properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer","minimum":0}]}}}`, `{"v":3}`, ""},
		{`{"properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer","minimum":0}]}}}`, `{"v":-1}`, `at v: anyOf: fits none of its 2 schemas: type: -1 has type "integer", want "string"; or minimum: -1 is less than 0`},
		{`{"properties":{"v":{"oneOf":[{"type":"number"},{"type":"integer"}]}}}`, `{"v":1.5}`, ""},
		{`{"properties":{"v":{"oneOf":[{"type":"number"},{"type":"integer"}]}}}`, `{"v":1}`, `at v: oneOf: fits 2 of its schemas (1, 2), want exactly one`},
		{`{"properties":{"v":{"oneOf":[{"type":"string"}]}}}`, `{"v":1}`, `at v: oneOf: fits none of its 1 schemas: type: 1 has type "integer", want "string"`},
		{`{"properties":{"v":{"allOf":[{"type":"number"},{"maximum":3}]}}}`, `{"v":4}`, `at v: maximum: 4 is greater than 3`},
		{`{"properties":{"o":{"properties":{"deep":{"type":"boolean"}}}}}`, `{"o":{"deep":"yes"}}`, `at o/deep: type: "yes" has type "string", want "boolean"`},
		{`{"properties":{"f":false}}`, `{"f":1}`, `at f: false: no value is allowed here`},
		{defs, `{"p":{"x":1,"y":2},"q":"n"}`, ""},
		{defs, `{"p":{"x":1}}`, `at p: required: missing property "y"`},
		{defs, `{"q":""}`, `at q: minLength: "" has 0 characters, fewer than 1`},
		{defs, `{"r":{"r":{"p":{"x":"1","y":2}}}}`, `at r/r/p/x: type: "1" has type "string", want "integer"`},
		{`{"properties":{"a":{"$ref":"https://example.com/elsewhere.json"}}}`, `{"a":1}`, ""}, // not local: not checked
		{`{"properties":{"a":{"$ref":"#/$defs/none"}}}`, `{"a":1}`, ""},
		{`{"$defs":{"loop":{"$ref":"#/$defs/loop"}},"$ref":"#/$defs/loop"}`, `{"a":1}`, ""},
		{`{"type":"object","format":"whatever","x-vendor":{"type":"string"},"uniqueItems":true}`, `{}`, ""}, // unknown keywords
		{`{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"a":{"type":"string"}}}`, `{"a":1}`, `at a: type: 1 has type "integer", want "string"`},
		{`true`, `{"a":1}`, ""},
		{`false`, `{}`, `false: no value is allowed here`},
	} {
		v := resolve(decode(t, tt.schema))
		err := v.validate(decode(t, tt.args))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s\nwith %s:\n got %q\nwant %q", tt.schema, tt.args, got, tt.want)
		}
	}
}

func TestResolveOnlySchemas(t *testing.T) {
	for _, s := range []any{nil, "string", 1.0, []any{}} {
		if v := resolve(s); v != nil || v.validate(map[string]any{"a": 1.0}) != nil {
			t.Errorf("resolve(%v) = %v, want nil, which checks nothing", s, v)
		}
	}
}

func TestShortValues(t *testing.T) {
	v := resolve(decode(t, `{"properties":{"s":{"maxLength":3}}}`))
	err := v.validate(map[string]any{"s": strings.Repeat("é", 100)})
	if err == nil || len(err.Error()) > 120 || !strings.Contains(err.Error(), "…\" has 100 characters") {
		t.Errorf("a long value in an error: %v", err)
	}
}

// FuzzValidate checks that no schema and no arguments make the check
// panic or loop, that it says the same twice, and that an empty schema
// takes anything.
func FuzzValidate(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"number","minimum":1}},"required":["a"]}`, `{"a":0}`)
	f.Add(`{"$defs":{"n":{"anyOf":[{"$ref":"#/$defs/n"},{"type":"string"}]}},"$ref":"#/$defs/n"}`, `"x"`)
	f.Add(`{"items":{"oneOf":[{"pattern":"^a"},{"maxLength":2}]},"minItems":1}`, `["ab","c",1]`)
	f.Add(`{"additionalProperties":{"enum":[1,"a",null]},"properties":{"x":false}}`, `{"x":1,"y":2}`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		var s, x any
		if json.Unmarshal([]byte(schema), &s) != nil || json.Unmarshal([]byte(args), &x) != nil {
			return
		}
		v := resolve(s)
		e1, e2 := v.validate(x), v.validate(x)
		if (e1 == nil) != (e2 == nil) || e1 != nil && e1.Error() != e2.Error() {
			t.Fatalf("two checks differ: %v, %v", e1, e2)
		}
		if e1 != nil && strings.TrimSpace(e1.Error()) == "" {
			t.Fatal("an empty error")
		}
		if err := resolve(map[string]any{}).validate(x); err != nil {
			t.Fatalf("the empty schema refused %s: %v", args, err)
		}
	})
}

// A schema whose choices refer back to it many times over is checked
// within a budget, and quickly.
func TestValidateBudget(t *testing.T) {
	v := resolve(decode(t, `{"anyOf":[{"$ref":"#"},{"$ref":"#"},{"$ref":"#"},{"type":"string"}]}`))
	if err := v.validate(1.0); err != nil {
		t.Errorf("past the budget the rest fits: %v", err)
	}
	if err := v.validate("x"); err != nil {
		t.Error(err)
	}
	v = resolve(decode(t, `{"oneOf":[{"$ref":"#"},{"$ref":"#"},{"type":"string"}]}`))
	if err := v.validate(1.0); err != nil {
		t.Errorf("a oneOf cut short by the budget fits: %v", err)
	}
}

// The error of an anyOf or oneOf gives a few of its schemas' reasons,
// however many and deep they are.
func TestValidateLongReasons(t *testing.T) {
	anyOf := func(s string) string { return `{"anyOf":[` + strings.Repeat(s+",", 99) + s + `]}` }
	err := resolve(decode(t, anyOf(anyOf(`{"type":"string"}`)))).validate(1.0)
	if err == nil {
		t.Fatal("1 fits")
	}
	if len(err.Error()) > 2000 || !strings.HasPrefix(err.Error(), "anyOf: fits none of its 100 schemas: anyOf: fits none of its 100 schemas: type: 1 has type") {
		t.Errorf("an error of %d bytes: %.300s", len(err.Error()), err)
	}
}

// The refusal Check gives is cut short however deep the arguments are.
func TestCheckCut(t *testing.T) {
	schema, args := `{"type":"string"}`, `1`
	for i := range 20 {
		name := fmt.Sprintf("%c%s", 'a'+i, strings.Repeat("x", 99))
		schema = fmt.Sprintf(`{"properties":{%q:%s}}`, name, schema)
		args = fmt.Sprintf(`{%q:%s}`, name, args)
	}
	ss := &Servers{clients: []*client{{
		resolved: map[string]*validator{"s.t": resolve(decode(t, schema))},
		status:   Status{Tools: []protocol.ToolSpec{{Name: "s.t"}}},
	}}}
	var a map[string]any
	json.Unmarshal([]byte(args), &a)
	err := ss.Check(t.Context(), protocol.Call{Name: "s.t", Args: a})
	if err == nil || len(err.Error()) > 1000 {
		t.Errorf("a refusal of %d bytes", len(err.Error()))
	}
}
