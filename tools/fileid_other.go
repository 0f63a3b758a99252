//go:build !unix

package tools

import "io/fs"

// fileID reports no identity: where the system gives none through
// fs.FileInfo, protection follows paths only.
func fileID(fs.FileInfo) (id, bool) { return id{}, false }

// links reports one name: fs.FileInfo gives no link count here.
func links(fs.FileInfo) uint64 { return 1 }
