package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"harness/protocol"
)

type linesArgs struct {
	N int `arg:"n" help:"how many lines"`
}

func outputsFixture(t *testing.T) *Outputs {
	t.Helper()
	lines := New("lines", "Print n numbered lines.", false, func(_ context.Context, a linesArgs) (string, error) {
		var b strings.Builder
		for i := 1; i <= a.N; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String(), nil
	})
	set, err := NewSet(lines)
	if err != nil {
		t.Fatal(err)
	}
	return WithOutputs(set)
}

func runOut(t *testing.T, o *Outputs, id, name string, args map[string]any) protocol.Result {
	t.Helper()
	return o.Run(context.Background(), protocol.Call{ID: id, Name: name, Args: args})
}

func TestOutputsShortenLongResults(t *testing.T) {
	o := outputsFixture(t)
	short := runOut(t, o, "call_1", "lines", map[string]any{"n": int64(10)})
	if !short.OK || strings.Contains(short.Body, "left out") {
		t.Fatalf("a short result was changed: %q", short.Body)
	}
	long := runOut(t, o, "call_7", "lines", map[string]any{"n": int64(5000)})
	if !long.OK {
		t.Fatalf("result %+v", long)
	}
	for _, want := range []string{"line 1\n", "line 100\n[... 4800 lines", "the whole output is out_7: call read_output with ref=\"out_7\" and offset=101", "line 4901\n", "line 5000\n"} {
		if !strings.Contains(long.Body, want) {
			t.Errorf("shortened body lacks %q", want)
		}
	}
	if strings.Contains(long.Body, "line 101\n") || strings.Contains(long.Body, "line 4900\n") {
		t.Error("the middle was not left out")
	}

	page := runOut(t, o, "call_8", "read_output", map[string]any{"ref": "out_7", "offset": int64(101), "limit": int64(3)})
	want := "line 101\nline 102\nline 103\n[lines 101-103 of 5000 of out_7; call read_output with offset=104 to read on]"
	if !page.OK || page.Body != want {
		t.Errorf("page = %q, want %q", page.Body, want)
	}
	end := runOut(t, o, "call_9", "read_output", map[string]any{"ref": "out_7", "offset": int64(4999)})
	if !strings.HasSuffix(end.Body, "line 5000\n[lines 4999-5000 of 5000 of out_7]") {
		t.Errorf("last page = %q", end.Body)
	}
	missing := runOut(t, o, "call_10", "read_output", map[string]any{"ref": "out_1"})
	if missing.OK || !strings.Contains(missing.Body, `no output is kept under "out_1"; kept: out_7`) {
		t.Errorf("unknown ref = %+v", missing)
	}
	past := runOut(t, o, "call_11", "read_output", map[string]any{"ref": "out_7", "offset": int64(9000)})
	if past.OK || !strings.Contains(past.Body, "past the end") {
		t.Errorf("offset past the end = %+v", past)
	}
}

func TestOutputsSpecs(t *testing.T) {
	var names []string
	for _, s := range outputsFixture(t).Specs() {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "lines,read_output" {
		t.Errorf("specs = %v", names)
	}
}

func TestOutputsForgetTheOldest(t *testing.T) {
	o := outputsFixture(t)
	o.keep("out_1", strings.Repeat("a", maxKept-10))
	o.keep("out_2", strings.Repeat("b", 20))
	if _, ok := o.kept["out_1"]; ok {
		t.Error("the oldest output was kept past the memory bound")
	}
	if _, ok := o.kept["out_2"]; !ok || o.size != 20 {
		t.Errorf("newest lost or size wrong: %d", o.size)
	}
}

// TestOutputsLeaveReadFileWhole: read_file pages by itself, so a full window
// of it (2000 lines and its marker) is never cut a second time.
func TestOutputsLeaveReadFileWhole(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	ws := newWorkspace(t, map[string]string{"long.txt": b.String()})
	set, err := NewSet(ReadFile(ws))
	if err != nil {
		t.Fatal(err)
	}
	res := WithOutputs(set).Run(context.Background(), protocol.Call{ID: "call_1", Name: "read_file", Args: map[string]any{"path": "long.txt"}})
	if !res.OK || strings.Contains(res.Body, "left out") || !strings.HasSuffix(res.Body, "2000\n[showing lines 1-2000 of 5000; call read_file with offset=2001 to read on]") {
		t.Errorf("a full read_file window was changed: ...%q", res.Body[max(0, len(res.Body)-120):])
	}
}

// TestOutputsPages pages through a kept output with one Outputs, which
// counts the output's lines at the first page and then starts near the
// page asked for, and checks every page against an Outputs paging it for
// the first time.
func TestOutputsPages(t *testing.T) {
	var b strings.Builder
	for i := range 30000 {
		n := i % 90
		if i%4999 == 0 {
			n = 70000
		}
		fmt.Fprintf(&b, "%d %s\n", i+1, strings.Repeat("y", n))
	}
	b.WriteString("no newline at the end")
	body := b.String()
	o := outputsFixture(t)
	o.keep("out_1", body)
	for _, limit := range []int64{0, 3, 1999} {
		for offset := int64(1); ; offset += 1 + offset/2 {
			args := map[string]any{"ref": "out_1", "offset": offset, "limit": limit}
			got := runOut(t, o, "call_2", "read_output", args)
			fresh := outputsFixture(t)
			fresh.keep("out_1", body)
			want := runOut(t, fresh, "call_2", "read_output", args)
			if got != want {
				t.Fatalf("offset %d limit %d:\ngot  %.200q\nwant %.200q", offset, limit, got.Body, want.Body)
			}
			if !want.OK {
				break
			}
		}
	}
}
