package fence

import (
	"bytes"
	"fmt"
	"testing"
)

// benchRows is a 50 MB text of the shape the paging figure reads: rows
// of digits and letters, no secret anywhere.
func benchRows() []byte {
	var b bytes.Buffer
	for i := 0; i < 700000; i++ {
		fmt.Fprintf(&b, "row %07d %s\n", i, bytes.Repeat([]byte("z"), 62))
	}
	return b.Bytes()
}

// BenchmarkLeakReader is the secret check of a large file with none: the
// cost of the first page of one.
func BenchmarkLeakReader(b *testing.B) {
	text := benchRows()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if what, err := LeakReader(bytes.NewReader(text), 0); what != "" || err != nil {
			b.Fatal(what, err)
		}
	}
}

// BenchmarkLeakReaderProse is the same check of text with upper case and
// words that hint at secrets (key, token, session) but hold none.
func BenchmarkLeakReaderProse(b *testing.B) {
	line := "The Session keeps a Token per key; see TOKEN_LIMIT in the docs, and AUTH below.\n"
	text := bytes.Repeat([]byte(line), (8<<20)/len(line))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if what, err := LeakReader(bytes.NewReader(text), 0); what != "" || err != nil {
			b.Fatal(what, err)
		}
	}
}

// BenchmarkLeakReaderSmall is the check of a file of 2 KB, the size of
// most a session reads.
func BenchmarkLeakReaderSmall(b *testing.B) {
	text := bytes.Repeat([]byte("line 01 of a file used to time the loop. xxxx\n"), 40)
	b.ReportAllocs()
	for b.Loop() {
		if what, err := LeakReader(bytes.NewReader(text), 0); what != "" || err != nil {
			b.Fatal(what, err)
		}
	}
}

// BenchmarkLeakReaderSizedSmall is BenchmarkLeakReaderSmall told the size of
// the text, as the check of a file is.
func BenchmarkLeakReaderSizedSmall(b *testing.B) {
	text := bytes.Repeat([]byte("line 01 of a file used to time the loop. xxxx\n"), 40)
	b.ReportAllocs()
	for b.Loop() {
		if what, err := LeakReader(bytes.NewReader(text), int64(len(text))); what != "" || err != nil {
			b.Fatal(what, err)
		}
	}
}
