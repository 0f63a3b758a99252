package chat

import "testing"

func TestCutText(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"one\ntwo\nthree", 10, "one\ntwo\n"},
		{"no newline at all", 5, "no ne"},
		{"héllo", 2, "h"},
	}
	for _, tt := range tests {
		if got := cutText(tt.in, tt.n); got != tt.want {
			t.Errorf("cutText(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
