// Command refclient is the floor the end-to-end benchmark measures the
// harness against: a client that does nothing but the HTTP round trips of a
// session. It sends the conversation to Ollama's /api/chat, reads the
// streamed reply, and, while the reply holds a TOOL_CALL line, appends the
// reply and a fixed result and asks again. No parsing, no tools, no checks.
// With -api openai it does the same over /v1/chat/completions, reading the
// reply's server-sent events.
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
	req := request{
		Model:    *model,
		Messages: []message{{"system", *system}, {"user", *prompt}},
		Options:  map[string]any{"num_ctx": 16384, "stop": []string{"\nTOOL_RESULT"}},
	}
	url, chat := "http://"+*host+"/api/chat", chatOllama
	if *api == "openai" {
		req.Options, req.Stream, req.Stop = nil, true, []string{"\nTOOL_RESULT"}
		url, chat = "http://"+*host+"/v1/chat/completions", chatOpenAI
	}
	for n := 1; ; n++ {
		reply, err := chat(url, &req)
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

// chatOllama sends req to /api/chat and returns the streamed reply's
// content.
func chatOllama(url string, req *request) (string, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %s", resp.Status)
	}
	var content strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
	for sc.Scan() {
		var c chunk
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return "", err
		}
		if c.Error != "" {
			return "", fmt.Errorf("server: %s", c.Error)
		}
		content.WriteString(c.Message.Content)
		if c.Done {
			return content.String(), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("the reply ended before done")
}

// event is one chunk of a chat completions stream.
type event struct {
	Choices []struct {
		Delta        message `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
}

// chatOpenAI sends req to /v1/chat/completions and returns the streamed
// reply's content.
func chatOpenAI(url string, req *request) (string, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %s", resp.Status)
	}
	var content strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
	for sc.Scan() {
		data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok {
			continue
		}
		if string(data) == "[DONE]" {
			return content.String(), nil
		}
		var e event
		if err := json.Unmarshal(data, &e); err != nil {
			return "", err
		}
		for _, c := range e.Choices {
			content.WriteString(c.Delta.Content)
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("the reply ended before [DONE]")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "refclient:", err)
	os.Exit(1)
}
