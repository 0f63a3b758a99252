package protocol

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// sameDecode fails t unless decodeCall reads payload as decodeCallTokens,
// encoding/json's decoder, does: the same name, arguments and their order,
// or the same error.
func sameDecode(t *testing.T, payload string) {
	t.Helper()
	got, gotErr := decodeCall(payload)
	want, wantErr := decodeCallTokens(payload)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && (gotErr.Error() != wantErr.Error() ||
		errors.Is(gotErr, io.ErrUnexpectedEOF) != errors.Is(wantErr, io.ErrUnexpectedEOF)) {
		t.Fatalf("decodeCall(%q) error = %v, encoding/json's %v", payload, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeCall(%q) = %#v\nencoding/json's %#v", payload, got, want)
	}
}

func TestDecodeCallAsEncodingJSON(t *testing.T) {
	tests := []struct {
		name, payload string
		fast          bool // read without a decoder
	}{
		{"plain", `{"name":"read_file","arguments":{"path":"README.md"}}`, true},
		{"spaces and backticks after", "  {\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}} ``` \r\n", true},
		{"lines inside", "{\n \"name\": \"read_file\",\n \"arguments\": {\n  \"path\": \"a\"\n }\n}", true},
		{"arguments first", `{"arguments":{"b":1,"a":2},"name":"x"}`, true},
		{"no arguments given", `{"arguments":{},"name":"x"}`, true},
		{"numbers", `{"name":"x","arguments":{"i":-0,"f":1.5e-3,"big":123456789012345678901234567890}}`, true},
		{"literals and arrays", `{"name":"x","arguments":{"t":true,"f":false,"n":null,"a":[],"b":[1,"two",[3],{}]}}`, true},
		{"nested object with a key twice", `{"name":"x","arguments":{"o":{"k":1,"k":2,"j":{"z":[]}}}}`, true},
		{"escapes", `{"name":"x","arguments":{"s":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00"}}`, true},
		{"lone surrogates", `{"name":"x","arguments":{"s":"\ud800","t":"\udc00x","u":"\ud800\u0041"}}`, true},
		{"invalid UTF-8", "{\"name\":\"x\xff\",\"arguments\":{\"s\":\"a\xc3(\xe2\x82\",\"k\xfe\":1}}", true},
		{"escaped name", `{"name":"read\u005ffile","arguments":{"\u0070ath":"a"}}`, true},
		{"empty name", `{"name":"","arguments":{}}`, true},

		{"no arguments key", `{"name":"x"}`, false},
		{"null arguments", `{"name":"x","arguments":null}`, false},
		{"null name", `{"name":null,"arguments":{}}`, false},
		{"name not a string", `{"name":3,"arguments":{}}`, false},
		{"arguments not an object", `{"name":"x","arguments":[1]}`, false},
		{"argument given twice", `{"name":"x","arguments":{"a":1,"a":2}}`, false},
		{"empty key given twice", `{"name":"x","arguments":{"":1,"":2}}`, false},
		{"name given twice", `{"name":"x","name":"y","arguments":{}}`, false},
		{"unknown key", `{"name":"x","arguments":{},"id":1}`, false},
		{"text after", `{"name":"x","arguments":{}} and more`, false},
		{"second object after", `{"name":"x","arguments":{}} {}`, false},
		{"not closed", `{"name":"x","arguments":{"path":"a"}`, false},
		{"ends inside a string", `{"name":"x","arguments":{"path":"a`, false},
		{"text before", `call {"name":"x","arguments":{}}`, false},
		{"an array", `[{"name":"x","arguments":{}}]`, false},
		{"null", `null`, false},
		{"empty", ``, false},
		{"single quotes", `{'name':'x','arguments':{}}`, false},
		{"trailing comma", `{"name":"x","arguments":{"a":1,},}`, false},
		{"comment", `{"name":"x", /* c */ "arguments":{}}`, false},
		{"Python literal", `{"name":"x","arguments":{"a":True}}`, false},
		{"tab in a string", "{\"name\":\"x\",\"arguments\":{\"a\":\"\t\"}}", false},
		{"Markdown escape", `{"name":"read\_file","arguments":{}}`, false},
		{"leading zero", `{"name":"x","arguments":{"a":01}}`, false},
		{"unicode space", "{\"name\":\"x\",\u00a0\"arguments\":{}}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameDecode(t, tt.payload)
			if _, fast := decodeValidCall(tt.payload); fast != tt.fast {
				t.Errorf("read without a decoder: %v, want %v", fast, tt.fast)
			}
		})
	}
}

// FuzzDecodeCall holds that decodeCall reads every payload as
// encoding/json's decoder does.
func FuzzDecodeCall(f *testing.F) {
	for _, s := range []string{
		`{"name":"read_file","arguments":{"path":"a"}}`,
		`{"name":"x","arguments":{"o":{"k":[1,2.5e3,null,true]}}} ` + "```",
		`{"name":"x","arguments":{"s":"\ud800\u00e9"}}`,
		`{"name":"x","arguments":{"a":1,"a":2}}`,
		`{"name":"x","arguments":{}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, payload string) {
		if strings.Count(payload, "{") > 200 {
			return // deep nesting tells nothing more
		}
		sameDecode(t, payload)
	})
}

// Of several unknown keys, decodeCall names the first in byte order, not
// in the order of the map it read them into: the same payload always
// gets the same error.
func TestDecodeCallNamesFirstUnknownKey(t *testing.T) {
	for range 20 {
		_, err := decodeCall(`{"name":"x","arguments":{},"b":1,"a":2,"c":3}`)
		if err == nil || !strings.Contains(err.Error(), `unexpected key "a"`) {
			t.Fatalf("err = %v, want one naming \"a\"", err)
		}
	}
}
