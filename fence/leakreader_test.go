package fence

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// A secret is found wherever it lies in the text, across the edges of
// chunks, and a word cut by a chunk's edge is not taken for one.
func TestLeakChunks(t *testing.T) {
	const chunk, span = 100, 64
	filler := strings.Repeat("lorem ipsum dolor ", 30)
	tests := []struct {
		name, secret, want string
	}{
		{"key", "-----BEGIN OPENSSH PRIVATE KEY-----", "a private key"},
		{"aws", "AKIAABCDEFGHIJKLMNOP", "an AWS access key"},
		{"assignment", "DB_PASSWORD = hunter2hunter2", "a password or token assignment"},
		{"within a word", "xAKIAABCDEFGHIJKLMNOPQRSTx", ""},
		{"no space", strings.Repeat("-", 3*span) + "AKIAABCDEFGHIJKLMNOP" + strings.Repeat("-", 3*span), "an AWS access key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for at := 0; at <= len(filler); at++ {
				text := filler[:at] + " " + tt.secret + " " + filler[at:]
				if whole := Leak(text); whole != tt.want {
					t.Fatalf("Leak of the whole text at %d = %q, want %q", at, whole, tt.want)
				}
				// Whatever size it is told the text has, the text's own,
				// none, less or more, it reads and checks all of it.
				for _, size := range []int64{int64(len(text)), 0, 1, int64(len(text)) / 2, 4 * int64(len(text))} {
					got, err := leakChunks(strings.NewReader(text), chunk, span, size)
					if err != nil || got != tt.want {
						t.Fatalf("at %d, told %d bytes: leakChunks = %q, %v; want %q", at, size, got, err, tt.want)
					}
				}
				// A reader that gives a byte at a time gives the same.
				got, err := leakChunks(iotest.OneByteReader(strings.NewReader(text)), chunk, span, int64(len(text)))
				if err != nil || got != tt.want {
					t.Fatalf("at %d, a byte at a time: leakChunks = %q, %v; want %q", at, got, err, tt.want)
				}
			}
		})
	}
}

// A key past the first megabytes of a long text is found.
func TestLeakReaderLong(t *testing.T) {
	rows := strings.Repeat("row,value,1234567890\n", (5<<20)/21)
	for _, tt := range []struct{ text, want string }{
		{rows, ""},
		{rows + "-----BEGIN RSA PRIVATE KEY-----\n", "a private key"},
		{rows + "AKIAABCDEFGHIJKLMNOP\n" + rows, "an AWS access key"},
		{rows[:leakFirst-10] + " AKIAABCDEFGHIJKLMNOP\n" + rows, "an AWS access key"}, // across the first read's end
	} {
		got, err := LeakReader(strings.NewReader(tt.text), 0)
		if err != nil || got != tt.want {
			t.Errorf("LeakReader of %d bytes = %q, %v; want %q", len(tt.text), got, err, tt.want)
		}
		// Told a size far short of the text, it reads on to the end.
		got, err = LeakReader(strings.NewReader(tt.text), 100)
		if err != nil || got != tt.want {
			t.Errorf("LeakReader of %d bytes told 100 = %q, %v; want %q", len(tt.text), got, err, tt.want)
		}
	}
}

// A read that fails is an error that wraps the reader's.
func TestLeakReaderError(t *testing.T) {
	boom := errors.New("boom")
	_, err := LeakReader(io.MultiReader(strings.NewReader("text"), iotest.ErrReader(boom)), 0)
	if !errors.Is(err, boom) {
		t.Errorf("LeakReader error = %v, want one wrapping %v", err, boom)
	}
}
