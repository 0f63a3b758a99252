// Command launch runs a command and reports what it cost, for bench/e2e:
//
//	launch CMD [ARG...]
//
// runs CMD with launch's input, output and environment, and writes one line
// to file descriptor 3: the wall time and CPU time (user and system) of the
// command in nanoseconds and its peak resident set in bytes (-1 when the
// system does not tell), separated by spaces. It exits with the command's
// exit code. Run with no command, it does nothing: its own peak resident
// set is then the least any command it runs can report.
//
// bench/e2e does not start the programs it measures itself: on Linux a
// new program's peak resident set starts from that of the process that
// started it, and e2e holds whole request logs in memory. launch stays
// small, so the figure is the command's own.
package main

import (
	"os"
	"os/exec"
	"strconv"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		return
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	begin := time.Now()
	err := cmd.Run()
	wall := time.Since(begin)
	ps := cmd.ProcessState
	if ps == nil {
		fail(err)
	}
	// strconv, not fmt: launch's own memory is the floor of what it reports.
	line := strconv.AppendInt(nil, int64(wall), 10)
	line = strconv.AppendInt(append(line, ' '), int64(ps.UserTime()+ps.SystemTime()), 10)
	line = strconv.AppendInt(append(line, ' '), peakRSS(ps), 10)
	if _, err := os.NewFile(3, "report").Write(append(line, '\n')); err != nil {
		fail(err)
	}
	os.Exit(ps.ExitCode())
}

func fail(err error) {
	os.Stderr.WriteString("launch: " + err.Error() + "\n")
	os.Exit(127)
}
