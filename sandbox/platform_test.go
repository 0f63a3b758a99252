package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"harness/fence"
)

// Close ends a command still running, and what it started, and no
// command runs after it: on macOS nothing else ends a command when the
// harness exits.
func TestCloseEndsRunningCommands(t *testing.T) {
	ws, _ := dirs(t)
	s := newSandbox(t, Config{Mode: None, Dir: ws})
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := s.Run(context.Background(), Command{Script: "sleep 60 & echo $! > pid; wait"})
		done <- outcome{res, err}
	}()
	var pid int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		data, err := os.ReadFile(filepath.Join(ws, "pid"))
		s.mu.Lock()
		running := len(s.live)
		s.mu.Unlock()
		if err == nil && running == 1 && strings.HasSuffix(string(data), "\n") {
			if pid, err = strconv.Atoi(strings.TrimSpace(string(data))); err != nil {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case o := <-done:
		if o.err != nil || o.res.Exit != -1 {
			t.Errorf("the closed command: %+v, %v; want a kill", o.res, o.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end the running command")
	}
	if alive(pid) {
		t.Errorf("the background child %d outlived Close", pid)
	}
	if _, err := s.Run(context.Background(), Command{Script: "true"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close: %v, want ErrClosed", err)
	}
}

// On Windows, variable names have no case (Path is PATH), PATH is split
// at semicolons and may quote a folder, and the variables Windows
// programs need are kept; elsewhere, none of this.
func TestEnvWindows(t *testing.T) {
	environ := []string{
		`Path=C:\Windows\system32;"C:\Program Files\Git\bin";C:\ws\node_modules\.bin;bin;C:\wsx\bin;c:\WS\tools`,
		`SystemRoot=C:\Windows`, `ComSpec=C:\Windows\system32\cmd.exe`, `PATHEXT=.COM;.EXE;.BAT`,
		`USERPROFILE=C:\Users\me`, `home=C:\Users\me`, `TEMP=C:\Users\me\AppData\Local\Temp`,
		`GITHUB_TOKEN=ghp_x`, `OpenAI_Api_Key=sk-abc`, `EDITOR=notepad`, `GOPROXY=https://u:p@proxy.example`,
	}
	got := env(environ, `C:\ws`, fence.Windows)
	want := []string{
		`Path=C:\Windows\system32;C:\Program Files\Git\bin;C:\wsx\bin`,
		`SystemRoot=C:\Windows`, `ComSpec=C:\Windows\system32\cmd.exe`, `PATHEXT=.COM;.EXE;.BAT`,
		`USERPROFILE=C:\Users\me`, `home=C:\Users\me`, `TEMP=C:\Users\me\AppData\Local\Temp`,
	}
	if kept := got[:len(got)-len(fixedVars)]; !slices.Equal(kept, want) {
		t.Errorf("kept\n%q\nwant\n%q", kept, want)
	}
	if got := env([]string{`SystemRoot=C:\Windows`, "Path=/usr/bin", "path=/bin"}, "/ws", fence.Unix); len(got) != len(fixedVars) {
		t.Errorf("outside Windows, kept %q", got[:len(got)-len(fixedVars)])
	}
}

// Auto tries this system's sandboxes in order: on Linux bwrap, then
// Landlock; a mode for another system's sandbox is a clear error.
func TestModesOfThisSystem(t *testing.T) {
	ws, _ := dirs(t)
	if Preferred() != Bwrap || !slices.Equal(autoTiers(), []Mode{Bwrap, Landlock}) {
		t.Skip("not Linux")
	}
	if _, err := New(Config{Mode: "sandbox-exec", Dir: ws}); err == nil || !strings.Contains(err.Error(), "seatbelt") {
		t.Errorf("an unknown mode: %v", err)
	}
	s := newSandbox(t, Config{Mode: Seatbelt, Dir: ws})
	if err := s.Start(context.Background()); !errors.Is(err, ErrUnavailable) {
		t.Errorf("seatbelt on Linux: %v", err)
	}
}
