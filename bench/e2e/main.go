// Command e2e measures what the harness costs on top of the model: it times
// a 20-step session of `harness -p` against `harness fake-ollama`, a
// scripted server that answers at once, next to bench/refclient, a client
// that does only the HTTP round trips of the same session. Run it from the
// module with:
//
//	go run ./bench/e2e
//
// It builds the programs into a temporary folder, writes the script (19
// read_file calls of a 2.5 KB file, then an answer) and a workspace, and
// runs each client -runs times, in turn, each against a fresh server. It
// prints for each the median wall time, the median CPU time (user and
// system, steadier than wall time on a busy machine), the median peak RSS,
// and the size of the first and last request as the server received them,
// then the ratios to the reference client. Every run must end with the
// scripted answer after exactly one request per step, each request
// extending the one before. Then it times the start-up of `harness
// --version`, `refclient -h` and a hello-world program, four times -runs
// each, and prints their ratios to hello-world's.
//
// Every program is started through bench/e2e/launch, which measures it: on
// Linux a program's peak RSS counts that of the process that started it,
// and e2e's own grows with the request logs it checks.
//
// The harness runs with --no-compact, as "harness -p", with --record
// too, and, as "harness -p, window", keeping the context window as it
// does by default, in a window larger than the session, so that it counts
// at every step but never compacts.
//
// -steps N makes the session N steps long (the harness is given step
// limits to match), -size the bytes of each file read. -compare BIN adds a
// row for another harness binary, such as one built with a change, to
// weigh the change on the same runs. -backend openai runs the same session
// over the OpenAI-compatible API the fake server also serves
// (/v1/chat/completions, server-sent events), the harness with --backend
// openai and the reference client speaking that API too.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"harness/fakemodel"
)

const answer = "All files read: each holds a generated Go file."

// bigWindow is the context window, in tokens, of the run that keeps the
// compactor: more than a 400-step session holds, so that it never
// compacts.
const bigWindow = 4 << 20

func main() {
	runs := flag.Int("runs", 15, "timed runs of each client")
	steps := flag.Int("steps", 20, "steps of the session: steps-1 read_file calls, then the answer")
	fileSize := flag.Int("size", 2560, "bytes of each file read")
	keep := flag.Bool("keep", false, "keep the temporary folder and print its path")
	backend := flag.String("backend", "ollama", "the API the clients speak: ollama (/api/chat) or openai (/v1/chat/completions)")
	var others []string
	flag.Func("compare", "also time this harness binary, e.g. one built with a change (repeatable)", func(s string) error {
		others = append(others, s)
		return nil
	})
	flag.Parse()
	if err := run(*runs, *steps, *fileSize, *keep, *backend, others); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
}

