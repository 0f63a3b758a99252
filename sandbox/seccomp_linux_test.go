package sandbox

import (
	"bytes"
	"encoding/binary"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// bpfRun runs prog, a classic BPF program of the instructions the filter
// uses, on data, a struct seccomp_data, and returns what it returns.
func bpfRun(t *testing.T, prog []unix.SockFilter, data []byte) uint32 {
	t.Helper()
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			acc = binary.NativeEndian.Uint32(data[in.K:])
		case unix.BPF_ALU | unix.BPF_AND | unix.BPF_K:
			acc &= in.K
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K:
			hit := acc == in.K
			if in.Code&unix.BPF_JSET == unix.BPF_JSET {
				hit = acc&in.K != 0
			}
			if hit {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("instruction %d: unknown code %#x", pc, in.Code)
		}
	}
	t.Fatal("the program ran off its end")
	return 0
}

// The filter refuses Unix sockets, datagram pairs, io_uring, and calls of
// other architectures, and lets the rest through.
func TestUnixSocketFilter(t *testing.T) {
	raw, err := unixSocketFilter()
	if err != nil {
		t.Fatal(err)
	}
	arch, ok := auditArches[runtime.GOARCH]
	if raw == nil || !ok {
		t.Skipf("skipped: no filter for %s", runtime.GOARCH)
	}
	prog := make([]unix.SockFilter, len(raw)/8)
	if err := binary.Read(bytes.NewReader(raw), binary.NativeEndian, prog); err != nil {
		t.Fatal(err)
	}
	const allow, deny = unix.SECCOMP_RET_ALLOW, unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	call := func(arch uint32, nr uintptr, args ...uint64) []byte {
		data := make([]byte, 64)
		binary.NativeEndian.PutUint32(data[offNr:], uint32(nr))
		binary.NativeEndian.PutUint32(data[offArch:], arch)
		for i, a := range args {
			binary.NativeEndian.PutUint64(data[offArgs+8*i:], a)
		}
		return data
	}
	tests := []struct {
		name string
		data []byte
		want uint32
	}{
		{"socket(AF_UNIX)", call(arch, unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_STREAM), deny},
		{"socket(AF_UNIX) high bits", call(arch, unix.SYS_SOCKET, 1<<32|unix.AF_UNIX, unix.SOCK_DGRAM), deny},
		{"socket(AF_INET)", call(arch, unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_STREAM), allow},
		{"socket(AF_INET6)", call(arch, unix.SYS_SOCKET, unix.AF_INET6, unix.SOCK_DGRAM), allow},
		{"socketpair stream", call(arch, unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC), allow},
		{"socketpair seqpacket", call(arch, unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_NONBLOCK), allow},
		{"socketpair dgram", call(arch, unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC), deny},
		{"socketpair raw", call(arch, unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_RAW), deny},
		{"io_uring_setup", call(arch, unix.SYS_IO_URING_SETUP, 8, 0), deny},
		{"x32 call", call(arch, x32Bit|unix.SYS_SOCKET, unix.AF_INET), deny},
		{"another architecture", call(unix.AUDIT_ARCH_I386, unix.SYS_SOCKET, unix.AF_INET), deny},
		{"read", call(arch, unix.SYS_READ, 0, 0, 0), allow},
		{"connect", call(arch, unix.SYS_CONNECT, 3, 0, 0), allow},
	}
	for _, tt := range tests {
		if got := bpfRun(t, prog, tt.data); got != tt.want {
			t.Errorf("%s: the filter returns %#x, want %#x", tt.name, got, tt.want)
		}
	}
}

// socketTries tries, with perl, to reach the Unix sockets $1 (stream) and
// $2 (datagram) in each way there is, and prints each way that worked;
// and makes a pair of joined stream sockets, which reach nothing else.
const socketTries = `perl -MSocket -e '
my ($st, $dg) = (pack_sockaddr_un($ARGV[0]), pack_sockaddr_un($ARGV[1]));
socket(S, AF_UNIX, SOCK_STREAM, 0) && connect(S, $st) && print "stream\n";
socket(D, AF_UNIX, SOCK_DGRAM, 0) && send(D, "x", 0, $dg) && print "datagram\n";
socketpair(P, Q, AF_UNIX, SOCK_DGRAM, 0) && send(P, "x", 0, $dg) && print "datagram pair\n";
socketpair(L, R, AF_UNIX, SOCK_STREAM, 0) && syswrite(L, "x") && sysread(R, my $got, 1) && print "stream pair\n";
' `

// Under bwrap and Landlock a command cannot reach a Unix socket outside
// the workspace (here one beside it, in no folder bwrap shuts, which
// Landlock lets no command read), nor make one in the workspace; pairs of
// joined stream sockets still work, and so do commands that need no
// socket.
func TestUnixSockets(t *testing.T) {
	ws, outside := dirs(t)
	stream, dgram := filepath.Join(outside, "s.sock"), filepath.Join(outside, "d.sock")
	ln, err := net.Listen("unix", stream)
	if err != nil {
		t.Skipf("skipped: cannot listen on a Unix socket: %v", err)
	}
	defer ln.Close()
	pc, err := net.ListenPacket("unixgram", dgram)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	received := func() int {
		buf, n := make([]byte, 8), 0
		for {
			pc.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return n
			}
			n++
		}
	}
	for _, mode := range []Mode{Bwrap, Landlock} {
		t.Run(string(mode), func(t *testing.T) {
			s := tiered(t, mode, Config{Dir: ws})
			stops(t, ws, s, socketTries+stream+" "+dgram,
				"stream\ndatagram\ndatagram pair\nstream pair\n", "stream pair\n", "a command reaches a Unix socket")
			if n := received(); n != 2 {
				t.Errorf("the datagram socket got %d datagrams, want the 2 sent without a sandbox", n)
			}
			inside := `perl -MSocket -e 'socket(S, AF_UNIX, SOCK_STREAM, 0) && bind(S, pack_sockaddr_un("own.sock")) && print "bound\n"'`
			stops(t, ws, s, inside+"; rm -f own.sock", "bound\n", "", "a command makes a Unix socket in the workspace")
			if res := run(t, s, "echo plain; git --version >/dev/null && echo git"); !strings.HasSuffix(res.Output, "plain\ngit\n") {
				t.Errorf("commands that need no socket: %q", res.Output)
			}
		})
	}
}
