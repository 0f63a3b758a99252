package view

import (
	"os"

	"golang.org/x/sys/windows"
)

// ANSI reports whether w, a terminal, shows ANSI escape sequences (colours,
// and the line editor's moves): on Windows, a console does once its
// virtual terminal processing is on, which ANSI turns on, and which
// consoles older than Windows 10 cannot do. Other writers do not.
func ANSI(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	h := windows.Handle(f.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		return false
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
