package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// StatusError is an HTTP error status the server answered with.
type StatusError struct {
	StatusCode int
	// Message is the server's error message, or the body as it was, with
	// the API key replaced by "[redacted]" wherever the server quoted it.
	Message string
	// Code is the error's code field, such as "insufficient_quota", when
	// the server gave one.
	Code string
	// Tries is how many times the request was sent.
	Tries int
	// RetryAfter is the wait the server asked for, when it asked.
	RetryAfter time.Duration
}

func (e *StatusError) Error() string {
	text := fmt.Sprintf("HTTP %d", e.StatusCode)
	if e.Message != "" {
		text += ": " + e.Message
	} else if t := http.StatusText(e.StatusCode); t != "" {
		text += " " + t
	}
	switch {
	case e.Tries > 1:
		text += fmt.Sprintf(" (asked %d times)", e.Tries)
	case e.RetryAfter > maxWait:
		text += fmt.Sprintf(" (not asked again: the server asks for a wait of %s)", e.RetryAfter)
	}
	return text
}

const (
	// maxRetries is how many times a request refused as busy is sent again.
	maxRetries = 3
	// firstBackoff is the first wait before sending again, when the server
	// does not say; each next wait is twice the one before.
	firstBackoff = time.Second
	// maxWait is the longest wait the server may ask for and still be
	// asked again.
	maxWait = time.Minute
	// maxErrorBody bounds how much of an error reply is read.
	maxErrorBody = 64 << 10
)

// chunk is one event of a streamed reply.
type chunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          string `json:"content"`
			ReasoningContent loose  `json:"reasoning_content"`
			Reasoning        loose  `json:"reasoning"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	// Error is the error event of a stream, in either shape errorMessage
	// reads.
	Error json.RawMessage `json:"error"`
}

// loose is a string field that some servers fill with something else,
// which is then ignored.
type loose string

func (l *loose) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '"' {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*l = loose(s)
	return nil
}

// stopped is an error event in the middle of a reply's stream.
type stopped struct{ msg string }

func (e *stopped) Error() string { return e.msg }

// apiError is the error object of an OpenAI-shaped error reply.
type apiError struct {
	Message string          `json:"message"`
	Code    json.RawMessage `json:"code"`
}

// code is the error's code, when it is a string.
func (e *apiError) code() string {
	var s string
	if json.Unmarshal(e.Code, &s) == nil {
		return s
	}
	return ""
}

// post sends body to BASE/chat/completions, asking again while the server
// is busy, and calls fn with each chunk of the streamed reply. An HTTP error
// status is a *StatusError, an error event in the stream a *stopped.
func (m *Model) post(ctx context.Context, body []byte, fn func(*chunk)) error {
	endpoint := m.base.JoinPath("chat", "completions").String()
	for tries := 1; ; tries++ {
		hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
		if err != nil {
			return err
		}
		hreq.Header.Set("Content-Type", "application/json")
		hreq.Header.Set("Accept", "text/event-stream")
		m.authorize(hreq)
		resp, err := m.http.Do(hreq)
		if err != nil {
			return err
		}
		if resp.StatusCode < http.StatusBadRequest {
			defer resp.Body.Close()
			return m.read(resp, fn)
		}
		status := m.statusError(resp)
		resp.Body.Close()
		status.Tries = tries
		wait, again := retry(status, tries)
		if !again {
			return status
		}
		if err := m.sleep(ctx, wait); err != nil {
			return err
		}
	}
}

func (m *Model) authorize(hreq *http.Request) {
	if m.opts.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+m.opts.APIKey)
	}
}

// retry says whether a request refused with status is sent again, and
// after how long.
func retry(status *StatusError, tries int) (time.Duration, bool) {
	switch status.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable:
	default:
		return 0, false
	}
	if tries > maxRetries || status.Code == "insufficient_quota" || status.RetryAfter > maxWait {
		return 0, false
	}
	if status.RetryAfter > 0 {
		return status.RetryAfter, true
	}
	return firstBackoff << (tries - 1), true
}

// statusError reads the error reply resp: the message of an OpenAI-shaped
// {"error": {...}} body, Ollama's {"error": "..."}, or the body as it is.
func (m *Model) statusError(resp *http.Response) *StatusError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	body = bytes.TrimSpace(body)
	status := &StatusError{StatusCode: resp.StatusCode, Message: string(body), RetryAfter: retryAfter(resp.Header, time.Now())}
	var obj struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &obj) == nil {
		if msg, code := errorMessage(obj.Error); msg != "" {
			status.Message, status.Code = msg, code
		}
	}
	status.Message = m.redact(status.Message)
	return status
}

// errorMessage reads the error field of a reply or of a stream's event:
// OpenAI's {"message": ..., "code": ...} or Ollama's plain string. Both
// are "" when it is neither, or empty.
func errorMessage(raw json.RawMessage) (msg, code string) {
	var e apiError
	var s string
	switch {
	case len(raw) == 0:
	case json.Unmarshal(raw, &e) == nil && e.Message != "":
		return e.Message, e.code()
	case json.Unmarshal(raw, &s) == nil:
		return s, ""
	}
	return "", ""
}

// redact takes the API key out of a text the server wrote.
func (m *Model) redact(s string) string {
	if m.opts.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, m.opts.APIKey, "[redacted]")
}

// retryAfter reads how long the server asks the client to wait: the
// retry-after-ms header OpenAI sends, or Retry-After in seconds or as a
// date. Zero means it did not say.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return max(0, time.Duration(s*float64(time.Second)))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now))
	}
	return 0
}

// read reads the stream of server-sent events of a reply and calls fn
// with each chunk. The stream is complete when a choice has a
// finish_reason or the server sends [DONE].
func (m *Model) read(resp *http.Response, fn func(*chunk)) error {
	ev := newEvents(resp.Body)
	done := false
	var c chunk
	for {
		data, err := ev.next()
		if err == io.EOF {
			if !done {
				// A reply cut short in transit is not a reply: its calls
				// may be missing their ends.
				return ErrIncomplete
			}
			return nil
		}
		if err != nil {
			return err
		}
		if string(data) == "[DONE]" {
			done = true
			continue
		}
		c = chunk{}
		if err := json.Unmarshal(data, &c); err != nil {
			return fmt.Errorf("reading the reply: %w", err)
		}
		if len(c.Error) > 0 && string(c.Error) != "null" {
			msg, _ := errorMessage(c.Error)
			if msg == "" {
				msg = string(c.Error)
			}
			return &stopped{m.redact(msg)}
		}
		for _, ch := range c.Choices {
			done = done || ch.FinishReason != ""
		}
		fn(&c)
	}
}
