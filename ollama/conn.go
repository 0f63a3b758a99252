package ollama

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
)

// client is the HTTP client of every Model: http.DefaultClient's, but for
// connections that copy request bodies through a buffer of their own. A
// program that put another transport in the place of net/http's gets
// http.DefaultClient as it is.
var client = sync.OnceValue(func() *http.Client {
	def, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return http.DefaultClient
	}
	t := def.Clone()
	dial := t.DialContext
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &conn{Conn: c}, nil
	}
	return &http.Client{Transport: t}
})

// conn is a connection to the server. net/http copies a request's body
// to its connection with io.Copy, from a reader that hides the body's
// WriteTo; a *net.TCPConn then makes a buffer of up to 32 KB for every
// request, a new one each step that the conversation's size is sent
// through. conn keeps one buffer for all the requests it carries, one at a
// time.
type conn struct {
	net.Conn
	buf []byte
}

// ReadFrom writes to the connection what it reads from r, until r ends.
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	if c.buf == nil {
		c.buf = make([]byte, 32<<10)
	}
	var n int64
	for {
		k, rerr := r.Read(c.buf)
		if k > 0 {
			w, werr := c.Conn.Write(c.buf[:k])
			n += int64(w)
			if werr != nil {
				return n, werr
			}
			if w < k {
				return n, io.ErrShortWrite
			}
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, rerr
		}
	}
}

var _ io.ReaderFrom = (*conn)(nil)
