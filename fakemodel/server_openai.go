package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/openai"

	"harness/protocol"
)

// chatCompletions serves POST /v1/chat/completions as Ollama's OpenAI
// compatibility layer does: the request becomes a native chat request, and
// the reply goes back as one chat.completion object or as server-sent
// events of chat.completion.chunk objects ending in "data: [DONE]".
func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeOpenAIError(w, http.StatusBadRequest, err.Error())
		return
	}
	var oreq openai.ChatCompletionRequest
	if err := json.Unmarshal(body, &oreq); err != nil {
		writeOpenAIError(w, http.StatusBadRequest, err.Error())
		return
	}
	if len(oreq.Messages) == 0 {
		writeOpenAIError(w, http.StatusBadRequest, "[] is too short - 'messages'")
		return
	}
	stop, err := openAIStop(oreq.Stop)
	if err != nil {
		writeOpenAIError(w, http.StatusBadRequest, err.Error())
		return
	}
	req, err := openai.FromChatRequest(oreq)
	if err != nil {
		writeOpenAIError(w, http.StatusBadRequest, err.Error())
		return
	}
	for i := range req.Messages {
		req.Messages[i].Role = strings.ToLower(req.Messages[i].Role)
	}
	if err := s.record(body); err != nil {
		writeOpenAIError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if code, msg := s.refuse(req.Model, len(req.Tools) > 0); code != 0 {
		writeOpenAIError(w, code, msg)
		return
	}

	id := fmt.Sprintf("chatcmpl-%d", s.count())
	created := time.Now().Unix()
	chunk := func(delta openai.Message, finish *string) openai.ChatCompletionChunk {
		return openai.ChatCompletionChunk{
			Id:                id,
			Object:            "chat.completion.chunk",
			Created:           created,
			Model:             req.Model,
			SystemFingerprint: "fp_ollama",
			Choices:           []openai.ChunkChoice{{Delta: delta, FinishReason: finish}},
		}
	}
	started := false
	send := func(v any) {
		if !started {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Cache-Control", "no-cache")
			w.WriteHeader(http.StatusOK)
			started = true
		}
		// A failed write means the client has gone; nothing is left to tell.
		writeEvent(w, v)
	}
	var stream func(protocol.Delta)
	if oreq.Stream {
		stream = func(d protocol.Delta) {
			send(chunk(openai.Message{Role: "assistant", Content: d.Content, Reasoning: d.Thinking}, nil))
		}
	}

	// The API has no num_ctx: Ollama gives every request its default
	// window, as windowOf does for a request that sets none.
	window, err := s.windowOf(nil)
	if err != nil {
		writeOpenAIError(w, http.StatusBadRequest, err.Error())
		return
	}
	reply, err := s.model.chat(r.Context(), protocol.Request{Messages: messages(req.Messages), Stop: stop}, stream, window)
	if err != nil {
		// The model reports every error before it streams anything.
		code, msg := chatFailure(err)
		writeOpenAIError(w, code, msg)
		return
	}
	finish := reply.DoneReason
	usage := openai.Usage{
		PromptTokens:     reply.Usage.PromptTokens,
		CompletionTokens: reply.Usage.OutputTokens,
		TotalTokens:      reply.Usage.PromptTokens + reply.Usage.OutputTokens,
	}
	if !oreq.Stream {
		writeJSON(w, http.StatusOK, openai.ChatCompletion{
			Id:                id,
			Object:            "chat.completion",
			Created:           created,
			Model:             req.Model,
			SystemFingerprint: "fp_ollama",
			Choices: []openai.Choice{{
				Message:      openai.Message{Role: "assistant", Content: reply.Content, Reasoning: reply.Thinking},
				FinishReason: &finish,
			}},
			Usage: usage,
		})
		return
	}
	send(chunk(openai.Message{Role: "assistant", Content: ""}, &finish))
	if oreq.StreamOptions != nil && oreq.StreamOptions.IncludeUsage {
		last := chunk(openai.Message{}, nil)
		last.Choices = []openai.ChunkChoice{}
		last.Usage = &usage
		send(last)
	}
	io.WriteString(w, "data: [DONE]\n\n")
	http.NewResponseController(w).Flush()
}

// listModels serves GET /v1/models: the one model the server serves.
func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, openai.ToListCompletion(s.list()))
}

// retrieveModel serves GET /v1/models/{model}.
func (s *Server) retrieveModel(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("model")
	if !s.serves(name) {
		writeOpenAIError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}
	writeJSON(w, http.StatusOK, openai.Model{Id: name, Object: "model", OwnedBy: "library"})
}

// openAIStop reads the stop field of an OpenAI request: absent, one
// string, or an array of strings.
func openAIStop(v any) ([]string, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []string{v}, nil
	case []any:
		return stopOption(map[string]any{"stop": v})
	}
	return nil, fmt.Errorf("stop must be a string or an array of strings")
}

// messages turns native messages into the model's.
func messages(msgs []api.Message) []protocol.Message {
	out := make([]protocol.Message, len(msgs))
	for i, m := range msgs {
		out[i] = protocol.Message{Role: protocol.Role(m.Role), Content: m.Content}
	}
	return out
}

// writeEvent writes v as one server-sent event and flushes it.
func writeEvent(w http.ResponseWriter, v any) {
	var b bytes.Buffer
	b.WriteString("data: ")
	json.NewEncoder(&b).Encode(v) // ends the line
	b.WriteString("\n")
	w.Write(b.Bytes())
	http.NewResponseController(w).Flush()
}

// writeOpenAIError writes an error in the OpenAI shape:
// {"error":{"message":...,"type":...}}.
func writeOpenAIError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, openai.NewError(code, msg))
}
