package sandbox

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// alive reports whether pid runs and is no zombie, waiting a little for
// the kernel to deliver the kill.
func alive(pid int) bool {
	for range 50 {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false
		}
		if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
