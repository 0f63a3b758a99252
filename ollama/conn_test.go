package ollama

import (
	"bytes"
	"io"
	"net"
	"testing"
)

// sink is a connection that keeps what is written to it.
type sink struct {
	net.Conn
	got bytes.Buffer
}

func (s *sink) Write(p []byte) (int, error) { return s.got.Write(p) }

// TestConnReadFrom: a body copied to a conn as net/http copies it (a
// limited reader, through io.Copy) arrives whole, and after the first
// request no request makes a buffer.
func TestConnReadFrom(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 5000) // 80 KB: more than one buffer
	s := &sink{}
	c := &conn{Conn: s}
	send := func() {
		s.got.Reset()
		n, err := io.Copy(c, io.LimitReader(bytes.NewReader(body), int64(len(body))))
		if err != nil || n != int64(len(body)) || !bytes.Equal(s.got.Bytes(), body) {
			t.Fatalf("copied %d of %d bytes (%v), same: %v", n, len(body), err, bytes.Equal(s.got.Bytes(), body))
		}
	}
	send()
	s.got.Grow(len(body))
	if allocs := testing.AllocsPerRun(10, send); allocs > 2 {
		t.Errorf("a request's body made %v allocations", allocs)
	}
}
