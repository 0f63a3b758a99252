//go:build !linux

package tools

// folderWatch is the watch of folders where the system has none the
// harness uses: the folders' times are looked at instead.
type folderWatch struct{}

// watchesWrites: no watch, no writes seen.
const watchesWrites = false

func newFolderWatch() *folderWatch                    { return &folderWatch{} }
func (w *folderWatch) reset() bool                    { return false }
func (w *folderWatch) add(string) bool                { return false }
func (w *folderWatch) changed() (changed, wrote bool) { return true, true }
func (w *folderWatch) close()                         {}
func (w *folderWatch) take(*folderWatch)              {}
