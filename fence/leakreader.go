package fence

import (
	"fmt"
	"io"
)

const (
	// leakChunk is the text LeakReader hands to Leak at a time.
	leakChunk = 1 << 20
	// leakSpan is the longest secret LeakReader is sure to find where
	// two chunks meet: each chunk starts at least this far back in the
	// one before. It is far longer than any key, token or assignment of
	// the shapes Leak knows.
	leakSpan = 64 << 10
	// leakFirst is the most LeakReader reads before it knows the text
	// is longer; its buffer then doubles up to a chunk. Most texts are
	// files of a few kilobytes, and a buffer of a whole chunk for each
	// would cost more to clear than to check.
	leakFirst = 4 << 10
)

// LeakReader returns what the text r yields seems to hold, as Leak says of
// it, or "" when it holds none, reading the text a chunk at a time so
// that however long it is, little of it is held at once. Chunks overlap
// by 64 KiB or more, so a secret shorter than that is found wherever it
// lies, and they end and start at white space where there is one near,
// so that a chunk's edge does not cut a word and make its middle look
// like the start or end of a key. A read that fails is returned, wrapped.
// size is about how long the text is, when that is known, as a file's
// size is (0 or less when not): the first buffer holds that and one byte
// more, so that a small text is read and found whole in one read, in a
// buffer no bigger than it needs. A text of another size is read all the
// same.
func LeakReader(r io.Reader, size int64) (string, error) {
	return leakChunks(r, leakChunk, leakSpan, size)
}

// leakChunks is LeakReader with chunks of chunk bytes overlapping by span
// bytes or more (up to 2*span, to start at white space), starting with a
// buffer for a text of size bytes when size is above 0.
func leakChunks(r io.Reader, chunk, span int, size64 int64) (string, error) {
	size := chunk + 3*span
	first := leakFirst
	if size64 > 0 {
		first = int(min(size64+1, int64(size)))
	}
	buf := make([]byte, 0, min(size, first))
	for {
		n, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		last := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !last {
			return "", fmt.Errorf("checking text for secrets: %w", err)
		}
		if !last && cap(buf) < size {
			// Longer than the buffer: read on into one twice as long.
			buf = append(make([]byte, 0, min(2*cap(buf), size)), buf...)
			continue
		}
		end := len(buf)
		if !last {
			// End after the last white space of the last span bytes.
			if i := lastSpace(buf[end-span:]); i >= 0 {
				end = end - span + i + 1
			}
		}
		if what := leakIn(buf[:end]); what != "" {
			return what, nil
		}
		if last {
			return "", nil
		}
		// Start the next chunk span bytes before this one's end, or
		// further back, after white space, if there is some within
		// another span.
		start := end - span
		from := max(start-span, 0)
		if i := lastSpace(buf[from:start]); i >= 0 {
			start = from + i + 1
		}
		buf = buf[:copy(buf, buf[start:])]
	}
}

// lastSpace returns the index of the last ASCII white space byte of b, or
// -1.
func lastSpace(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		switch b[i] {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			return i
		}
	}
	return -1
}
