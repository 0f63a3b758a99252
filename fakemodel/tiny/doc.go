// Package tiny writes a language model small enough to build from code: a
// GGUF file of about half a megabyte, and a Modelfile, that a real Ollama
// loads and runs on a CPU, and whose replies follow the harness's protocol.
// It exists so that a person or a test can watch a real server drive the
// harness through a whole turn, with no download and no GPU.
//
// # What it says
//
// The model knows two replies. Asked to act, it writes [Call], a call of the
// list_files tool; shown a tool result, it writes [Answer]. Each reply ends
// with the end-of-sequence token, so the server reports the done reason
// "stop"; a small num_predict cuts the reply short and gives "length".
//
// Which reply comes is decided by the chat template ([Template]), not by the
// weights: the template writes the conversation as plain text and ends it
// with the control token <|answer|> when the last message starts with
// TOOL_RESULT, and with <|act|> otherwise. The server tokenizes the rendered
// template with special tokens enabled, so each becomes one token.
//
// # How it is built
//
// The architecture is llama: 2 layers, embedding 64, feed-forward 128,
// 4 heads, F32 weights, context length 32768. The vocabulary is a
// SentencePiece ("llama") one: <unk>, <s>, </s>, the 256 byte-fallback
// tokens, "▁" (the space), one token per printable ASCII character, the
// pieces of the two replies, and the two control tokens. There are no
// two-character tokens, so no merge ever applies: prompt text costs one
// token per byte, and never becomes a reply piece (the pieces have three or
// more characters, and a score of -100 besides).
//
// The weights make a bigram chain. Each control token and reply piece has an
// embedding that is one-hot on a dimension of its own; the output head's row
// for a token B weighs heavily the dimension of the token A that B follows.
// After the final normalization that dimension dominates, so the next token
// depends only on the current one, with a margin that no sampling
// temperature overcomes: <|act|> leads to the first piece of [Call], each
// piece to the next, the last to </s>. The attention and feed-forward layers
// hold small pseudo-random weights, so the server does all the real work of
// a forward pass (and its prompt cache matters) without disturbing the
// chain. Every other token has a small pseudo-random embedding.
//
// The pseudo-random numbers come from a fixed generator with a fixed seed:
// the file's bytes are the same on every run and every machine.
package tiny
