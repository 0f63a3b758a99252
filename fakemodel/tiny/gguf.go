package tiny

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The GGUF file this package writes is version 3 of the format, as
// llama.cpp's gguf.md states it, little-endian throughout: "GGUF", the
// version (uint32), the number of tensors and of keys (uint64 each); each
// key (a string: its length as uint64, then its bytes), sorted, with its
// value's type (uint32) and the value; each tensor's name, number of
// dimensions (uint32), dimensions (uint64 each), type (uint32) and offset
// in the data (uint64); zeros up to a multiple of the alignment, and the
// data, each tensor's starting at a multiple of it. The tensors come in
// the order Ollama's writer puts them in: by layer ("blk.N."), those of
// no layer last, and by name within each; so the bytes are Ollama's.
// The harness writes the file itself rather than with Ollama's fs/ggml,
// whose packages find Ollama's libraries at every start of the program.

// GGUF value types, as the format numbers them.
const (
	ggufUint32  = 4
	ggufInt32   = 5
	ggufFloat32 = 6
	ggufBool    = 7
	ggufString  = 8
	ggufArray   = 9
)

// The F32 file and tensor types.
const (
	fileTypeF32   = 0
	tensorTypeF32 = 0
)

// alignment is where the data and each tensor's part of it start.
const alignment = 32

// kv is one key of the file's metadata, and its value: a uint32, float32,
// bool, string, []string, []float32 or []int32.
type kv struct {
	key   string
	value any
}

// tensor is one F32 tensor. Shapes are GGUF's: the first number is the
// length of a row.
type tensor struct {
	name  string
	shape []uint64
	data  tensorData
}

// layer is the number of the layer the tensor t belongs to, and for
// those of no layer the largest int.
func (t *tensor) layer() int {
	rest, ok := strings.CutPrefix(t.name, "blk.")
	if !ok {
		return math.MaxInt
	}
	digits, _, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(digits)
	if err != nil {
		return math.MaxInt
	}
	return n
}

// writeGGUF writes the keys and tensors to w as a GGUF file.
func writeGGUF(w io.Writer, kvs []kv, ts []*tensor) error {
	bw := bufio.NewWriter(w)
	g := &gguf{w: bw}
	g.bytes([]byte("GGUF"))
	g.u32(3)
	g.u64(uint64(len(ts)))
	g.u64(uint64(len(kvs)))
	kvs = slices.SortedFunc(slices.Values(kvs), func(a, b kv) int { return strings.Compare(a.key, b.key) })
	for _, e := range kvs {
		g.str(e.key)
		g.value(e.key, e.value)
	}
	ts = slices.Clone(ts)
	slices.SortStableFunc(ts, func(a, b *tensor) int {
		return cmp.Or(cmp.Compare(a.layer(), b.layer()), strings.Compare(a.name, b.name))
	})
	var offset uint64
	for _, t := range ts {
		g.str(t.name)
		g.u32(uint32(len(t.shape)))
		for _, n := range t.shape {
			g.u64(n)
		}
		g.u32(tensorTypeF32)
		g.u64(offset)
		offset = aligned(offset + 4*uint64(len(t.data)))
	}
	g.pad()
	for _, t := range ts {
		if g.err == nil {
			_, g.err = t.data.WriteTo(bw)
			g.n += 4 * uint64(len(t.data))
		}
		g.pad()
	}
	if g.err != nil {
		return g.err
	}
	return bw.Flush()
}

// aligned rounds n up to a multiple of alignment.
func aligned(n uint64) uint64 {
	return (n + alignment - 1) / alignment * alignment
}

// gguf writes the parts of a GGUF file, keeping the first error and
// counting the bytes.
type gguf struct {
	w   io.Writer
	n   uint64
	err error
}

func (g *gguf) bytes(b []byte) {
	if g.err == nil {
		_, g.err = g.w.Write(b)
		g.n += uint64(len(b))
	}
}

func (g *gguf) u32(v uint32) { g.bytes(binary.LittleEndian.AppendUint32(nil, v)) }
func (g *gguf) u64(v uint64) { g.bytes(binary.LittleEndian.AppendUint64(nil, v)) }

func (g *gguf) str(s string) {
	g.u64(uint64(len(s)))
	g.bytes([]byte(s))
}

// pad writes zeros up to the next multiple of alignment.
func (g *gguf) pad() {
	g.bytes(make([]byte, aligned(g.n)-g.n))
}

// value writes the type and value of key.
func (g *gguf) value(key string, v any) {
	switch v := v.(type) {
	case uint32:
		g.u32(ggufUint32)
		g.u32(v)
	case float32:
		g.u32(ggufFloat32)
		g.u32(math.Float32bits(v))
	case bool:
		g.u32(ggufBool)
		if v {
			g.bytes([]byte{1})
		} else {
			g.bytes([]byte{0})
		}
	case string:
		g.u32(ggufString)
		g.str(v)
	case []string:
		g.array(ggufString, len(v))
		for _, s := range v {
			g.str(s)
		}
	case []float32:
		g.array(ggufFloat32, len(v))
		for _, f := range v {
			g.u32(math.Float32bits(f))
		}
	case []int32:
		g.array(ggufInt32, len(v))
		for _, n := range v {
			g.u32(uint32(n))
		}
	default:
		if g.err == nil {
			g.err = fmt.Errorf("gguf: the key %s has a value of type %T", key, v)
		}
	}
}

// array writes the head of an array of n elements of type elem.
func (g *gguf) array(elem uint32, n int) {
	g.u32(ggufArray)
	g.u32(elem)
	g.u64(uint64(n))
}
