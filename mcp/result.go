package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// body is the text of a tool's result as the model reads it: text content
// as it is, every other content in one line, the parts one after another;
// structured content as JSON when there is nothing else.
func body(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, content(c))
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

// content is one part of a result.
func content(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource link: %s]", fold(c.URI))
	case *sdk.EmbeddedResource:
		r := c.Resource
		switch {
		case r == nil:
			return "[resource: empty]"
		case r.Text != "":
			return r.Text
		default:
			return fmt.Sprintf("[resource: %s, %s, %d bytes]", fold(r.URI), orUnknown(r.MIMEType), len(r.Blob))
		}
	}
	return fmt.Sprintf("[content of type %T, not shown]", c)
}

func orUnknown(mime string) string {
	if mime = fold(mime); mime == "" {
		return "unknown type"
	}
	return mime
}
