package openai

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// events reads a stream of server-sent events. Lines end in "\n" or
// "\r\n"; a blank line ends an event; "data" lines give its data, joined
// with "\n" when there are several; a line starting with ":" is a comment;
// other fields are ignored. An event cut short by the end of the stream
// still counts.
type events struct {
	r    *bufio.Reader
	long []byte // a line longer than r's buffer, as it is put together
	data []byte // the data of the event being read
}

func newEvents(r io.Reader) *events {
	return &events{r: bufio.NewReaderSize(r, 4096)}
}

// next returns the data of the next event, valid until the next call, or
// io.EOF when the stream has ended.
func (e *events) next() ([]byte, error) {
	e.data = e.data[:0]
	has := false
	for {
		line, err := e.line()
		if err == io.EOF && has {
			return e.data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			if has {
				return e.data, nil
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" {
			continue
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if has {
			e.data = append(e.data, '\n')
		}
		e.data = append(e.data, value...)
		has = true
	}
}

// line returns the next line without its end, valid until the next call.
func (e *events) line() ([]byte, error) {
	e.long = e.long[:0]
	for {
		b, err := e.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			e.long = append(e.long, b...)
			continue
		}
		if len(e.long) > 0 {
			b = append(e.long, b...)
			e.long = b
		}
		if err == io.EOF && len(b) > 0 {
			err = nil
		}
		if err != nil {
			return nil, err
		}
		b = bytes.TrimSuffix(b, []byte("\n"))
		return bytes.TrimSuffix(b, []byte("\r")), nil
	}
}
