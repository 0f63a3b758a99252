package repl

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// readAll reads the lines of data with readLine, a long one as "LONG".
func readAll(t testing.TB, data string, limit int) []string {
	t.Helper()
	br := bufio.NewReaderSize(strings.NewReader(data), 16)
	var got []string
	for {
		line, long, err := readLine(br, limit)
		switch {
		case errors.Is(err, io.EOF):
			return got
		case err != nil:
			t.Fatal(err)
		case long:
			got = append(got, "LONG")
		default:
			got = append(got, string(line))
		}
	}
}

func TestReadLine(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a\nb\n", []string{"a", "b"}},
		{"a\nb", []string{"a", "b"}},
		{"a\r\nb\r\n", []string{"a", "b"}},
		{"\n\n", []string{"", ""}},
		{"1234\n12345\nok\n", []string{"1234", "LONG", "ok"}},
		{"1234\r\n", []string{"1234"}},
		{strings.Repeat("x", 100) + "\nend", []string{"LONG", "end"}},
		{"ok\n" + strings.Repeat("x", 100), []string{"ok", "LONG"}},
	}
	for _, tt := range tests {
		got := readAll(t, tt.in, 4)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("readLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzReadLine: readLine finds the lines bytes.Split finds, a last empty
// one aside, and flags exactly those longer than the limit.
func FuzzReadLine(f *testing.F) {
	for _, s := range []string{"", "a\nb", "12345678\r\n", "\n\r\n\r", strings.Repeat("y", 40) + "\nz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		const limit = 8
		var want []string
		parts := strings.Split(data, "\n")
		if parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
		for _, p := range parts {
			p = strings.TrimSuffix(p, "\r")
			if len(p) > limit {
				p = "LONG"
			}
			want = append(want, p)
		}
		got := readAll(t, data, limit)
		if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
			t.Errorf("readLine(%q) = %q, want %q", data, got, want)
		}
	})
}

// A line too long to read is an error of its own, and the input goes on
// after it; in a block, the whole block is skipped.
func TestMessageLongLine(t *testing.T) {
	long := strings.Repeat("x", maxLine+1)
	in := PlainInput(strings.NewReader(long+"\nnext\n\"\"\"\na\n"+long+"\nb\n\"\"\"\nlast\n"), io.Discard, false)
	ctx := context.Background()
	for _, want := range []string{"", "next", "", "last"} {
		got, err := in.Message(ctx, "You: ")
		switch {
		case want == "" && !errors.Is(err, ErrLongLine):
			t.Fatalf("got %q, %v; want an error wrapping ErrLongLine", got, err)
		case want != "" && (err != nil || got != want):
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	}
	if _, err := in.Message(ctx, "You: "); !errors.Is(err, io.EOF) {
		t.Errorf("at the end: %v, want io.EOF", err)
	}
}

// A block the input ends inside is sent, after a note.
func TestMessageUnterminatedBlock(t *testing.T) {
	var out bytes.Buffer
	in := PlainInput(strings.NewReader("\"\"\"\nfirst\nsecond"), &out, false)
	got, err := in.Message(context.Background(), "You: ")
	if err != nil || got != "first\nsecond" {
		t.Fatalf("got %q, %v", got, err)
	}
	if !strings.Contains(out.String(), `the input ended inside a """ block; it is sent as it stands`) {
		t.Errorf("no note: %q", out.String())
	}
	if _, err := in.Message(context.Background(), "You: "); !errors.Is(err, io.EOF) {
		t.Errorf("then: %v, want io.EOF", err)
	}
}
