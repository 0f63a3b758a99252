package mcp

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// validator checks arguments against a tool's input schema, as JSON
// decodes both (maps, slices, float64, string, bool, nil). It knows the
// keywords tool schemas use in practice, listed in the package
// documentation, and ignores the others: the server checks the arguments
// again, so a keyword it skips lets a call through to a server that says
// no, and never refuses a call that fits.
type validator struct {
	root any
	// patterns are the schema's patterns that Go compiles; one that it
	// cannot compile is not there, and is not checked.
	patterns map[string]*regexp.Regexp
}

// walk is one check of arguments.
type walk struct {
	*validator
	// budget is how many more schemas the check may apply: past it the
	// rest is taken as fitting, so that no schema, with its anyOf of
	// $ref, can make a check take long.
	budget int
}

// maxSteps is a check's budget.
const maxSteps = 20000

// maxRefs bounds how many $ref a check follows in a row, so that a
// schema whose references loop cannot loop the check.
const maxRefs = 64

// resolve makes the validator of an input schema; nil when the schema is
// neither an object nor a boolean, which checks nothing.
func resolve(schema any) *validator {
	switch schema.(type) {
	case map[string]any, bool:
	default:
		return nil
	}
	v := &validator{root: schema, patterns: map[string]*regexp.Regexp{}}
	v.compile(schema)
	return v
}

// compile compiles every pattern of s, the ones Go's regexp can read:
// of pattern, and the names of patternProperties.
func (v *validator) compile(s any) {
	switch s := s.(type) {
	case map[string]any:
		if names, ok := s["patternProperties"].(map[string]any); ok {
			for p := range names {
				v.compilePattern(p)
			}
		}
		for k, x := range s {
			if p, ok := x.(string); ok && k == "pattern" {
				v.compilePattern(p)
				continue
			}
			v.compile(x)
		}
	case []any:
		for _, x := range s {
			v.compile(x)
		}
	}
}

func (v *validator) compilePattern(p string) {
	if _, seen := v.patterns[p]; !seen {
		if re, err := regexp.Compile(p); err == nil {
			v.patterns[p] = re
		}
	}
}

// fault is a value that does not fit its schema: where it is, as the
// names of the properties that lead to it (an index for an array's item),
// and what is wrong there, starting with the keyword that says no.
type fault struct {
	where []string
	what  string
}

func (f *fault) Error() string {
	if len(f.where) == 0 {
		return f.what
	}
	return "at " + strings.Join(f.where, "/") + ": " + f.what
}

// validate checks x, arguments as JSON decodes them, against the whole
// schema; the error is a *fault.
func (v *validator) validate(x any) error {
	if v == nil {
		return nil
	}
	w := &walk{validator: v, budget: maxSteps}
	if f := w.check(v.root, x, nil, 0); f != nil {
		return f
	}
	return nil
}

// check checks x against the schema s, found at where; refs counts the
// $ref followed since the last step into x.
func (v *walk) check(s any, x any, where []string, refs int) *fault {
	no := func(format string, args ...any) *fault {
		return &fault{where: slices.Clone(where), what: fmt.Sprintf(format, args...)}
	}
	if v.budget--; v.budget < 0 {
		return nil
	}
	switch s := s.(type) {
	case bool:
		if !s {
			return no("false: no value is allowed here")
		}
		return nil
	case map[string]any:
	default:
		return nil
	}
	sm := s.(map[string]any)

	if ref, ok := sm["$ref"].(string); ok && refs < maxRefs {
		if target, ok := v.lookup(ref); ok {
			if f := v.check(target, x, where, refs+1); f != nil {
				return f
			}
		}
	}
	if f := v.checkType(sm, x, no); f != nil {
		return f
	}
	if enum, ok := sm["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return equal(e, x) }) {
		vals := make([]string, len(enum))
		for i, e := range enum {
			vals[i] = short(e)
		}
		return no("enum: %s is not one of %s", short(x), strings.Join(vals, ", "))
	}
	if c, ok := sm["const"]; ok && !equal(c, x) {
		return no("const: %s is not %s", short(x), short(c))
	}
	switch x := x.(type) {
	case float64:
		if f := checkNumber(sm, x, no); f != nil {
			return f
		}
	case string:
		if f := v.checkString(sm, x, no); f != nil {
			return f
		}
	case []any:
		if f := v.checkArray(sm, x, where, refs, no); f != nil {
			return f
		}
	case map[string]any:
		if f := v.checkObject(sm, x, where, refs, no); f != nil {
			return f
		}
	}
	return v.checkCombined(sm, x, where, refs, no)
}

