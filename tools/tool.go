package tools

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"harness/protocol"
)

// Tool is one tool a model may call: what the model is told about it, and
// the function that runs it.
type Tool struct {
	spec protocol.ToolSpec
	run  runner
	// list is set on list_files, so that a Lie can change its entries
	// before they are formatted.
	list lister
	// reads, when set, reports the calls of a writing tool that only read
	// (see readsWhen).
	reads func(ctx context.Context, args map[string]any) bool
	// ws is set on write_file, so that a Lie can tell which files exist.
	ws *Workspace
	// inspect, when set, says what a call would do (Set.Inspect).
	inspect inspector
}

// runner runs a tool on the arguments of a call.
type runner func(ctx context.Context, args map[string]any) (string, error)

// Spec returns what the model is told about t.
func (t Tool) Spec() protocol.ToolSpec {
	s := t.spec
	s.Args = slices.Clone(s.Args)
	return s
}

// New returns the tool name whose arguments are the tagged fields of A (see
// the package comment) and which runs run. It panics when A is not a struct
// or has a field it cannot describe, since that is a mistake in the program.
//
// run returns the body of a SUCCESS result, or an error whose text is the
// body of an ERROR result.
func New[A any](name, description string, writes bool, run func(ctx context.Context, args A) (string, error)) Tool {
	args, decode := bind[A]()
	return Tool{
		spec: protocol.ToolSpec{Name: name, Description: description, Args: args, Writes: writes},
		run: func(ctx context.Context, raw map[string]any) (string, error) {
			a, err := decode(raw)
			if err != nil {
				return "", fmt.Errorf("%s: %w", name, err)
			}
			return run(ctx, a)
		},
	}
}

// bind describes the arguments held by A and returns a function that fills
// an A from the arguments of a call.
func bind[A any]() ([]protocol.Arg, func(map[string]any) (A, error)) {
	fields := argFields(reflect.TypeFor[A]())
	args := make([]protocol.Arg, len(fields))
	for i, f := range fields {
		args[i] = f.arg
	}
	decode := func(raw map[string]any) (A, error) {
		var a A
		v := reflect.ValueOf(&a).Elem()
		for _, f := range fields {
			if err := f.set(v.Field(f.index), raw); err != nil {
				return a, err
			}
		}
		return a, nil
	}
	return args, decode
}

// field is one argument of a tool and the struct field that receives it.
type field struct {
	index int
	arg   protocol.Arg
}

func argFields(typ reflect.Type) []field {
	if typ.Kind() != reflect.Struct {
		panic(fmt.Sprintf("tools: arguments must be a struct, not %s", typ))
	}
	var fields []field
	for i := range typ.NumField() {
		sf := typ.Field(i)
		tag, ok := sf.Tag.Lookup("arg")
		if !ok {
			panic(fmt.Sprintf("tools: field %s of %s has no arg tag", sf.Name, typ))
		}
		if !sf.IsExported() {
			panic(fmt.Sprintf("tools: field %s of %s is unexported", sf.Name, typ))
		}
		name, opt, _ := strings.Cut(tag, ",")
		if name == "" || (opt != "" && opt != "optional") {
			panic(fmt.Sprintf("tools: field %s of %s has a bad arg tag %q", sf.Name, typ, tag))
		}
		var t protocol.Type
		switch sf.Type.Kind() {
		case reflect.String:
			t = protocol.String
		case reflect.Int, reflect.Int64:
			t = protocol.Integer
		case reflect.Bool:
			t = protocol.Boolean
		default:
			panic(fmt.Sprintf("tools: field %s of %s has type %s; use string, int, int64 or bool", sf.Name, typ, sf.Type))
		}
		fields = append(fields, field{index: i, arg: protocol.Arg{
			Name:        name,
			Type:        t,
			Required:    opt == "",
			Description: sf.Tag.Get("help"),
		}})
	}
	return fields
}

// set stores the argument of f found in args into v. The arguments have
// been through protocol.Check, so a wrong type is not expected; it is still
// reported rather than trusted.
func (f field) set(v reflect.Value, args map[string]any) error {
	raw, ok := args[f.arg.Name]
	if !ok {
		if f.arg.Required {
			return fmt.Errorf("argument %q is required", f.arg.Name)
		}
		return nil
	}
	switch x := raw.(type) {
	case string:
		if f.arg.Type == protocol.String {
			v.SetString(x)
			return nil
		}
	case bool:
		if f.arg.Type == protocol.Boolean {
			v.SetBool(x)
			return nil
		}
	case int64:
		if f.arg.Type == protocol.Integer {
			if v.OverflowInt(x) {
				return fmt.Errorf("argument %q is too large", f.arg.Name)
			}
			v.SetInt(x)
			return nil
		}
	}
	return fmt.Errorf("argument %q must be of type %s, not %T", f.arg.Name, f.arg.Type, raw)
}

// failure is an error whose text is written for the model but which still
// unwraps to its cause, so callers can test it with errors.Is.
type failure struct {
	msg   string
	cause error
}

func (e *failure) Error() string { return e.msg }
func (e *failure) Unwrap() error { return e.cause }

// fail returns an error reading like fmt.Sprintf(format, args...) that
// wraps cause.
func fail(cause error, format string, args ...any) error {
	return &failure{msg: fmt.Sprintf(format, args...), cause: cause}
}
