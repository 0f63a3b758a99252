package approve

import (
	"strings"
	"testing"
)

// BenchmarkLeakClean is the common case: a result of ordinary output,
// checked for secrets before it is sent.
func BenchmarkLeakClean(b *testing.B) {
	text := strings.Repeat("func main() { fmt.Println(\"hello, world\") } // a line of code\n", 40)
	b.ReportAllocs()
	for b.Loop() {
		if Leak(text) != "" {
			b.Fatal("clean text reported as a leak")
		}
	}
}
