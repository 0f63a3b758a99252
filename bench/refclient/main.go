// Command refclient is the floor the end-to-end benchmark measures the
// harness against: a client that does nothing but the HTTP round trips of a
// session. It sends the conversation to Ollama's /api/chat, reads the
// streamed reply, and, while the reply holds a TOOL_CALL line, appends the
// reply and a fixed result and asks again. No parsing, no tools, no checks,
// one read buffer for the whole run, and one connection: the least work a
// client can do.
//
//	refclient -host 127.0.0.1:PORT -model fake -result FILE -p PROMPT
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
	Options  map[string]any `json:"options"`
}

type chunk struct {
	Message message `json:"message"`
	Done    bool    `json:"done"`
	Error   string  `json:"error"`
}

func main() {
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
	req := request{
		Model:    *model,
		Messages: []message{{"system", *system}, {"user", *prompt}},
		Options:  map[string]any{"num_ctx": 16384, "stop": []string{"\nTOOL_RESULT"}},
	}
	c := &client{url: "http://" + *host + "/api/chat", r: bufio.NewReaderSize(nil, 64<<10)}
	for n := 1; ; n++ {
		reply, err := c.chat(&req)
		if err != nil {
			fail(err)
		}
		if !strings.Contains(reply, "TOOL_CALL") {
			fmt.Println(reply)
			return
		}
		req.Messages = append(req.Messages,
			message{"assistant", reply},
			message{"user", fmt.Sprintf("TOOL_RESULT call_%d read_file SUCCESS\n%s", n, result)})
	}
}

// client talks to one server, reading every reply through the same buffer.
type client struct {
	url  string
	r    *bufio.Reader
	long []byte // a line longer than r's buffer, put together
}

// chat sends req and returns the streamed reply's content.
func (c *client) chat(req *request) (string, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	resp, err := http.Post(c.url, "application/json", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %s", resp.Status)
	}
	c.r.Reset(resp.Body)
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
