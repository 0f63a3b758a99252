package tiny

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/fs/ggml"
	"github.com/ollama/ollama/parser"
	"github.com/ollama/ollama/template"
)

// wantDigest is the SHA-256 of the GGUF file. It changes only when the
// model does, or when writeGGUF writes it differently; update it then,
// after checking the model still drives a turn on a real Ollama (and
// that Ollama's ggml package still reads it, as TestDecode does).
const wantDigest = "e633b1d432ec32770da13f7e7b213d13d0fd6473b33fe4975c27e9504ddd6661"

func writeTemp(t *testing.T) (dir string, data []byte) {
	t.Helper()
	dir = t.TempDir()
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, GGUFName))
	if err != nil {
		t.Fatal(err)
	}
	return dir, data
}

func TestHeader(t *testing.T) {
	_, data := writeTemp(t)
	if len(data) < 24 {
		t.Fatalf("file has %d bytes, too short for a GGUF header", len(data))
	}
	if magic := string(data[:4]); magic != "GGUF" {
		t.Errorf("magic = %q, want GGUF", magic)
	}
	if v := binary.LittleEndian.Uint32(data[4:]); v != 3 {
		t.Errorf("version = %d, want 3", v)
	}
	if n := binary.LittleEndian.Uint64(data[8:]); n != 3+9*layers {
		t.Errorf("tensor count = %d, want %d", n, 3+9*layers)
	}
	if n := binary.LittleEndian.Uint64(data[16:]); n != uint64(len((&model{}).kv())) {
		t.Errorf("key count = %d, want %d", n, len((&model{}).kv()))
	}
	if len(data) > 1<<20 {
		t.Errorf("file has %d bytes; the model is meant to stay under 1 MB", len(data))
	}
}

func TestDeterministic(t *testing.T) {
	_, a := writeTemp(t)
	_, b := writeTemp(t)
	if !bytes.Equal(a, b) {
		t.Fatal("two writes gave different bytes")
	}
	sum := sha256.Sum256(a)
	if got := hex.EncodeToString(sum[:]); got != wantDigest {
		t.Errorf("sha256 = %s, want %s\n(if the model was changed on purpose, update wantDigest)", got, wantDigest)
	}
}

