package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"harness/protocol"
)

func TestArgs(t *testing.T) {
	var schema any
	if err := json.Unmarshal([]byte(`{
		"type": "object",
		"properties": {
			"z": {"type": "string", "description": "last\n  of   all"},
			"query": {"type": "string"},
			"limit": {"type": ["integer", "null"], "default": 10},
			"mode": {"enum": ["fast", "slow"]},
			"tags": {"type": "array", "items": {"type": "string"}},
			"opts": {"type": "object"},
			"either": {"type": ["string", "number"]},
			"anything": {}
		},
		"required": ["z", "query", "missing", "z"]
	}`), &schema); err != nil {
		t.Fatal(err)
	}
	want := []protocol.Arg{
		{Name: "z", Type: protocol.String, Required: true, Description: "last of all"},
		{Name: "query", Type: protocol.String, Required: true},
		{Name: "anything", Type: protocol.Any},
		{Name: "either", Type: protocol.Any},
		{Name: "limit", Type: protocol.Integer, Description: "default 10"},
		{Name: "mode", Type: protocol.String, Description: `one of "fast", "slow"`},
		{Name: "opts", Type: protocol.Object},
		{Name: "tags", Type: protocol.Array, Description: "items: string"},
	}
	if got := args(schema); !reflect.DeepEqual(got, want) {
		t.Errorf("args:\n got %+v\nwant %+v", got, want)
	}
	if got := args(nil); got != nil {
		t.Errorf("args(nil) = %v", got)
	}
}

func TestCut(t *testing.T) {
	long := strings.Repeat("é", maxDescription)
	got := cut(long)
	if len(got) > maxDescription+len("…") || !strings.HasSuffix(got, "…") || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("cut: %d bytes, %q...", len(got), got[:10])
	}
}
