//go:build !unix

package tools

import "io/fs"

// sysFileID reports no identity: where the system gives none through
// fs.FileInfo, protection follows paths only.
func sysFileID(fs.FileInfo) (id, bool) { return id{}, false }

// sysLinks reports one name: fs.FileInfo gives no link count here.
func sysLinks(fs.FileInfo) uint64 { return 1 }