// TestDecode reads the file back with Ollama's own decoder.
func TestDecode(t *testing.T) {
	dir, _ := writeTemp(t)
	f, err := os.Open(filepath.Join(dir, GGUFName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := ggml.Decode(f, -1)
	if err != nil {
		t.Fatal(err)
	}
	kv := g.KV()
	if got := kv.Architecture(); got != "llama" {
		t.Errorf("architecture = %q", got)
	}
	if got := kv.BlockCount(); got != layers {
		t.Errorf("block count = %d", got)
	}
	if got := kv.ContextLength(); got != contextLen {
		t.Errorf("context length = %d", got)
	}
	if got := kv.EmbeddingLength(); got != embedding {
		t.Errorf("embedding length = %d", got)
	}
	tokens := kv.Strings("tokenizer.ggml.tokens")
	types := kv.Ints("tokenizer.ggml.token_type")
	if len(tokens) != len(types) || len(tokens) == 0 {
		t.Fatalf("%d tokens, %d token types", len(tokens), len(types))
	}
	for _, want := range []string{actToken, answerToken} {
		i := indexOf(tokens, want)
		if i < 0 || types[i] != typeControl {
			t.Errorf("%s: not a control token", want)
		}
	}
	if i := indexOf(tokens, "<0x0A>"); i < 0 || types[i] != typeByte {
		t.Error("no byte token for the newline")
	}
	emb := g.Tensors().Items("token_embd")
	if len(emb) != 1 || !equalShape(emb[0].Shape, embedding, len(tokens)) {
		t.Errorf("token_embd: %v", emb)
	}
	if n := len(g.Tensors().Items()); n != 3+9*layers {
		t.Errorf("%d tensors", n)
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func equalShape(shape []uint64, dims ...int) bool {
	if len(shape) != len(dims) {
		return false
	}
	for i, d := range dims {
		if shape[i] != uint64(d) {
			return false
		}
	}
	return true
}

// TestChain follows the bigram chain through the embedding, the final
// normalization and the output head, leaving out the layers (whose weights
// are noise): each control token must spell its reply and then end it.
func TestChain(t *testing.T) {
	m, err := build()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ start, want string }{{actToken, Call}, {answerToken, Answer}} {
		t.Run(tc.start, func(t *testing.T) {
			id := indexOf(m.tokens, tc.start)
			var out strings.Builder
			for range 100 {
				next, margin := m.greedy(id)
				if margin < 50 {
					t.Errorf("after %q the best token leads by only %.1f logits", m.tokens[id], margin)
				}
				if next == eosID {
					break
				}
				out.WriteString(strings.ReplaceAll(m.tokens[next], "▁", " "))
				id = next
			}
			if out.String() != tc.want {
				t.Errorf("chain spells %q, want %q", out.String(), tc.want)
			}
		})
	}
}

// greedy returns the most likely token after id, and its lead over the next
// most likely, computed from the embedding and the output head alone.
func (m *model) greedy(id int) (best int, margin float64) {
	h := m.embed[id*embedding : (id+1)*embedding]
	var sq float64
	for _, v := range h {
		sq += float64(v) * float64(v)
	}
	rms := math.Sqrt(sq/embedding + 1e-5)
	first, second := math.Inf(-1), math.Inf(-1)
	for tok := range m.tokens {
		row := m.output[tok*embedding : (tok+1)*embedding]
		var logit float64
		for i, w := range row {
			logit += float64(w) * float64(h[i]) / rms
		}
		switch {
		case logit > first:
			second, first, best = first, logit, tok
		case logit > second:
			second = logit
		}
	}
	return best, first - second
}

func TestPieces(t *testing.T) {
	m, err := build()
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{Call, Answer} {
		ps := pieces(text)
		if got := strings.ReplaceAll(strings.Join(ps, ""), "▁", " "); got != text {
			t.Errorf("pieces of %q join to %q", text, got)
		}
		for _, p := range ps {
			if len([]rune(p)) < 3 {
				t.Errorf("piece %q is shorter than three characters", p)
			}
		}
	}
	// With no two-character tokens, no SentencePiece merge can apply.
	for _, tok := range m.tokens {
		if len([]rune(tok)) == 2 {
			t.Errorf("two-character token %q", tok)
		}
	}
}

// TestTemplate renders the template with Ollama's template package, as the
// server does.
func TestTemplate(t *testing.T) {
	tmpl, err := template.Parse(Template)
	if err != nil {
		t.Fatal(err)
	}
	sys := api.Message{Role: "system", Content: "be brief"}
	user := api.Message{Role: "user", Content: "list the files"}
	call := api.Message{Role: "assistant", Content: Call}
	result := api.Message{Role: "user", Content: "TOOL_RESULT call_1 list_files SUCCESS\na.txt"}
	tests := []struct {
		name string
		msgs []api.Message
		want string
	}{
		{"first step", []api.Message{sys, user},
			"system: be brief\nuser: list the files\n<|act|>"},
		{"after a result", []api.Message{sys, user, call, result},
			"system: be brief\nuser: list the files\nassistant: " + Call + "\nuser: TOOL_RESULT call_1 list_files SUCCESS\na.txt\n<|answer|>"},
		{"short message", []api.Message{{Role: "user", Content: "hi"}},
			"user: hi\n<|act|>"},
		{"no messages", nil, "<|act|>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := tmpl.Execute(&b, template.Values{Messages: tc.msgs}); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("rendered:\n%q\nwant:\n%q", b.String(), tc.want)
			}
		})
	}
}

// TestModelfile reads the Modelfile the way `ollama create -f` does.
func TestModelfile(t *testing.T) {
	dir, data := writeTemp(t)
	mf, err := os.ReadFile(filepath.Join(dir, ModelfileName))
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := parser.ParseFile(bytes.NewReader(mf))
	if err != nil {
		t.Fatal(err)
	}
	req, err := parsed.CreateRequest(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	want := "sha256:" + hex.EncodeToString(sum[:])
	if len(req.Files) != 1 || req.Files[filepath.Join(dir, GGUFName)] != want {
		t.Errorf("FROM gives files %v, want %s: %s", req.Files, GGUFName, want)
	}
	if req.Template != Template {
		t.Errorf("TEMPLATE gives %q, want %q", req.Template, Template)
	}
	if got := req.Parameters["num_thread"]; got != int64(1) {
		t.Errorf("PARAMETER num_thread gives %v (%T), want 1", got, got)
	}
}
