package sandbox

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Under bwrap a command sees the file system read-only, but a Unix
// socket that is a file can be connected to all the same: the kernel asks
// for the right to write the socket, not the file system's. The folders
// where services keep sockets (/run, the home folders) are shut, but a
// service may keep one anywhere (under /var, in /tmp of the host, in a
// project folder), and no list of such places is ever whole. Landlock,
// before its ABI 9, does not see a socket being connected to at all. So
// commands under bwrap and Landlock may make no Unix socket: a seccomp
// filter, which bwrap loads before it runs the command (--seccomp) and
// the Landlock launcher loads after Landlock's rules (see restrict),
// refuses socket() of the AF_UNIX family with EPERM, and without a socket
// nothing can be connected to, bound, or sent a datagram. Seccomp sees the numbers a
// call is given, never the paths they point to, so it cannot tell a
// socket in the workspace from one elsewhere: those in the workspace are
// refused too. Abstract sockets, which have no file, are refused with
// the rest, and under bwrap out of reach anyway: they belong to a network
// namespace, and bwrap gives the command one of its own.
//
// What the filter lets through: socketpair() of stream and seqpacket
// sockets, two ends joined to each other that can reach nothing else (as
// programs use them to talk to their children); not of datagram ones,
// which may send to any address. What it refuses besides: io_uring,
// whose operations open and connect sockets without any call the filter
// sees; calls of another architecture than this program's (a 32-bit
// program on a 64-bit kernel has calls of other numbers, socketcall
// among them), and, on amd64, those of the x32 ABI, numbered apart.

// seccompData's offsets (struct seccomp_data in linux/seccomp.h): the
// call's number, its architecture, and its arguments, 64 bits each.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

// x32Bit marks the calls of the x32 ABI on amd64 (__X32_SYSCALL_BIT).
const x32Bit = 0x40000000

// auditArches are the architectures whose filter this program can write
// (AUDIT_ARCH_*): those where socket() is a call of its own, and no
// socketcall() multiplexes it behind a pointer the filter cannot read.
var auditArches = map[string]uint32{
	"amd64":   unix.AUDIT_ARCH_X86_64,
	"arm64":   unix.AUDIT_ARCH_AARCH64,
	"riscv64": unix.AUDIT_ARCH_RISCV64,
	"loong64": unix.AUDIT_ARCH_LOONGARCH64,
}

// unixSocketFilter returns the seccomp filter of the commands under bwrap
// and Landlock (see above), as bwrap reads it: the classic BPF instructions of a struct
// sock_fprog, in this machine's byte order. It returns nil where this
// program cannot write one for the architecture: there Unix sockets
// outside the shut folders can be reached.
func unixSocketFilter() ([]byte, error) {
	arch, ok := auditArches[runtime.GOARCH]
	if !ok {
		return nil, nil
	}
	var a bpfAsm
	deny := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	a.load(offArch)
	a.jumpIf(unix.BPF_JEQ, arch, "", "deny")
	a.load(offNr)
	a.jumpIf(unix.BPF_JSET, x32Bit, "deny", "")
	a.jumpIf(unix.BPF_JEQ, uint32(unix.SYS_SOCKET), "socket", "")
	a.jumpIf(unix.BPF_JEQ, uint32(unix.SYS_SOCKETPAIR), "socketpair", "")
	a.jumpIf(unix.BPF_JEQ, uint32(unix.SYS_IO_URING_SETUP), "deny", "")
	a.ret(unix.SECCOMP_RET_ALLOW)

	a.label("socket")
	a.load(argLow(0))
	a.jumpIf(unix.BPF_JEQ, unix.AF_UNIX, "deny", "allow")

	a.label("socketpair")
	a.load(argLow(0))
	a.jumpIf(unix.BPF_JEQ, unix.AF_UNIX, "", "allow") // other families have none
	a.load(argLow(1))
	a.and(0xf) // the type, without SOCK_NONBLOCK and SOCK_CLOEXEC
	a.jumpIf(unix.BPF_JEQ, unix.SOCK_STREAM, "allow", "")
	a.jumpIf(unix.BPF_JEQ, unix.SOCK_SEQPACKET, "allow", "deny")

	a.label("allow")
	a.ret(unix.SECCOMP_RET_ALLOW)
	a.label("deny")
	a.ret(deny)
	prog, err := a.assemble()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := binary.Write(&b, binary.NativeEndian, prog); err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	return b.Bytes(), nil
}

// loadSeccomp loads filter, as unixSocketFilter returns it, on the
// calling thread, which must have set no_new_privs: it holds for the
// thread and what it execs.
func loadSeccomp(filter []byte) error {
	prog := make([]unix.SockFilter, len(filter)/8)
	if len(prog) == 0 || len(prog) > 0xffff || len(filter)%8 != 0 {
		return fmt.Errorf("seccomp filter: %d bytes is no program", len(filter))
	}
	if err := binary.Read(bytes.NewReader(filter), binary.NativeEndian, prog); err != nil {
		return fmt.Errorf("seccomp filter: %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_SECCOMP): %w", err)
	}
	return nil
}

// argLow returns the offset of the low 32 bits of argument i, which is
// all of an int argument the kernel reads.
func argLow(i int) uint32 {
	var b [2]byte
	binary.NativeEndian.PutUint16(b[:], 1)
	if b[0] == 1 {
		return offArgs + 8*uint32(i) // little-endian: low half first
	}
	return offArgs + 8*uint32(i) + 4
}

// bpfAsm assembles a classic BPF program whose jumps name labels (""
// for the next instruction), and go forward only.
type bpfAsm struct {
	ins    []unix.SockFilter
	jumps  map[int][2]string // an instruction's labels, when true and when false
	labels map[string]int
}

func (a *bpfAsm) add(f unix.SockFilter) { a.ins = append(a.ins, f) }

// load loads the 32-bit word at off of seccomp_data.
func (a *bpfAsm) load(off uint32) {
	a.add(unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off})
}

func (a *bpfAsm) and(k uint32) {
	a.add(unix.SockFilter{Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: k})
}

func (a *bpfAsm) ret(k uint32) { a.add(unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k}) }

// jumpIf compares the word loaded with k by op (BPF_JEQ, BPF_JSET) and
// goes to label yes or no.
func (a *bpfAsm) jumpIf(op uint16, k uint32, yes, no string) {
	if a.jumps == nil {
		a.jumps = make(map[int][2]string)
	}
	a.jumps[len(a.ins)] = [2]string{yes, no}
	a.add(unix.SockFilter{Code: unix.BPF_JMP | op | unix.BPF_K, K: k})
}

func (a *bpfAsm) label(name string) {
	if a.labels == nil {
		a.labels = make(map[string]int)
	}
	a.labels[name] = len(a.ins)
}

// assemble resolves the jumps: each is counted from the instruction after
// it, in at most 255 instructions.
func (a *bpfAsm) assemble() ([]unix.SockFilter, error) {
	out := append([]unix.SockFilter(nil), a.ins...)
	for i, to := range a.jumps {
		for j, name := range to {
			if name == "" {
				continue
			}
			at, ok := a.labels[name]
			if !ok || at <= i || at-i-1 > 255 {
				return nil, fmt.Errorf("seccomp filter: no label %q forward of instruction %d, within reach", name, i)
			}
			if j == 0 {
				out[i].Jt = uint8(at - i - 1)
			} else {
				out[i].Jf = uint8(at - i - 1)
			}
		}
	}
	return out, nil
}
