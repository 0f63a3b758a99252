package tools

import (
	"bytes"
	"io"
	"io/fs"
	"sync"

	"harness/fence"
)

// held is the text of the file the approval step last read whole to check
// it for secrets (Sources.Leak), kept for read_file to take rather than
// read the file again a moment later. It holds only a version that had
// not changed for a while when it was read, and the same before and
// after (settled, versionOf), so that its text is the file's for as long
// as the file is that version; and it gives it only for that version.
type held struct {
	mu   sync.Mutex
	abs  string
	v    folderStamp
	text []byte
}

func (h *held) put(abs string, v folderStamp, text []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.abs, h.v, h.text = abs, v, text
}

// take returns the text held of abs when fi, what abs looks like now, is
// the version it was read from, and lets it go. It gives none of a file
// with more than one name, which read_file refuses (openRegular).
func (h *held) take(abs string, fi fs.FileInfo) ([]byte, bool) {
	if fi == nil || links(fi) > 1 {
		return nil, false
	}
	v, ok := fileStampOf(fi)
	if !ok {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.text == nil || h.abs != abs || h.v != v {
		return nil, false
	}
	text := h.text
	h.abs, h.text = "", nil
	return text, true
}

// readSized reads r, a file of about size bytes, whole into one buffer
// of that size and a byte more. When the file turns out longer, it
// returns what it read and false: the rest is still to read.
func readSized(r io.Reader, size int64) ([]byte, bool, error) {
	buf := make([]byte, max(size, 0)+1)
	n, err := io.ReadFull(r, buf)
	switch err {
	case nil:
		return buf, false, nil
	case io.EOF, io.ErrUnexpectedEOF:
		return buf[:n], true, nil
	}
	return nil, false, err
}

// leakOf returns what the file r, of about size bytes, seems to hold (see
// Sources.Leak), and, when small is set and the file is no longer than
// size, its whole text, read in one buffer.
func leakOf(r io.Reader, size int64, small bool) (string, []byte, error) {
	if !small {
		what, err := fence.LeakReader(r, size)
		return what, nil, err
	}
	text, whole, err := readSized(r, size)
	if err != nil {
		return "", nil, err
	}
	if !whole { // it grew: the rest counts too
		what, err := fence.LeakReader(io.MultiReader(bytes.NewReader(text), r), 0)
		return what, nil, err
	}
	return fence.LeakBytes(text), text, nil
}
