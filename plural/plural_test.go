package plural

import (
	"fmt"
	"testing"
)

func TestCount(t *testing.T) {
	tests := []struct {
		n    int
		noun string
		want string
	}{
		{0, "file", "0 files"},
		{1, "file", "1 file"},
		{2, "file", "2 files"},
		{-1, "byte", "-1 bytes"},
		{1, "entry", "1 entry"},
		{3, "entry", "3 entries"},
		{2, "day", "2 days"},
		{2, "y", "2 ys"},
		{2, "model call", "2 model calls"},
		{2, "older result", "2 older results"},
	}
	for _, tt := range tests {
		if got := Count(tt.n, tt.noun); got != tt.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
}

func ExampleCount() {
	fmt.Println(Count(1, "step"), Count(3, "call"), Count(2, "entry"))
	// Output: 1 step 3 calls 2 entries
}
