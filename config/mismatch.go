package config

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// mismatch says in plain words that the value at key, of the kind found,
// is not what the key takes: "must be a whole number, not text". It
// returns false when the key is not a setting of the file or the kinds do
// not differ, so that the library's own words are kept.
func mismatch(key []string, found unstable.Kind) (string, bool) {
	t, ok := settingType(reflect.TypeFor[raw](), key)
	if !ok {
		return "", false
	}
	want, has := typeWords(t, key), kindWords(found)
	if want == "" || has == "" {
		return "", false
	}
	if found == unstable.InlineTable {
		found = unstable.Table
	}
	if found != kindOf(t) {
		return fmt.Sprintf("must be %s, not %s", want, has), true
	}
	switch t.Kind() {
	case reflect.Slice:
		return fmt.Sprintf("must be %s, and an item of this one is not", want), true
	case reflect.Map:
		return fmt.Sprintf("must be %s, and a value of this one is not", want), true
	}
	return "", false // the right kind, wrong otherwise: the library says how
}

// kindOf is the kind of TOML value a setting of Go type t takes.
func kindOf(t reflect.Type) unstable.Kind {
	switch t.Kind() {
	case reflect.String:
		return unstable.String
	case reflect.Int, reflect.Int64:
		return unstable.Integer
	case reflect.Bool:
		return unstable.Bool
	case reflect.Slice:
		return unstable.Array
	case reflect.Map, reflect.Struct:
		return unstable.Table
	}
	return unstable.Invalid
}

// settingType is the Go type that receives the value of key, found by
// the toml tags of t's fields; a map takes any name as its key.
func settingType(t reflect.Type, key []string) (reflect.Type, bool) {
	for _, k := range key {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Map:
			t = t.Elem()
		case reflect.Struct:
			f, ok := fieldByTag(t, k)
			if !ok {
				return nil, false
			}
			t = f.Type
		default:
			return nil, false
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t, true
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if tag, _, _ := strings.Cut(f.Tag.Get("toml"), ","); tag == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// typeWords says what a setting of Go type t, at key, takes, as a user
// writes it; "" for a type no setting has.
func typeWords(t reflect.Type, key []string) string {
	switch t.Kind() {
	case reflect.String:
		return "a string in quotes"
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return `a list of strings, as ["a", "b"]`
		}
	case reflect.Map:
		switch t.Elem().Kind() {
		case reflect.String:
			return `a table of strings, as {NAME = "value"}`
		case reflect.Struct:
			return fmt.Sprintf("a table for each name, as [%s.NAME]", strings.Join(key, "."))
		}
	case reflect.Struct:
		return "a table"
	}
	return ""
}

// kindWords says what a value of kind k is; "" for a kind that holds no
// value.
func kindWords(k unstable.Kind) string {
	switch k {
	case unstable.String:
		return "a string"
	case unstable.Integer:
		return "a whole number"
	case unstable.Float:
		return "a number with a fraction"
	case unstable.Bool:
		return "true or false"
	case unstable.Array:
		return "a list"
	case unstable.InlineTable, unstable.Table:
		return "a table"
	case unstable.DateTime, unstable.LocalDate, unstable.LocalTime, unstable.LocalDateTime:
		return "a date or time"
	}
	return ""
}
