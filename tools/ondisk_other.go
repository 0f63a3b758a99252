//go:build !windows

package tools

// onDisk returns path: outside Windows a file has no second, short name,
// and where case does not count (macOS) the checks by name ignore it
// (fence.Host).
func onDisk(path string) string { return path }
