package gitdir

import (
	"strings"
)

// Value returns the last value that config, the text of a git
// configuration file, gives the variable key of section (both without
// case, as git compares them; a section with a subsection, [core "x"],
// is another), and whether it gives one. It reads the forms git writes:
// key = value, the value quoted or not, a comment after # or ; outside
// quotes, and \" and \\ in quotes. Includes are not followed.
func Value(config, section, key string) (string, bool) {
	var value string
	found, in := false, false
	for line := range strings.Lines(config) {
		s := strings.TrimSpace(line)
		if strings.HasPrefix(s, "[") {
			end := strings.IndexByte(s, ']')
			if end < 0 {
				in = false
				continue
			}
			name := strings.TrimSpace(s[1:end])
			in = strings.EqualFold(name, section)
			s = strings.TrimSpace(s[end+1:]) // a variable may follow on the line
		}
		if !in || s == "" || s[0] == '#' || s[0] == ';' {
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), key) {
			continue
		}
		value, found = unquote(strings.TrimSpace(v)), true
	}
	return value, found
}

// unquote returns a configuration value as git reads it: quotes removed,
// \" and \\ and \t and \n taken for what they stand for, and a comment
// outside quotes cut off, with the spaces before it.
func unquote(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			default:
				b.WriteByte(v[i])
			}
		case !quoted && (c == '#' || c == ';'):
			return strings.TrimRight(b.String(), " \t")
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimRight(b.String(), " \t")
}
