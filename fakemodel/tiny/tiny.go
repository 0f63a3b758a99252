package tiny

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The files Write creates.
const (
	GGUFName      = "tiny.gguf"
	ModelfileName = "Modelfile"
)

// The two replies the model knows.
const (
	// Call is the reply to anything but a tool result: one list_files call.
	Call = `TOOL_CALL {"name":"list_files","arguments":{"path":"."}}`
	// Answer is the reply to a tool result.
	Answer = "I have listed the files in the workspace."
)

// The control tokens that start the two replies.
const (
	actToken    = "<|act|>"
	answerToken = "<|answer|>"
)

// Template is the chat template, in Ollama's Go text/template dialect. It
// writes each message as "role: content" on its own line and ends the
// prompt with the control token that picks the reply. It must not end in a
// newline: the last token of the prompt decides what the model says.
const Template = `{{- $last := "" }}{{ range .Messages }}{{ .Role }}: {{ .Content }}
{{ $last = .Content }}{{ end }}{{ if eq (printf "%.11s" $last) "TOOL_RESULT" }}` + answerToken + `{{ else }}` + actToken + `{{ end }}`

// Parameters returns the model parameters the Modelfile sets. One thread
// is plenty for a model this small, and far faster than several on a busy
// machine.
func Parameters() map[string]any {
	return map[string]any{"num_thread": 1}
}

// Modelfile returns the Modelfile that loads GGUFName from its own folder.
func Modelfile() string {
	var b strings.Builder
	b.WriteString("# A tiny model that speaks the harness's tool protocol. Load it with:\n")
	b.WriteString("#   ollama create tiny -f " + ModelfileName + "\n")
	b.WriteString("FROM ./" + GGUFName + "\n")
	b.WriteString(`TEMPLATE """` + Template + `"""` + "\n")
	params := Parameters()
	for _, k := range slices.Sorted(maps.Keys(params)) {
		fmt.Fprintf(&b, "PARAMETER %s %v\n", k, params[k])
	}
	return b.String()
}

// Write writes GGUFName and ModelfileName into dir, creating it if needed.
func Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, GGUFName), WriteGGUF); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, ModelfileName), func(f *os.File) error {
		_, err := io.WriteString(f, Modelfile())
		return err
	})
}

func writeFile(path string, write func(*os.File) error) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	return write(f)
}

// WriteGGUF writes the model as a GGUF file to f, from its start. The bytes
// are the same every time.
func WriteGGUF(f *os.File) error {
	m, err := build()
	if err != nil {
		return err
	}
	return writeGGUF(f, m.kv(), m.tensors())
}

// Shape of the network.
const (
	embedding   = 64
	feedForward = 128
	layers      = 2
	heads       = 4
	contextLen  = 32768
)

// Weights.
const (
	// link is the output head's weight from a token's dimension to the
	// token that follows it. The dimension is about 8 after the final
	// normalization, so the right next token leads the others by about 80
	// logits.
	link = 10
	// layerScale bounds the pseudo-random weights of the layers: small
	// enough that what they add to the residual stream is noise next to a
	// one-hot embedding.
	layerScale = 0.02
	// otherScale bounds the pseudo-random embeddings of the tokens that
	// are not in a chain.
	otherScale = 0.1
	// seed starts the pseudo-random generator.
	seed = 0x7469_6e79_6d6f_646c // "tinymodl"
)

// Token types, as GGUF numbers them.
const (
	typeNormal  = 1
	typeUnknown = 2
	typeControl = 3
	typeByte    = 6
)

// Special token ids.
const (
	unkID = 0
	bosID = 1
	eosID = 2
)

// pieceLen is how many characters a reply piece has; a shorter tail joins
// the piece before it, so that no piece has fewer than three.
const pieceLen = 4

// model is the vocabulary and weights, before they are written out.
type model struct {
	tokens []string
	scores []float32
	types  []int32

	// next is the successor of each chain token: a control token or a
	// reply piece. dim is the embedding dimension that stands for it.
	next map[int]int
	dim  map[int]int

	embed  []float32 // [vocab][embedding]
	output []float32 // [vocab][embedding]
}

var errTooLong = errors.New("tiny: the replies need more chain tokens than the embedding has dimensions")