func run(runs, steps, fileSize int, keep bool, backend string, others []string) error {
	if runs < 1 || steps < 2 {
		return errors.New("need -runs >= 1 and -steps >= 2")
	}
	if backend != "ollama" && backend != "openai" {
		return fmt.Errorf("-backend %s: want ollama or openai", backend)
	}
	dir, err := os.MkdirTemp("", "harness-e2e-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("folder:", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	harness := filepath.Join(dir, "harness")
	ref := filepath.Join(dir, "refclient")
	hello := filepath.Join(dir, "hello")
	launcher := filepath.Join(dir, "launch")
	for bin, pkg := range map[string]string{harness: "harness/cmd/harness", ref: "harness/bench/refclient",
		hello: "harness/bench/e2e/hello", launcher: "harness/bench/e2e/launch"} {
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
		if err := rewrite(bin, bin); err != nil {
			return err
		}
	}
	ws := filepath.Join(dir, "ws")
	script := filepath.Join(dir, "session.fake")
	if err := writeSession(ws, script, steps, fileSize); err != nil {
		return err
	}
	const prompt = "read every file in the folder"
	// server gives the harness the server's address, in the API asked for.
	server := func(addr string) []string { return []string{"--host", addr} }
	if backend == "openai" {
		server = func(addr string) []string { return []string{"--backend", "openai", "--base-url", addr} }
	}
	// The step limit is the session's length, so that a session longer
	// than the default limits runs to its end; and the conversation is
	// never compacted, which would change what is measured and break the
	// log's prefix check: with --no-compact, or in a window so large that
	// the compactor, which runs at every step as by default, never has to.
	limits := []string{"--max-steps", strconv.Itoa(steps), "--max-model-calls", strconv.Itoa(steps)}
	noCompact := append(limits, "--no-compact")
	harnessArgs := func(bin, addr string, more ...string) []string {
		args := append(append([]string{bin, "-w", ws, "-m", "fake"}, server(addr)...), noCompact...)
		return append(append(args, more...), "-p", prompt)
	}
	clients := []client{
		{name: "reference client", args: func(addr string) []string {
			return []string{ref, "-api", backend, "-host", addr, "-model", "fake", "-result", filepath.Join(ws, "file_01.go"), "-p", prompt}
		}},
		{name: "harness -p", args: func(addr string) []string {
			return harnessArgs(harness, addr)
		}},
		{name: "harness -p --record", args: func(addr string) []string {
			return harnessArgs(harness, addr, "--record", filepath.Join(dir, "run.jsonl"))
		}},
		{name: "harness -p, window", args: func(addr string) []string {
			args := append(append([]string{harness, "-w", ws, "-m", "fake"}, server(addr)...), limits...)
			return append(args, "--num-ctx", strconv.Itoa(bigWindow), "-p", prompt)
		}},
	}
	for i, other := range others {
		bin := filepath.Join(dir, fmt.Sprintf("compare%d", i))
		if err := rewrite(other, bin); err != nil {
			return err
		}
		clients = append(clients, client{name: filepath.Base(other) + " -p", args: func(addr string) []string {
			return harnessArgs(bin, addr)
		}})
	}
	for i := range runs {
		for j := range clients {
			// Alternate the order so that neither client always runs
			// right after the other.
			c := &clients[(i+j)%len(clients)]
			m, err := session(launcher, harness, script, dir, c.args, steps)
			if err != nil {
				return fmt.Errorf("%s, run %d: %w", c.name, i+1, err)
			}
			c.runs = append(c.runs, m)
		}
	}
	starts := []client{
		{name: "hello", args: func(string) []string { return []string{hello} }},
		{name: "refclient -h", args: func(string) []string { return []string{ref, "-h"} }},
		{name: "harness --version", args: func(string) []string { return []string{harness, "--version"} }},
		{name: "launch (alone)", args: func(string) []string { return []string{launcher} }},
	}
	for i := range runs * 4 {
		for j := range starts {
			c := &starts[(i+j)%len(starts)]
			m, err := launch(launcher, c.args(""), nil, nil)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			c.runs = append(c.runs, m)
		}
	}
	fmt.Printf("over the %s API\n", backend)
	report(os.Stdout, clients, starts, runs, steps, fileSize)
	return nil
}

// rewrite writes the program at src to dst, 64 KiB at a time. A peak RSS
// counts the pages of the program's file that it maps as the page cache
// holds them, and the cache holds a file written in one piece (as go
// build writes it) in large pieces, each counted whole when any of it is
// mapped: harness --version measured 16 MiB so, 12 MiB once rewritten.
// Every program measured is rewritten alike.
func rewrite(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	tmp := dst + ".new"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	for len(data) > 0 {
		n := min(len(data), 64<<10)
		if _, err := f.Write(data[:n]); err != nil {
			f.Close()
			return err
		}
		data = data[n:]
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// client is one program under test and what its runs measured.
type client struct {
	name string
	args func(addr string) []string
	runs []measure
}

// measure is what one run of a client cost.
type measure struct {
	wall        time.Duration
	cpu         time.Duration // user and system time of the client
	rss         int64         // peak resident set, bytes; -1 when unknown
	first, last int           // bytes of the first and last request, as logged
}

// writeSession writes steps-1 files of size bytes into ws and a script that
// reads each of them in turn, then answers.
func writeSession(ws, script string, steps, size int) error {
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	var s strings.Builder
	s.WriteString("# A session for the end-to-end benchmark: read files one by one, then answer.\n")
	for n := 1; n < steps; n++ {
		name := fmt.Sprintf("file_%02d.go", n)
		if err := os.WriteFile(filepath.Join(ws, name), goFile(n, size), 0o644); err != nil {
			return err
		}
		expect := "read every file"
		if n > 1 {
			expect = "read_file SUCCESS"
		}
		fmt.Fprintf(&s, ">>> expect=%q\nReading %s next.\nTOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":%q}}\n", expect, name, name)
	}
	fmt.Fprintf(&s, ">>> expect=\"read_file SUCCESS\"\n%s\n", answer)
	return os.WriteFile(script, []byte(s.String()), 0o644)
}

// goFile returns size bytes that look like a Go source file.
func goFile(n, size int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "package demo\n\n// Sum%d adds up the numbers it is given.\n", n)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "func f%d_%d(a, b int) int { return a*%d + b - %d }\n", n, i, i, n)
	}
	out := b.Bytes()[:size-1]
	return append(out, '\n')
}

