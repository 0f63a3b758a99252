package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// stopWait is how long a program has to end once its standard input is
// closed, and to close its output once it ended, before it is killed or
// given up on.
const stopWait = 2 * time.Second

// stdioConn speaks to a program over its standard input and output, one
// JSON message a line each way.
type stdioConn struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *os.File
	next atomic.Int64

	// outbox holds the lines for write, the one goroutine that writes
	// to in: a program that stops reading blocks it, and nothing else.
	outbox  chan []byte
	closing chan struct{} // closed by close, which ends write
	stop    sync.Once

	mu      sync.Mutex
	pending map[string]chan *message
	exit    string // how the program ended, once it has
	reason  error  // why the connection ended, once it has

	exited chan struct{} // closed when the program has ended
	read   chan struct{} // closed when reading its output has stopped
	done   chan struct{} // closed when the connection has ended
}

// startStdio starts the program of s apart from the harness's terminal
// (procAttr: in a process group of its own on Linux, a session of its own
// on other Unix systems), with only the environment s names; what it
// writes to stderr goes to stderr.
func startStdio(s Server, stderr io.Writer) (*stdioConn, error) {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = s.Dir
	cmd.SysProcAttr = procAttr()
	cmd.Env = []string{} // not nil: nothing of the harness's environment
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		cmd.Env = append(cmd.Env, k+"="+s.Env[k])
	}
	cmd.Stderr = stderr
	cmd.WaitDelay = stopWait
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// The harness's own pipe, not StdoutPipe, so that Wait does not close
	// it before the last message is read.
	out, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		out.Close()
		return nil, err
	}
	c := &stdioConn{
		cmd: cmd, in: in, out: out,
		pending: map[string]chan *message{},
		outbox:  make(chan []byte, 16), closing: make(chan struct{}),
		exited: make(chan struct{}), read: make(chan struct{}), done: make(chan struct{}),
	}
	go c.wait()
	go c.readAll()
	go c.write()
	return c, nil
}

// wait waits for the program to end, and ends the programs it started
// where it can (endGroup), then waits for its last messages to be read;
// output that a child of its keeps open is given up on.
func (c *stdioConn) wait() {
	endGroup(c.cmd.Process)
	c.cmd.Wait()
	c.mu.Lock()
	c.exit = c.cmd.ProcessState.String()
	c.mu.Unlock()
	close(c.exited)
	select {
	case <-c.read:
	case <-time.After(stopWait):
		c.out.Close()
	}
}

// readAll reads the program's messages until its output ends, then ends
// the connection once the program has ended too (or stopWait after).
func (c *stdioConn) readAll() {
	r := bufio.NewReaderSize(c.out, 64<<10)
	var err error
	for {
		var line []byte
		if line, err = readLine(r); err != nil {
			break
		}
		c.handle(line)
	}
	close(c.read)
	select {
	case <-c.exited:
	case <-time.After(stopWait):
	}
	if err == io.EOF {
		err = errors.New("it closed its output")
	}
	c.mu.Lock()
	c.reason = err
	for _, ch := range c.pending {
		close(ch)
	}
	c.pending = nil
	c.mu.Unlock()
	close(c.done)
}

// handle takes one line: a message, or a batch of them.
func (c *stdioConn) handle(line []byte) {
	batch, _ := messages(line)
	for i := range batch {
		c.take(&batch[i])
	}
}

// take takes one message: a response goes to its call, a request gets
// its answer, anything else (a notification, a line that is no JSON) is
// dropped.
func (c *stdioConn) take(m *message) {
	switch {
	case m.isRequest():
		c.post(answer(m))
	case m.Method == "":
		c.mu.Lock()
		ch := c.pending[key(m.ID)]
		delete(c.pending, key(m.ID))
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// write writes the lines of outbox to the program until close. A line
// it cannot write is lost: the call it carries ends at its timeout, or
// when the program does.
func (c *stdioConn) write() {
	for {
		select {
		case line := <-c.outbox:
			c.in.Write(line)
		case <-c.closing:
			return
		}
	}
}

// send queues one message for the program, waiting while ctx lets it for
// room in the queue.
func (c *stdioConn) send(ctx context.Context, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	select {
	case c.outbox <- append(data, '\n'):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.closing:
		return errEnded
	}
}

// post queues one message for the program if there is room, and drops it
// if there is none: the reader, which answers pings, must never wait for
// a program that does not read.
func (c *stdioConn) post(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	select {
	case c.outbox <- append(data, '\n'):
	default:
	}
}

func (c *stdioConn) call(ctx context.Context, method string, params, result any) error {
	id := c.next.Add(1)
	ch := make(chan *message, 1)
	k := strconv.FormatInt(id, 10)
	c.mu.Lock()
	if c.pending == nil {
		c.mu.Unlock()
		return errEnded
	}
	c.pending[k] = ch
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, k)
		c.mu.Unlock()
	}
	if err := c.send(ctx, request{JSONRPC: "2.0", ID: &id, Method: method, Params: params}); err != nil {
		forget()
		return fmt.Errorf("sending %s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return errEnded
		}
		return m.decode(result)
	case <-ctx.Done():
		forget()
		if method != "initialize" { // which must never be cancelled
			c.post(request{JSONRPC: "2.0", Method: "notifications/cancelled", Params: cancelled{RequestID: id, Reason: context.Cause(ctx).Error()}})
		}
		return ctx.Err()
	}
}

// cancelled are the params of notifications/cancelled, which tell a
// server that the harness gave up on a request.
type cancelled struct {
	RequestID int64  `json:"requestId"`
	Reason    string `json:"reason,omitempty"`
}

// errEnded is the error of a call on a connection that ended.
var errEnded = errors.New("the connection ended")

func (c *stdioConn) notify(ctx context.Context, method string, params any) error {
	return c.send(ctx, request{JSONRPC: "2.0", Method: method, Params: params})
}

// agree does nothing: over stdio the version goes with no message.
func (c *stdioConn) agree(string) {}

func (c *stdioConn) ended() <-chan struct{} { return c.done }

func (c *stdioConn) why() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exit != "" {
		return c.exit
	}
	if c.reason != nil {
		return c.reason.Error()
	}
	return ""
}

// close closes the program's input, which tells it to end, and kills it
// when it has not ended stopWait later. Closing the input also ends a
// write the program does not read.
func (c *stdioConn) close() {
	c.stop.Do(func() { close(c.closing) })
	c.in.Close()
	select {
	case <-c.exited:
		return
	case <-time.After(stopWait):
	}
	stopProgram(c.cmd.Process)
	<-c.exited
}
