package protocol

import (
	"strings"
	"testing"
)

// The example call of a prompt whose first tool takes numbers, arrays and
// objects gives each a value of its type.
func TestExampleCallWideTypes(t *testing.T) {
	specs := []ToolSpec{{Name: "calc.sum", Description: "Sum.", Args: []Arg{
		{Name: "n", Type: Number, Required: true},
		{Name: "xs", Type: Array, Required: true},
		{Name: "opts", Type: Object, Required: true},
		{Name: "v", Type: Any},
	}}}
	want := `TOOL_CALL {"name":"calc.sum","arguments":{"n":1,"xs":[],"opts":{}}}`
	if got := SystemPrompt("/w", specs); !strings.Contains(got, want+"\n") {
		t.Errorf("the prompt lacks %s:\n%s", want, got)
	}
	if got := SystemPrompt("/w", specs); !strings.Contains(got, "  xs (array, required)\n") {
		t.Errorf("the prompt lacks the array argument:\n%s", got)
	}
}