// lookup finds the schema a local $ref names: "#", or a JSON pointer
// into the root such as "#/$defs/name" or "#/definitions/name".
func (v *walk) lookup(ref string) (any, bool) {
	if ref == "#" {
		return v.root, true
	}
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, false
	}
	at := v.root
	for _, tok := range strings.Split(rest, "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch a := at.(type) {
		case map[string]any:
			if at, ok = a[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(a) {
				return nil, false
			}
			at = a[i]
		default:
			return nil, false
		}
	}
	return at, true
}

// typeName is the JSON type of x, "integer" for a whole number.
func typeName(x any) string {
	switch x := x.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if isInteger(x) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", x)
}

func isInteger(f float64) bool { return f == math.Trunc(f) && !math.IsInf(f, 0) }

// isType reports whether x is of the JSON type t: an integer is a number
// too.
func isType(x any, t string) bool {
	got := typeName(x)
	return got == t || t == "number" && got == "integer"
}

func (v *walk) checkType(s map[string]any, x any, no func(string, ...any) *fault) *fault {
	switch t := s["type"].(type) {
	case string:
		if !isType(x, t) {
			return no("type: %s has type %q, want %q", short(x), typeName(x), t)
		}
	case []any:
		var names []string
		for _, e := range t {
			if name, ok := e.(string); ok {
				if isType(x, name) {
					return nil
				}
				names = append(names, strconv.Quote(name))
			}
		}
		if len(names) > 0 {
			return no("type: %s has type %q, want one of %s", short(x), typeName(x), strings.Join(names, ", "))
		}
	}
	return nil
}

func checkNumber(s map[string]any, x float64, no func(string, ...any) *fault) *fault {
	if m, ok := s["minimum"].(float64); ok && x < m {
		return no("minimum: %s is less than %s", num(x), num(m))
	}
	if m, ok := s["maximum"].(float64); ok && x > m {
		return no("maximum: %s is greater than %s", num(x), num(m))
	}
	// In draft 4 these are booleans, modifying minimum and maximum: they
	// are not checked then.
	if m, ok := s["exclusiveMinimum"].(float64); ok && x <= m {
		return no("exclusiveMinimum: %s is not greater than %s", num(x), num(m))
	}
	if m, ok := s["exclusiveMaximum"].(float64); ok && x >= m {
		return no("exclusiveMaximum: %s is not less than %s", num(x), num(m))
	}
	return nil
}

func (v *walk) checkString(s map[string]any, x string, no func(string, ...any) *fault) *fault {
	n := utf8.RuneCountInString(x)
	if m, ok := count(s["minLength"]); ok && n < m {
		return no("minLength: %s has %d characters, fewer than %d", short(x), n, m)
	}
	if m, ok := count(s["maxLength"]); ok && n > m {
		return no("maxLength: %s has %d characters, more than %d", short(x), n, m)
	}
	if p, ok := s["pattern"].(string); ok {
		if re := v.patterns[p]; re != nil && !re.MatchString(x) {
			return no("pattern: %s does not match the regular expression %q", short(x), p)
		}
	}
	return nil
}

func (v *walk) checkArray(s map[string]any, x []any, where []string, refs int, no func(string, ...any) *fault) *fault {
	if m, ok := count(s["minItems"]); ok && len(x) < m {
		return no("minItems: %d items, fewer than %d", len(x), m)
	}
	if m, ok := count(s["maxItems"]); ok && len(x) > m {
		return no("maxItems: %d items, more than %d", len(x), m)
	}
	// prefixItems are the schemas of the first items, one each; items is
	// the schema of the items after them (draft 4's list of items is not
	// checked).
	prefix, _ := s["prefixItems"].([]any)
	items, hasItems := s["items"]
	if _, isList := items.([]any); isList {
		hasItems = false
	}
	for i, e := range x {
		var sub any
		switch {
		case i < len(prefix):
			sub = prefix[i]
		case hasItems:
			sub = items
		default:
			continue
		}
		if f := v.check(sub, e, append(where, strconv.Itoa(i)), 0); f != nil {
			return f
		}
	}
	return nil
}

