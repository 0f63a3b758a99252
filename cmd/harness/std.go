package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// Exit codes.
const (
	exitOK        = 0
	exitError     = 1
	exitUsage     = 2
	exitLimit     = 3
	exitInterrupt = 130
)

// stdio is where a command reads its input and writes its output and its
// messages. Commands take it, and the context, as arguments of Run: both
// are bound to the parser.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// exitCodeError ends the program with a given code after its message.
type exitCodeError struct {
	code int
	err  error
}

func (e *exitCodeError) Error() string { return e.err.Error() }
func (e *exitCodeError) Unwrap() error { return e.err }

// version is this harness's, as --version says it.
func version() string {
	info, _ := debug.ReadBuildInfo()
	return versionOf(info)
}

// versionOf says which harness info describes: the module's version when
// it was built as one (go install harness@v1.2.3), else "dev" and the
// commit it was built from, when the build recorded it.
func versionOf(info *debug.BuildInfo) string {
	if info == nil {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(len(s.Value), 12)]
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", with changes not committed"
			}
		}
	}
	if rev == "" {
		return "dev"
	}
	if at != "" {
		at = " of " + at
	}
	return fmt.Sprintf("dev (commit %s%s%s)", rev, at, modified)
}
