package openai

import (
	"io"
	"strings"
	"testing"
)

// readAll reads every event of s.
func readAll(t testing.TB, s string) []string {
	ev := newEvents(strings.NewReader(s))
	var out []string
	for {
		data, err := ev.next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		out = append(out, string(data))
	}
}

func TestEvents(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"one", "data: a\n\n", []string{"a"}},
		{"two", "data: a\n\ndata: b\n\n", []string{"a", "b"}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}},
		{"no space", "data:a\n\n", []string{"a"}},
		{"one space taken", "data:  a\n\n", []string{" a"}},
		{"lines joined", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"comments and other fields", ": ping\n\nevent: x\nid: 3\nretry: 10\ndata: a\n\n", []string{"a"}},
		{"empty data", "data\n\ndata:\n\n", []string{"", ""}},
		{"blank lines alone", "\n\n\n", nil},
		{"cut at the end", "data: a\n\ndata: b", []string{"a", "b"}},
		{"cut after the line", "data: a\n", []string{"a"}},
		{"colon in value", "data: {\"a\":1}\n\n", []string{`{"a":1}`}},
		{"long line", "data: " + strings.Repeat("x", 9000) + "\n\n", []string{strings.Repeat("x", 9000)}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readAll(t, tt.in)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("events %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzEvents: whatever the stream, reading it never fails or panics, and
// events written as a server writes them read back as they were.
func FuzzEvents(f *testing.F) {
	f.Add("a\x00b", false)
	f.Add("line one\nline two\x00\x00 x", true)
	f.Add(strings.Repeat("y", 5000)+"\x00z", false)
	f.Fuzz(func(t *testing.T, s string, crlf bool) {
		readAll(t, s)

		payloads := strings.Split(s, "\x00")
		end := "\n"
		if crlf {
			end = "\r\n"
		}
		var b strings.Builder
		for _, p := range payloads {
			if strings.Contains(p, "\r") {
				return
			}
			for _, line := range strings.Split(p, "\n") {
				b.WriteString("data: " + line + end)
			}
			b.WriteString(end)
		}
		got := readAll(t, b.String())
		if len(got) != len(payloads) {
			t.Fatalf("%d events, want %d", len(got), len(payloads))
		}
		for i := range got {
			if got[i] != payloads[i] {
				t.Fatalf("event %d = %q, want %q", i, got[i], payloads[i])
			}
		}
	})
}
