package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/alecthomas/kong"

	"harness/xdg"
)

// configCmd prints the settings a chat with the same flags would use.
type configCmd struct {
	providerFlags `embed:""`
}

// Run prints the settings file's path, then each setting, its value and
// where the value came from: a flag, the environment, the file and line,
// or the default. The API key shows as [redacted], never itself.
func (c *configCmd) Run(std stdio, k *kong.Context, dirs xdg.Dirs) error {
	p, err := c.choose(flagsGiven(k), dirs, sampling{})
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	return p.writeSettings(std.out)
}

// writeSettings writes where the settings file is and the settings in
// use, one a line, aligned.
func (p *providers) writeSettings(w io.Writer) error {
	var b strings.Builder
	if p.file.Path == "" {
		fmt.Fprintf(&b, "settings file: %s (no such file)\n", p.path)
	} else {
		fmt.Fprintf(&b, "settings file: %s\n", p.path)
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SETTING\tVALUE\tFROM")
	for _, r := range p.cur.Rows() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Key, r.Value, r.Source)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}
