//go:build unix

package mcp

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shServer is a server written in sh: it answers initialize and
// tools/list, with one tool, "big", then runs then, which reads nothing
// more.
func shServer(then string) Server {
	script := `read -r line
echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"sh","version":"1"}}}'
read -r line
read -r line
echo '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"big","inputSchema":{"type":"object"}}]}}'
` + then
	return Server{Name: "sh", Command: "/bin/sh", Args: []string{"-c", script}, Env: map[string]string{"PATH": os.Getenv("PATH")}, Timeout: time.Second}
}

// A program that stops reading its input holds up neither a call, which
// ends at its timeout, nor Close, which kills it after its grace period.
func TestServerStopsReading(t *testing.T) {
	ss := Start(context.Background(), []Server{shServer("exec sleep 30")})
	defer ss.Close()
	if err := ss.Status()[0].Err; err != nil {
		t.Fatal(err)
	}
	run := ss.clients[0].caller("big")
	begin := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := run(context.Background(), map[string]any{"data": strings.Repeat("x", 1<<20)})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "did not answer within 1s") {
			t.Errorf("the call: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("the call still runs %s after it began, with a timeout of 1s", time.Since(begin))
	}
	closed := make(chan struct{})
	go func() { ss.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(stopWait + 3*time.Second):
		t.Fatalf("Close still runs after %s", stopWait+3*time.Second)
	}
}

// Close ends the programs a server's program started, as npx and uvx
// start the server itself.
func TestCloseEndsChildren(t *testing.T) {
	pidFile := t.TempDir() + "/child"
	ss := Start(context.Background(), []Server{shServer("sleep 300 & echo $! > " + pidFile + "\nexec sleep 300")})
	if err := ss.Status()[0].Err; err != nil {
		t.Fatal(err)
	}
	pid := childPid(t, pidFile)
	ss.Close()
	if !ended(pid) {
		t.Error("the child runs on after Close")
	}
}

// childPid returns the pid a server's program wrote to file, once it has.
func childPid(t *testing.T, file string) int {
	t.Helper()
	var data []byte
	for range 50 {
		if data, _ = os.ReadFile(file); strings.HasSuffix(string(data), "\n") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("the child's pid: %v", err)
	}
	return pid
}

// ended reports whether the program pid ends within five seconds: it is
// gone, or a zombie that a reaper above the test has yet to reap. One
// that does not end is killed.
func ended(pid int) bool {
	for range 50 {
		if syscall.Kill(pid, 0) != nil || zombie(pid) {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	return false
}

// zombie reports whether pid has ended and is not reaped yet, where /proc
// tells.
func zombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(data, ')')
	return err == nil && i >= 0 && bytes.HasPrefix(bytes.TrimSpace(data[i+1:]), []byte("Z"))
}

// An ESC that a server puts in what the harness shows of it (a tool's
// name or description, an error, what it wrote to stderr) never reaches
// the terminal as an ESC.
func TestNoEscapeFromServers(t *testing.T) {
	listing := shServer("")
	listing.Args[1] = strings.Replace(listing.Args[1], `{"name":"big",`, `{"name":"red\u001b[31m","inputSchema":{}},{"name":"big","description":"\u001b[2J all \u202egone",`, 1)
	refusing := Server{Name: "no", Command: "/bin/sh", Args: []string{"-c", `read -r line
printf '\033[31mred on stderr\n' >&2
echo '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"\u001b]0;title\u0007 no"}}'
read -r line`}, Timeout: 5 * time.Second}
	dying := shServer(`printf '\033[2Jbye\n' >&2`)
	ss := Start(context.Background(), []Server{listing, refusing, dying})
	defer ss.Close()
	if _, err := ss.clients[2].caller("big")(context.Background(), nil); err == nil {
		t.Error("a call of a server that ended worked")
	} else if strings.ContainsAny(err.Error(), "\x1b\u202e") {
		t.Errorf("the error of a call holds an escape: %q", err)
	}
	for _, st := range ss.Status() {
		var b strings.Builder
		st.Write(&b)
		for _, out := range []string{b.String(), st.StartNote()} {
			if strings.ContainsAny(out, "\x1b\x07\u202e") {
				t.Errorf("%s: what the user reads holds an escape: %q", st.Server.Name, out)
			}
		}
	}
}
