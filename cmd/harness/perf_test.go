package main

import (
	"bytes"
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdReqSize checks the size of one request of a fake server's request
// log, which holds each request as the client sent it: with neg, that it is
// larger than MAXBYTES; without, that it is not.
func cmdReqSize(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: reqsize LOGFILE N MAXBYTES (N counts from 1)")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	limit, err := strconv.Atoi(args[2])
	ts.Check(err)
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if n < 1 || n > len(lines) || len(data) == 0 {
		ts.Fatalf("%s holds %d requests; there is no request %d", args[0], len(lines), n)
	}
	size := len(lines[n-1])
	ts.Logf("request %d is %d bytes", n, size)
	switch {
	case neg && size <= limit:
		ts.Fatalf("request %d is %d bytes, not more than %d", n, size, limit)
	case !neg && size > limit:
		ts.Fatalf("request %d is %d bytes, more than %d", n, size, limit)
	}
}
