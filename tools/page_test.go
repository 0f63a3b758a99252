package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"harness/protocol"
)

func TestPageBytes(t *testing.T) {
	tests := []struct {
		name string
		ctx  context.Context
		want int
	}{
		{"unset", context.Background(), 64 << 10},
		{"zero", WithPageBytes(context.Background(), 0), 64 << 10},
		{"negative", WithPageBytes(context.Background(), -5), 64 << 10},
		{"more than the most", WithPageBytes(context.Background(), 1<<20), 64 << 10},
		{"a whole number of KiB", WithPageBytes(context.Background(), 10<<10), 10 << 10},
		{"rounded down to KiB", WithPageBytes(context.Background(), 10<<10+700), 10 << 10},
		{"never less than 1 KiB", WithPageBytes(context.Background(), 100), 1 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pageBytes(tt.ctx); got != tt.want {
				t.Errorf("pageBytes = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestReadFilePagesFitTheWindow: with a page bound, read_file shows no
// more than it, says so, and how many lines are left and where to read
// on; reading on from there gives the next page, until the end.
func TestReadFilePagesFitTheWindow(t *testing.T) {
	var text strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&text, "line %04d %s\n", i, strings.Repeat("x", 89)) // 100 bytes
	}
	ws := newWorkspace(t, map[string]string{"big.txt": text.String()})
	tool := ReadFile(ws)
	ctx := WithPageBytes(context.Background(), 10<<10)
	body, err := tool.run(ctx, map[string]any{"path": "big.txt"})
	if err != nil {
		t.Fatal(err)
	}
	text1, note, _ := strings.Cut(body, "[")
	if len(text1) > 10<<10 || !strings.HasPrefix(text1, "line 0001 ") || !strings.HasSuffix(text1, "line 0102 "+strings.Repeat("x", 89)+"\n") {
		t.Errorf("page of %d bytes, ending %q", len(text1), text1[max(len(text1)-120, 0):])
	}
	if want := "showing lines 1-102 of 1000; a page holds at most 10 KiB, to fit the context window; 898 lines left: call read_file with offset=103 to read on]"; note != want {
		t.Errorf("note = %q, want %q", note, want)
	}
	seen := 102
	for offset := 103; offset > 0; {
		body, err := tool.run(ctx, map[string]any{"path": "big.txt", "offset": int64(offset)})
		if err != nil {
			t.Fatal(err)
		}
		if len(body) > 10<<10+markerBytes {
			t.Fatalf("a page of %d bytes", len(body))
		}
		for _, l := range strings.Split(body, "\n") {
			if strings.HasPrefix(l, "line ") {
				seen++
			}
		}
		offset = nextOffset(body)
	}
	if seen != 1000 {
		t.Errorf("read %d lines in pages, want 1000", seen)
	}
	// Without a bound, and with a limit of lines, the note says nothing of
	// the window.
	body, err = tool.run(ctx, map[string]any{"path": "big.txt", "limit": int64(3)})
	if err != nil || strings.Contains(body, "context window") || !strings.HasSuffix(body, "[showing lines 1-3 of 1000; 997 lines left: call read_file with offset=4 to read on]") {
		t.Errorf("limit 3: %q, %v", body[max(len(body)-200, 0):], err)
	}
	body, err = tool.run(context.Background(), map[string]any{"path": "big.txt"})
	if err != nil || strings.Contains(body, "context window") || !strings.HasSuffix(body, "[showing lines 1-655 of 1000; 345 lines left: call read_file with offset=656 to read on]") {
		t.Errorf("unbound: %q, %v", body[max(len(body)-200, 0):], err)
	}
}

// TestReadFileCutsALineAtThePage: a line longer than a page is cut at it.
func TestReadFileCutsALineAtThePage(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"long.txt": strings.Repeat("y", 5000) + "\nnext\n"})
	body, err := ReadFile(ws).run(WithPageBytes(context.Background(), 2<<10), map[string]any{"path": "long.txt"})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("y", 2<<10) + "\n[showing lines 1-1 of 2; line 1 is longer than 2 KiB and was cut; 1 line left: call read_file with offset=2 to read on]"
	if body != want {
		t.Errorf("body = ...%q", body[max(len(body)-200, 0):])
	}
}

// TestReadOutputPagesFitTheWindow: read_output pages by the same bound.
func TestReadOutputPagesFitTheWindow(t *testing.T) {
	o := outputsFixture(t)
	if long := runOut(t, o, "call_7", "lines", map[string]any{"n": int64(5000)}); !long.OK {
		t.Fatalf("result %+v", long)
	}
	ctx := WithPageBytes(context.Background(), 1<<10)
	page := o.Run(ctx, protocol.Call{ID: "call_8", Name: "read_output", Args: map[string]any{"ref": "out_7", "offset": int64(101)}})
	text, note, _ := strings.Cut(page.Body, "[")
	if !page.OK || len(text) > 1<<10 || !strings.HasPrefix(text, "line 101\n") {
		t.Errorf("page of %d bytes: %q", len(text), page.Body)
	}
	if !strings.HasSuffix(note, "of 5000 of out_7; a page holds at most 1 KiB, to fit the context window; 4787 lines left: call read_output with offset=214 to read on]") {
		t.Errorf("note = %q", note)
	}
}

// TestPagesBoundEachCall: WithPages asks the bound at each call, so that
// a window that changes changes the pages.
func TestPagesBoundEachCall(t *testing.T) {
	var text strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&text, "%099d\n", i)
	}
	ws := newWorkspace(t, map[string]string{"big.txt": text.String()})
	set, err := NewSet(ReadFile(ws))
	if err != nil {
		t.Fatal(err)
	}
	bound := 2 << 10
	p := WithPages(set, func() int { return bound })
	call := protocol.Call{ID: "call_1", Name: "read_file", Args: map[string]any{"path": "big.txt"}}
	for _, tt := range []struct {
		bound int
		last  string
	}{{2 << 10, "lines 1-20 of 1000"}, {5 << 10, "lines 1-51 of 1000"}, {0, "lines 1-655 of 1000"}} {
		bound = tt.bound
		res := p.Run(context.Background(), call)
		if !res.OK || !strings.Contains(res.Body, "[showing "+tt.last+";") {
			t.Errorf("bound %d: ...%q", tt.bound, res.Body[max(len(res.Body)-150, 0):])
		}
	}
	if got := p.Specs(); len(got) != 1 || got[0].Name != "read_file" {
		t.Errorf("specs %v", got)
	}
}
