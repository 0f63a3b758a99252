//go:build !linux

package tools

// folderWatch is the watch of folders where the system has none the
// harness uses: the folders' times are looked at instead.
type folderWatch struct{}

func newFolderWatch() *folderWatch       { return &folderWatch{} }
func (w *folderWatch) reset() bool       { return false }
func (w *folderWatch) add(string) bool   { return false }
func (w *folderWatch) changed() bool     { return true }
func (w *folderWatch) close()            {}
func (w *folderWatch) take(*folderWatch) {}
