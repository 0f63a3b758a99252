//go:build !unix

package mcp

import "syscall"

// procAttr is the default elsewhere: Close ends the program.
func procAttr() *syscall.SysProcAttr { return nil }
