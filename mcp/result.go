package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxResult bounds the text of a result the harness keeps, in bytes, as
// the tools bound a command's output.
const maxResult = 4 << 20

// result is the result of tools/call.
type result struct {
	Content           []content `json:"content"`
	StructuredContent any       `json:"structuredContent"`
	IsError           bool      `json:"isError"`
}

// content is one part of a result: its type says which fields it has.
type content struct {
	Type     string `json:"type"`
	Text     string `json:"text"`     // text
	MIMEType string `json:"mimeType"` // image, audio
	Data     string `json:"data"`     // image, audio: base64
	URI      string `json:"uri"`      // resource_link
	Resource *struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType"`
		Text     string `json:"text"`
		Blob     string `json:"blob"` // base64
	} `json:"resource"` // resource
}

// body is the text of a tool's result as the model reads it: text content
// as it is, every other content in one line, the parts one after another;
// structured content as JSON when there is nothing else.
func (res *result) body() string {
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, c.String())
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

// bounded is a result's text cut to maxResult bytes, at a character's
// start, saying so.
func bounded(text string) string {
	if len(text) <= maxResult {
		return text
	}
	n := maxResult
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n] + fmt.Sprintf("\n[cut here: the result held %d bytes; the harness keeps the first %d]", len(text), n)
}

// String is one part of a result as the model reads it.
func (c content) String() string {
	switch c.Type {
	case "text":
		return c.Text
	case "image":
		return fmt.Sprintf("[image: %s, %d bytes]", orUnknown(c.MIMEType), decodedLen(c.Data))
	case "audio":
		return fmt.Sprintf("[audio: %s, %d bytes]", orUnknown(c.MIMEType), decodedLen(c.Data))
	case "resource_link":
		return fmt.Sprintf("[resource link: %s]", fold(c.URI))
	case "resource":
		r := c.Resource
		switch {
		case r == nil:
			return "[resource: empty]"
		case r.Text != "":
			return r.Text
		default:
			return fmt.Sprintf("[resource: %s, %s, %d bytes]", fold(r.URI), orUnknown(r.MIMEType), decodedLen(r.Blob))
		}
	}
	return fmt.Sprintf("[content of type %q, not shown]", fold(c.Type))
}

// decodedLen is the length of the bytes that base64 text holds.
func decodedLen(b64 string) int {
	n := len(strings.TrimRight(b64, "="))
	return n * 3 / 4
}

func orUnknown(mime string) string {
	if mime = fold(mime); mime == "" {
		return "unknown type"
	}
	return mime
}
