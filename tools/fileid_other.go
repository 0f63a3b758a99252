//go:build !unix

package tools

import "io/fs"

// fileID reports no identity: where the system gives none through
// fs.FileInfo, protection follows paths only.
func fileID(fs.FileInfo) (id, bool) { return id{}, false }

// links reports one name: without identities, a link cannot be told from
// another file.
func links(fs.FileInfo) uint64 { return 1 }
