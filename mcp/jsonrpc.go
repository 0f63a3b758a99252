package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The harness speaks MCP with JSON-RPC 2.0 messages of its own making,
// over one of two connections (stdio.go, http.go): requests it sends,
// and the server's answers matched by id. What the server asks of the
// harness gets a "method not found" error (but a ping, which gets its
// empty answer), and what it notifies is read and dropped.

// protocolVersion is the version of MCP the harness asks for at
// initialize; a server that speaks another answers with its own, which
// the harness accepts when it is one of versions. 2025-11-25 is not one:
// it lets a server close a stream before it answers, for the client to
// resume, which the harness does not do.
const protocolVersion = "2025-06-18"

var versions = []string{"2025-06-18", "2025-03-26", "2024-11-05"}

// maxMessage bounds one message from a server, in bytes.
const maxMessage = 64 << 20

// conn is one connection to a server.
type conn interface {
	// call sends a request and decodes the result of its answer into
	// result; a server's error answer is an *rpcError.
	call(ctx context.Context, method string, params, result any) error
	// notify sends a notification.
	notify(ctx context.Context, method string, params any) error
	// agree takes the protocol version the server answered initialize
	// with, for the messages after it.
	agree(version string)
	// ended is closed when the connection ends by itself; why then says
	// why, for the user.
	ended() <-chan struct{}
	why() string
	// close ends the connection, and the server's program if it has one.
	close()
}

// request is a request or a notification (no ID) the harness sends.
type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      *int64 `json:"id,omitempty"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// message is any message from a server: a response to one of the
// harness's requests (no Method), a request of the server's (Method and
// ID) or a notification (Method, no ID).
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

// reply is the harness's answer to a request of the server's.
type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  *struct{}       `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string {
	return fmt.Sprintf("%s (JSON-RPC error %d)", fold(e.Message), e.Code)
}

const codeMethodNotFound = -32601

// isRequest reports whether m is a request of the server's, which wants an
// answer.
func (m *message) isRequest() bool { return m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" }

// answer is the answer to a request of the server's: a ping gets its
// empty result, and anything else "method not found", as the harness
// offers nothing a server may ask for (roots, sampling, elicitation).
func answer(m *message) reply {
	if m.Method == "ping" {
		return reply{JSONRPC: "2.0", ID: m.ID, Result: &struct{}{}}
	}
	return reply{JSONRPC: "2.0", ID: m.ID, Error: &rpcError{Code: codeMethodNotFound, Message: "the client offers no method " + m.Method}}
}

// messages reads data, one message or a batch of them (a JSON array),
// which protocol versions before 2025-06-18 allow.
func messages(data []byte) ([]message, error) {
	data = bytes.TrimSpace(data)
	if bytes.HasPrefix(data, []byte("[")) {
		var batch []message
		err := json.Unmarshal(data, &batch)
		return batch, err
	}
	batch := make([]message, 1)
	if err := json.Unmarshal(data, &batch[0]); err != nil {
		return nil, err
	}
	return batch, nil
}

// key is a message's id as the harness matches it with its request's.
func key(id json.RawMessage) string { return string(bytes.TrimSpace(id)) }

// decode is the result of the response m, decoded into result.
func (m *message) decode(result any) error {
	if m.Error != nil {
		return m.Error
	}
	if result == nil {
		return nil
	}
	if len(m.Result) == 0 {
		return errors.New("a response with neither result nor error")
	}
	if err := json.Unmarshal(m.Result, result); err != nil {
		return fmt.Errorf("a result the harness cannot read: %w", err)
	}
	return nil
}

// errTooLong is the error of a message longer than maxMessage.
var errTooLong = fmt.Errorf("a message longer than %d MiB", maxMessage>>20)

// readLine reads one line of r, without its end, of at most maxMessage
// bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > maxMessage {
			return nil, errTooLong
		}
		switch {
		case err == nil:
			return bytes.TrimRight(line, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(line) > 0:
			return line, nil
		default:
			return nil, err
		}
	}
}
