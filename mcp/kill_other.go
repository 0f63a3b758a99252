//go:build !unix

package mcp

import "os"

// killAll kills the program p; elsewhere than unix, the programs it
// started are left to end when their input does.
func killAll(p *os.Process) { p.Kill() }