// session starts a fresh fake server, runs one client against it, stops the
// server and checks its request log.
func session(launcher, harness, script, dir string, args func(string) []string, steps int) (measure, error) {
	logPath := filepath.Join(dir, "requests.jsonl")
	os.Remove(logPath)
	srv := exec.Command(harness, "fake-ollama", "--script", script, "--log", logPath, "--context-length", strconv.Itoa(bigWindow))
	out, err := srv.StdoutPipe()
	if err != nil {
		return measure{}, err
	}
	var srvErr bytes.Buffer
	srv.Stderr = &srvErr
	if err := srv.Start(); err != nil {
		return measure{}, err
	}
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		srv.Process.Signal(syscall.SIGTERM)
		// The harness exits 143 when SIGTERM stops it, as a shell would.
		var exit *exec.ExitError
		if err := srv.Wait(); err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 128+int(syscall.SIGTERM)) {
			return fmt.Errorf("fake-ollama: %v\n%s", err, srvErr.Bytes())
		}
		return nil
	}
	defer stop()
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return measure{}, fmt.Errorf("fake-ollama printed no address: %v\n%s", err, srvErr.Bytes())
	}
	go io.Copy(io.Discard, out)

	var stdout, stderr bytes.Buffer
	m, err := launch(launcher, args(strings.TrimSpace(addr)), &stdout, &stderr)
	if err != nil {
		return measure{}, fmt.Errorf("%v\nstderr:\n%s", err, stderr.Bytes())
	}
	if got := strings.TrimSpace(stdout.String()); got != answer {
		return measure{}, fmt.Errorf("answer %q, want %q\nstderr:\n%s", got, answer, stderr.Bytes())
	}
	if err := stop(); err != nil {
		return measure{}, err
	}
	m.first, m.last, err = checkLog(logPath, steps)
	return m, err
}

// launch runs argv through the launcher, with NO_COLOR set, and returns
// what it cost as the launcher measured it.
func launch(launcher string, argv []string, stdout, stderr io.Writer) (measure, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return measure{}, err
	}
	defer r.Close()
	cmd := exec.Command(launcher, argv...)
	// Sessions stay in the run's folder.
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "XDG_STATE_HOME="+filepath.Join(filepath.Dir(launcher), "state"))
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.ExtraFiles = []*os.File{w}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return measure{}, err
	}
	if err := cmd.Wait(); err != nil {
		return measure{}, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	line, err := io.ReadAll(r)
	if err != nil {
		return measure{}, err
	}
	var m measure
	if _, err := fmt.Sscan(string(line), &m.wall, &m.cpu, &m.rss); err != nil {
		return measure{}, fmt.Errorf("the launcher's report %q: %w", line, err)
	}
	return m, nil
}

