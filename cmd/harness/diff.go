package main

import (
	"strings"

	"harness/approve"
)

// diffText paints a diff's lines on a terminal that wants colours, and
// escapes what a terminal would act on, since the text comes from files
// and from the model.
func (s style) diffText(diff string) string {
	diff = approve.Visible(diff)
	if !s {
		return diff
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(diff, "\n") {
		body, nl := strings.CutSuffix(line, "\n")
		switch {
		case strings.HasPrefix(body, "+++ "), strings.HasPrefix(body, "--- "):
			body = s.paint("1", body)
		case strings.HasPrefix(body, "@@"):
			body = s.paint("36", body)
		case strings.HasPrefix(body, "+"):
			body = s.good(body)
		case strings.HasPrefix(body, "-"):
			body = s.bad(body)
		}
		b.WriteString(body)
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
