// Command refclient is the floor the end-to-end benchmark measures the
// harness against: a client that does nothing but the HTTP round trips of a
// session. It sends the conversation to Ollama's /api/chat, reads the
// streamed reply, and, while the reply holds a TOOL_CALL line, appends the
// reply and a fixed result and asks again. No parsing, no tools, no checks,
// each message encoded once, one read buffer for the whole run, and one
// connection: the least work a client can do. With -api openai it does the
// same over /v1/chat/completions, reading the reply's server-sent events.
//
//	refclient [-api ollama|openai] -host 127.0.0.1:PORT -model fake -result FILE -p PROMPT
//
// The answer goes to stdout.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
)

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type request struct {
	Model    string         `json:"model"`
	Messages []message      `json:"messages"`
	Options  map[string]any `json:"options,omitempty"`
	Stream   bool           `json:"stream,omitempty"`
	Stop     []string       `json:"stop,omitempty"`
}

type chunk struct {
	Message message `json:"message"`
	Done    bool    `json:"done"`
	Error   string  `json:"error"`
}

func main() {
	api := flag.String("api", "ollama", "the server's API: ollama (/api/chat) or openai (/v1/chat/completions)")
	host := flag.String("host", "127.0.0.1:11434", "server address")
	model := flag.String("model", "fake", "model name")
	resultFile := flag.String("result", "", "file whose text is sent back as every tool result")
	prompt := flag.String("p", "", "the user's prompt")
	system := flag.String("system", "Call tools with TOOL_CALL lines.", "system prompt")
	flag.Parse()
	result := ""
	if *resultFile != "" {
		b, err := os.ReadFile(*resultFile)
		if err != nil {
			fail(err)
		}
		result = string(b)
	}
	c := &client{url: "http://" + *host + "/api/chat", r: bufio.NewReaderSize(nil, 64<<10), read: readOllama}
	req := request{Model: *model, Messages: []message{}, Options: map[string]any{"num_ctx": 16384, "stop": []string{"\nTOOL_RESULT"}}}
	if *api == "openai" {
		c.url, c.read = "http://"+*host+"/v1/chat/completions", readOpenAI
		req.Options, req.Stream, req.Stop = nil, true, []string{"\nTOOL_RESULT"}
	}
	c.frame(req)
	c.add(message{"system", *system}, message{"user", *prompt})
	for n := 1; ; n++ {
		reply, err := c.chat()
		if err != nil {
			fail(err)
		}
		if !strings.Contains(reply, "TOOL_CALL") {
			fmt.Println(reply)
			return
		}
		c.add(message{"assistant", reply}, message{"user", fmt.Sprintf("TOOL_RESULT call_%d read_file SUCCESS\n%s", n, result)})
	}
}

// client talks to one server, reading every reply through the same buffer.
// The conversation only grows, so each request is the JSON of the messages
// so far, each encoded once, between the same head and tail.
type client struct {
	url        string
	read       func(c *client) (string, error) // reads the reply of one API
	r          *bufio.Reader
	long       []byte // a line longer than r's buffer, put together
	head, tail []byte // a request's JSON before and after its messages
	msgs       []byte // the messages' JSON, separated by commas
}

// frame splits the JSON of req, whose messages are empty, around them.
func (c *client) frame(req request) {
	b, err := json.Marshal(req)
	if err != nil {
		fail(err)
	}
	at := bytes.Index(b, []byte(`"messages":[`)) + len(`"messages":[`)
	c.head, c.tail = b[:at], b[at:]
}

// add appends messages to the conversation.
func (c *client) add(msgs ...message) {
	for _, m := range msgs {
		b, err := json.Marshal(m)
		if err != nil {
			fail(err)
		}
		if len(c.msgs) > 0 {
			c.msgs = append(c.msgs, ',')
		}
		c.msgs = append(c.msgs, b...)
	}
}

// chat sends the conversation and returns the streamed reply's content.
func (c *client) chat() (string, error) {
	body := func() io.Reader { return &net.Buffers{c.head, c.msgs, c.tail} }
	req, err := http.NewRequest(http.MethodPost, c.url, body())
	if err != nil {
		return "", err
	}
	req.ContentLength = int64(len(c.head) + len(c.msgs) + len(c.tail))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(body()), nil }
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %s", resp.Status)
	}
	c.r.Reset(resp.Body)
	return c.read(c)
}

// readOllama reads a reply of /api/chat: JSON lines up to the one that
// says done.
func readOllama(c *client) (string, error) {
	var content strings.Builder
	for {
		line, err := c.line()
		if len(bytes.TrimSpace(line)) > 0 {
			var ch chunk
			if err := json.Unmarshal(line, &ch); err != nil {
				return "", err
			}
			if ch.Error != "" {
				return "", fmt.Errorf("server: %s", ch.Error)
			}
			content.WriteString(ch.Message.Content)
			if ch.Done {
				// Read to the end, so that the connection is used again.
				for err == nil {
					_, err = c.line()
				}
				return content.String(), nil
			}
		}
		switch {
		case err == io.EOF:
			return "", fmt.Errorf("the reply ended before done")
		case err != nil:
			return "", err
		}
	}
}

// event is one chunk of a chat completions stream.
type event struct {
	Choices []struct {
		Delta message `json:"delta"`
	} `json:"choices"`
}

// readOpenAI reads a reply of /v1/chat/completions: server-sent events up
// to "data: [DONE]".
func readOpenAI(c *client) (string, error) {
	var content strings.Builder
	for {
		line, err := c.line()
		if data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data: ")); ok {
			if string(data) == "[DONE]" {
				// Read to the end, so that the connection is used again.
				for err == nil {
					_, err = c.line()
				}
				return content.String(), nil
			}
			var e event
			if err := json.Unmarshal(data, &e); err != nil {
				return "", err
			}
			for _, ch := range e.Choices {
				content.WriteString(ch.Delta.Content)
			}
		}
		switch {
		case err == io.EOF:
			return "", fmt.Errorf("the reply ended before [DONE]")
		case err != nil:
			return "", err
		}
	}
}

// line reads the next line of the reply, valid until the next call.
func (c *client) line() ([]byte, error) {
	line, err := c.r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	c.long = append(c.long[:0], line...)
	for err == bufio.ErrBufferFull {
		line, err = c.r.ReadSlice('\n')
		c.long = append(c.long, line...)
	}
	return c.long, err
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "refclient:", err)
	os.Exit(1)
}