func build() (*model, error) {
	m := &model{next: map[int]int{}, dim: map[int]int{}}
	index := map[string]int{}
	var dup error
	add := func(text string, score float32, typ int32) int {
		if _, ok := index[text]; ok && dup == nil {
			dup = fmt.Errorf("tiny: token %q twice in the vocabulary", text)
		}
		id := len(m.tokens)
		index[text] = id
		m.tokens = append(m.tokens, text)
		m.scores = append(m.scores, score)
		m.types = append(m.types, typ)
		return id
	}
	add("<unk>", 0, typeUnknown)
	add("<s>", 0, typeControl)
	add("</s>", 0, typeControl)
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b), 0, typeByte)
	}
	add("▁", 0, typeNormal)
	for c := byte('!'); c <= '~'; c++ {
		add(string(c), 0, typeNormal)
	}

	// The chains: all the pieces first, then the control tokens.
	chains := []struct{ start, text string }{{actToken, Call}, {answerToken, Answer}}
	ids := make([][]int, len(chains))
	for i, c := range chains {
		for _, p := range pieces(c.text) {
			ids[i] = append(ids[i], add(p, -100, typeNormal))
		}
	}
	for i, c := range chains {
		start := add(c.start, 0, typeControl)
		prev := start
		for _, id := range ids[i] {
			m.next[prev] = id
			prev = id
		}
		m.next[prev] = eosID
		for _, id := range append([]int{start}, ids[i]...) {
			m.dim[id] = len(m.dim)
		}
	}
	if dup != nil {
		return nil, dup
	}
	if len(m.dim) > embedding {
		return nil, errTooLong
	}

	r := rng(seed)
	vocab := len(m.tokens)
	m.embed = make([]float32, vocab*embedding)
	for id := range vocab {
		row := m.embed[id*embedding : (id+1)*embedding]
		if d, ok := m.dim[id]; ok {
			row[d] = 1
			continue
		}
		r.fill(row, otherScale)
	}
	m.output = make([]float32, vocab*embedding)
	for from, to := range m.next {
		m.output[to*embedding+m.dim[from]] = link
	}
	return m, nil
}

// pieces splits a reply into the vocabulary pieces that spell it, with
// SentencePiece's "▁" for each space.
func pieces(text string) []string {
	text = strings.ReplaceAll(text, " ", "▁")
	chars := []rune(text)
	var ps []string
	for len(chars) > 0 {
		n := min(pieceLen, len(chars))
		if len(chars)-n < 3 {
			n = len(chars)
		}
		ps = append(ps, string(chars[:n]))
		chars = chars[n:]
	}
	return ps
}

func (m *model) kv() []kv {
	return []kv{
		{"general.architecture", "llama"},
		{"general.name", "tiny"},
		{"general.file_type", uint32(fileTypeF32)},
		{"llama.block_count", uint32(layers)},
		{"llama.context_length", uint32(contextLen)},
		{"llama.embedding_length", uint32(embedding)},
		{"llama.feed_forward_length", uint32(feedForward)},
		{"llama.attention.head_count", uint32(heads)},
		{"llama.attention.head_count_kv", uint32(heads)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.rope.dimension_count", uint32(embedding / heads)},
		{"llama.rope.freq_base", float32(10000)},
		{"llama.vocab_size", uint32(len(m.tokens))},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", m.tokens},
		{"tokenizer.ggml.scores", m.scores},
		{"tokenizer.ggml.token_type", m.types},
		{"tokenizer.ggml.unknown_token_id", uint32(unkID)},
		{"tokenizer.ggml.bos_token_id", uint32(bosID)},
		{"tokenizer.ggml.eos_token_id", uint32(eosID)},
		{"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.ggml.add_eos_token", false},
	}
}

// tensors returns the weights. Shapes are GGUF's: the first number is the
// length of a row.
func (m *model) tensors() []*tensor {
	vocab := uint64(len(m.tokens))
	r := rng(seed + 1)
	ones := func(n int) tensorData {
		d := make(tensorData, n)
		for i := range d {
			d[i] = 1
		}
		return d
	}
	noise := func(n int) tensorData {
		d := make(tensorData, n)
		r.fill(d, layerScale)
		return d
	}
	t := func(name string, data tensorData, shape ...uint64) *tensor {
		return &tensor{name: name, shape: shape, data: data}
	}
	const e, f = embedding, feedForward
	ts := []*tensor{
		t("token_embd.weight", m.embed, e, vocab),
		t("output_norm.weight", ones(e), e),
		t("output.weight", m.output, e, vocab),
	}
	for i := range layers {
		p := fmt.Sprintf("blk.%d.", i)
		ts = append(ts,
			t(p+"attn_norm.weight", ones(e), e),
			t(p+"attn_q.weight", noise(e*e), e, e),
			t(p+"attn_k.weight", noise(e*e), e, e),
			t(p+"attn_v.weight", noise(e*e), e, e),
			t(p+"attn_output.weight", noise(e*e), e, e),
			t(p+"ffn_norm.weight", ones(e), e),
			t(p+"ffn_gate.weight", noise(e*f), e, f),
			t(p+"ffn_up.weight", noise(e*f), e, f),
			t(p+"ffn_down.weight", noise(f*e), f, e),
		)
	}
	return ts
}

// tensorData is F32 weights, written little-endian.
type tensorData []float32

func (d tensorData) WriteTo(w io.Writer) (int64, error) {
	b := make([]byte, 4*len(d))
	for i, v := range d {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	n, err := w.Write(b)
	return int64(n), err
}

// rng is a splitmix64 generator: a fixed algorithm, so the weights do not
// depend on the Go version's math/rand.
type rng uint64

func (r *rng) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// fill sets each element of d to a number drawn evenly from [-scale, scale).
func (r *rng) fill(d []float32, scale float32) {
	for i := range d {
		u := float32(r.next()>>40) / (1 << 24) // [0, 1)
		d[i] = scale * (2*u - 1)
	}
}