func (v *walk) checkObject(s map[string]any, x map[string]any, where []string, refs int, no func(string, ...any) *fault) *fault {
	if req, ok := s["required"].([]any); ok {
		var missing []string
		for _, r := range req {
			if name, ok := r.(string); ok {
				if _, has := x[name]; !has && !slices.Contains(missing, strconv.Quote(name)) {
					missing = append(missing, strconv.Quote(name))
				}
			}
		}
		switch len(missing) {
		case 0:
		case 1:
			return no("required: missing property %s", missing[0])
		default:
			return no("required: missing properties %s", strings.Join(missing, ", "))
		}
	}
	props, _ := s["properties"].(map[string]any)
	patterns, _ := s["patternProperties"].(map[string]any)
	extra, hasExtra := s["additionalProperties"]
	var unexpected []string
	for _, name := range slices.Sorted(maps.Keys(x)) {
		// A property is checked against its schema in properties and
		// those of the patternProperties its name matches;
		// additionalProperties is for the others.
		p, known := props[name]
		if known {
			if f := v.check(p, x[name], append(where, name), 0); f != nil {
				return f
			}
		}
		for _, pattern := range slices.Sorted(maps.Keys(patterns)) {
			re := v.patterns[pattern]
			if re == nil { // Go cannot compile it: it may match, unchecked
				known = true
				continue
			}
			if re.MatchString(name) {
				known = true
				if f := v.check(patterns[pattern], x[name], append(where, name), 0); f != nil {
					return f
				}
			}
		}
		if known || !hasExtra {
			continue
		}
		if b, ok := extra.(bool); ok {
			if !b {
				unexpected = append(unexpected, strconv.Quote(name))
			}
			continue
		}
		if f := v.check(extra, x[name], append(where, name), 0); f != nil {
			return f
		}
	}
	switch len(unexpected) {
	case 0:
	case 1:
		return no("additionalProperties: unexpected property %s", unexpected[0])
	default:
		return no("additionalProperties: unexpected properties %s", strings.Join(unexpected, ", "))
	}
	return nil
}

func (v *walk) checkCombined(s map[string]any, x any, where []string, refs int, no func(string, ...any) *fault) *fault {
	if all, ok := s["allOf"].([]any); ok {
		for _, sub := range all {
			if f := v.check(sub, x, where, refs); f != nil {
				return f
			}
		}
	}
	if any_, ok := s["anyOf"].([]any); ok && len(any_) > 0 {
		var whys []string
		for _, sub := range any_ {
			f := v.check(sub, x, where, refs)
			if f == nil {
				whys = nil
				break
			}
			whys = append(whys, f.inside(where))
		}
		if whys != nil {
			return no("anyOf: fits none of its %d schemas: %s", len(any_), reasons(whys))
		}
	}
	if one, ok := s["oneOf"].([]any); ok && len(one) > 0 {
		var fits []string
		var whys []string
		for i, sub := range one {
			if f := v.check(sub, x, where, refs); f != nil {
				whys = append(whys, f.inside(where))
			} else {
				fits = append(fits, strconv.Itoa(i+1))
			}
		}
		if v.budget < 0 {
			// A schema past the budget fits whatever the value, so
			// whether exactly one fits is not known: the value passes.
			return nil
		}
		switch len(fits) {
		case 1:
		case 0:
			return no("oneOf: fits none of its %d schemas: %s", len(one), reasons(whys))
		default:
			return no("oneOf: fits %d of its schemas (%s), want exactly one", len(fits), strings.Join(fits, ", "))
		}
	}
	return nil
}

// reasons are the first few of whys, each cut short, and how many more
// there are, so that no tree of anyOf makes a long error.
func reasons(whys []string) string {
	const most = 3
	var out []string
	for _, why := range whys[:min(len(whys), most)] {
		out = append(out, cutAt(why, 300))
	}
	s := strings.Join(out, "; or ")
	if n := len(whys) - most; n > 0 {
		s += fmt.Sprintf("; and %d more", n)
	}
	return s
}

// inside is f's text with the place of its fault taken as from where.
func (f *fault) inside(where []string) string {
	g := &fault{where: f.where[len(where):], what: f.what}
	return g.Error()
}

// count is a keyword's value as a count: a whole number not below 0.
func count(v any) (int, bool) {
	f, ok := v.(float64)
	if !ok || f < 0 || !isInteger(f) || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

// equal reports whether two JSON values are the same.
func equal(a, b any) bool { return reflect.DeepEqual(a, b) }

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// short is x as compact JSON, cut after about 60 bytes; a string keeps
// its quotes.
func short(x any) string {
	if str, ok := x.(string); ok && len(str) > 60 {
		return compact(cutAt(str, 60))
	}
	return cutAt(compact(x), 60)
}

// cutAt shortens s to n bytes, at a character's start, marking the cut.
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
