package view

import (
	"os"

	"golang.org/x/term"
)

// StyleFor is the style of output to w: coloured when w is a terminal
// that shows colours (on Windows, a console that can) and NO_COLOR is not
// set.
func StyleFor(w any) Style {
	return Style(os.Getenv("NO_COLOR") == "" && Interactive(w) && ANSI(w))
}

// ActivityFor reports whether an activity indicator may be drawn on w
// (Turn.Activity): when it is coloured (StyleFor) and TERM does not say
// the terminal is dumb, one that cannot move its cursor back.
func ActivityFor(w any) bool {
	return bool(StyleFor(w)) && os.Getenv("TERM") != "dumb"
}

// Interactive reports whether r (a reader or a writer) is a terminal,
// whatever NO_COLOR says: someone may answer at it, or read colours. A
// character device that is no terminal, such as /dev/null, is not.
func Interactive(r any) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
