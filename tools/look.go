package tools

import (
	"io/fs"
	"time"
)

// lookInfo is what os.Lstat tells of a file, in about 80 bytes where
// os.Lstat's answer takes about 200: a walk keeps one for each folder of
// the workspace, for the run (see readFolders). It is an fs.FileInfo
// whose Sys is nil; fileID, changeTime and links read it as they read
// os.Lstat's answer.
type lookInfo struct {
	name    string
	size    int64
	modSec  int64 // the modification time, as the system gives it
	modNsec int64
	change  int64 // changeTime's answer
	id      id
	links   uint64
	mode    fs.FileMode
	hasID   bool // fileID's answer
}

func (l *lookInfo) Name() string       { return l.name }
func (l *lookInfo) Size() int64        { return l.size }
func (l *lookInfo) Mode() fs.FileMode  { return l.mode }
func (l *lookInfo) ModTime() time.Time { return time.Unix(l.modSec, l.modNsec) }
func (l *lookInfo) IsDir() bool        { return l.mode.IsDir() }
func (l *lookInfo) Sys() any           { return nil }

// stamp is stampFrom(l), without l leaving the stack.
func (l *lookInfo) stamp() stamp {
	return stamp{exists: true, mod: l.ModTime(), size: l.size, change: l.change}
}

// lookOf returns what fi tells, kept as a lookInfo.
func lookOf(fi fs.FileInfo) lookInfo {
	t := fi.ModTime()
	fid, ok := fileID(fi)
	return lookInfo{name: fi.Name(), size: fi.Size(), mode: fi.Mode(), modSec: t.Unix(), modNsec: int64(t.Nanosecond()),
		change: changeTime(fi), id: fid, hasID: ok, links: links(fi)}
}

// lookSlab hands out the looks a walk keeps from blocks of many: one
// allocation for many folders.
type lookSlab []lookInfo

func (s *lookSlab) keep(l lookInfo) *lookInfo {
	if len(*s) == cap(*s) {
		*s = make([]lookInfo, 0, 256)
	}
	*s = append(*s, l)
	return &(*s)[len(*s)-1]
}

// fileID returns what names fi's file wherever it is moved: its device and
// inode, which a rename or a hard link keeps.
func fileID(fi fs.FileInfo) (id, bool) {
	if l, ok := fi.(*lookInfo); ok {
		return l.id, l.hasID
	}
	return sysFileID(fi)
}

// links returns how many names (hard links) fi's file has, or 1 where the
// system does not say.
func links(fi fs.FileInfo) uint64 {
	if l, ok := fi.(*lookInfo); ok {
		return l.links
	}
	return sysLinks(fi)
}

// changeTime returns when fi's file last changed in any way (its
// contents, its mode, its times), which no program can set back: 0 where
// the system does not say.
func changeTime(fi fs.FileInfo) int64 {
	if l, ok := fi.(*lookInfo); ok {
		return l.change
	}
	return sysChangeTime(fi)
}