// checkLog checks that the server got one request per step, each extending
// the one before, and returns the sizes of the first and last.
func checkLog(path string, steps int) (first, last int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	reqs, err := fakemodel.ReadLog(bytes.NewReader(data))
	if err != nil {
		return 0, 0, err
	}
	if len(reqs) != steps {
		return 0, 0, fmt.Errorf("%d requests, want %d", len(reqs), steps)
	}
	if err := fakemodel.CheckPrefixes(reqs); err != nil {
		return 0, 0, err
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	return len(lines[0]), len(lines[len(lines)-1]), nil
}

func report(w io.Writer, clients, starts []client, runs, steps, size int) {
	fmt.Fprintf(w, "%d-step session (%d read_file calls of a %d-byte file, then an answer), %d runs of each client, fresh fake-ollama per run\n\n",
		steps, steps-1, size, runs)
	fmt.Fprintf(w, "%-20s %10s %10s %10s %10s %10s %12s %12s\n", "client", "median", "min", "max", "CPU", "peak RSS", "1st request", "last request")
	sums := make([]summary, len(clients))
	for i, c := range clients {
		sums[i] = summarize(c.runs)
		fmt.Fprintf(w, "%-20s %10s %10s %10s %10s %10s %12s %12s\n", c.name, msec(sums[i].wall), msec(sums[i].min), msec(sums[i].max),
			msec(sums[i].cpu), mib(sums[i].rss), kb(c.runs[0].first), kb(c.runs[0].last))
	}
	fmt.Fprintln(w)
	ratios(w, clients, sums, "the reference's")

	fmt.Fprintf(w, "\nstart-up, %d runs of each\n\n", len(starts[0].runs))
	fmt.Fprintf(w, "%-20s %10s %10s %10s %10s %10s\n", "program", "median", "min", "max", "CPU", "peak RSS")
	sums = make([]summary, len(starts))
	for i, c := range starts {
		sums[i] = summarize(c.runs)
		fmt.Fprintf(w, "%-20s %10s %10s %10s %10s %10s\n", c.name, msec(sums[i].wall), msec(sums[i].min), msec(sums[i].max), msec(sums[i].cpu), mib(sums[i].rss))
	}
	fmt.Fprintln(w)
	ratios(w, starts[:len(starts)-1], sums, "hello's")
	fmt.Fprintln(w, "\ntimes are medians of wall time; CPU is user+system time; RSS is the median of each run's peak,")
	fmt.Fprintln(w, "never below the launcher's own (launch alone), from which every program is started")
}

// summary is the medians of a client's runs.
type summary struct {
	wall, min, max, cpu time.Duration
	rss                 int64
}

func summarize(runs []measure) summary {
	var walls, cpus []time.Duration
	var rss []int64
	for _, m := range runs {
		walls, cpus, rss = append(walls, m.wall), append(cpus, m.cpu), append(rss, m.rss)
	}
	return summary{median(walls), slices.Min(walls), slices.Max(walls), median(cpus), median(rss)}
}

// ratios prints how each client after the first compares with the first.
func ratios(w io.Writer, clients []client, sums []summary, base string) {
	for i, c := range clients[1:] {
		s, b := sums[i+1], sums[0]
		fmt.Fprintf(w, "%-20s %.2fx %s median time, %.2fx its CPU", c.name, ratio(s.wall, b.wall), base, ratio(s.cpu, b.cpu))
		if b.rss > 0 {
			fmt.Fprintf(w, ", %.2fx its peak RSS", ratio(s.rss, b.rss))
		}
		fmt.Fprintln(w)
	}
}

func ratio[T int64 | time.Duration](a, b T) float64 { return float64(a) / float64(b) }

func median[T int64 | time.Duration](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func msec(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func mib(b int64) string {
	if b < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

func kb(n int) string { return fmt.Sprintf("%.1f KB", float64(n)/1000) }
