//go:build unix

package tools

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"harness/protocol"
)

// A named pipe with no writer blocks whoever opens it for reading: the
// tools must refuse it without opening it that way.
func TestFIFORefused(t *testing.T) {
	ws := newWorkspace(t, nil)
	if err := syscall.Mkfifo(filepath.Join(ws.Root(), "pipe"), 0o644); err != nil {
		t.Skip("cannot make a named pipe:", err)
	}
	tests := []struct {
		tool Tool
		args map[string]any
	}{
		{ReadFile(ws), map[string]any{"path": "pipe"}},
		{EditFile(ws), map[string]any{"path": "pipe", "old_text": "a", "new_text": "b"}},
		{EditFile(ws), map[string]any{"path": "pipe", "old_text": "", "new_text": "b"}},
		{WriteFile(ws), map[string]any{"path": "pipe", "content": "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool.Spec().Name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := tt.tool.run(t.Context(), tt.args)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil {
					t.Error("a named pipe was accepted")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the tool hangs on a named pipe")
			}
		})
	}
}

func TestOpenRegularRefusesFIFO(t *testing.T) {
	ws := newWorkspace(t, nil)
	pipe := filepath.Join(ws.Root(), "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skip("cannot make a named pipe:", err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := openRegular(ws, pipe, "pipe")
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		checkErr(t, err, ErrNotRegular)
	case <-time.After(5 * time.Second):
		t.Fatal("openRegular hangs on a named pipe")
	}
}

// TestIgnoreFileThatIsAPipe: a named pipe where .gitignore goes must not
// hang the tools that look for secrets.
func TestIgnoreFileThatIsAPipe(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "a\n"})
	if err := syscall.Mkfifo(filepath.Join(ws.Root(), ".gitignore"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	set, err := NewSet(ReadFile(ws), ListFiles(ws))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan protocol.Result, 2)
	go func() {
		done <- set.Run(context.Background(), protocol.Call{ID: "call_1", Name: "list_files", Args: map[string]any{}})
		done <- set.Run(context.Background(), protocol.Call{ID: "call_2", Name: "read_file", Args: map[string]any{"path": "a.txt"}})
	}()
	for range 2 {
		select {
		case res := <-done:
			if !res.OK {
				t.Errorf("%s: %s", res.Tool, res.Body)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a tool hung on a .gitignore that is a named pipe")
		}
	}
}

// mkfifo makes a named pipe at path.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

// ReadHead refuses a named pipe without waiting for a writer, and reads no
// more of a file than it is asked.
func TestReadHead(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skip("cannot make a named pipe:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := ReadHead(pipe, 10)
		done <- err
	}()
	select {
	case err := <-done:
		checkErr(t, err, ErrNotRegular)
	case <-time.After(5 * time.Second):
		t.Fatal("ReadHead hangs on a named pipe")
	}
	_, _, err := ReadHead(dir, 10)
	checkErr(t, err, ErrNotRegular)
	_, _, err = ReadHead(filepath.Join(dir, "missing"), 10)
	checkErr(t, err, fs.ErrNotExist)

	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("0123456789abcdef"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, size, err := ReadHead(file, 10)
	if err != nil || string(data) != "0123456789a" || size != 16 {
		t.Errorf("ReadHead = %q, %d, %v; want the first 11 bytes of 16", data, size, err)
	}
}
