package fakemodel

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/ollama/ollama/api"

	"harness/protocol"
)

// keepAlive is how long the server claims its model stays loaded, as
// Ollama's default keep-alive.
const keepAlive = 5 * time.Minute

// generate serves POST /api/generate, which `ollama run` uses: the prompt
// (after the system text, when there is one) is the conversation, and the
// reply streams as NDJSON GenerateResponse chunks. A request without a
// prompt only loads the model, as with Ollama: it takes no reply from the
// script.
func (s *Server) generate(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var req api.GenerateRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if code, msg := s.refuse(req.Model, false); code != 0 {
		writeError(w, code, msg)
		return
	}
	if req.Prompt == "" {
		writeJSON(w, http.StatusOK, api.GenerateResponse{
			Model:      req.Model,
			CreatedAt:  time.Now().UTC(),
			Done:       true,
			DoneReason: "load",
		})
		return
	}
	stop, err := stopOption(req.Options)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	var preq protocol.Request
	if req.System != "" {
		preq.Messages = append(preq.Messages, protocol.Message{Role: protocol.System, Content: req.System})
	}
	preq.Messages = append(preq.Messages, protocol.Message{Role: protocol.User, Content: req.Prompt})
	preq.Stop = stop

	streaming := req.Stream == nil || *req.Stream
	send := ndjson[api.GenerateResponse](w)
	var stream func(protocol.Delta)
	if streaming {
		stream = func(d protocol.Delta) {
			send(api.GenerateResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Response: d.Content, Thinking: d.Thinking})
		}
	}
	reply, err := s.model.Chat(r.Context(), preq, stream)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	final := api.GenerateResponse{
		Model:      req.Model,
		CreatedAt:  time.Now().UTC(),
		Done:       true,
		DoneReason: reply.DoneReason,
		Metrics: api.Metrics{
			TotalDuration:   time.Since(start),
			PromptEvalCount: reply.Usage.PromptTokens,
			EvalCount:       reply.Usage.OutputTokens,
		},
	}
	if !streaming {
		final.Response, final.Thinking = reply.Content, reply.Thinking
		writeJSON(w, http.StatusOK, final)
		return
	}
	send(final)
}

// ps serves GET /api/ps: the server's model, always loaded.
func (s *Server) ps(w http.ResponseWriter, r *http.Request) {
	name := withTag(s.name)
	writeJSON(w, http.StatusOK, api.ProcessResponse{Models: []api.ProcessModelResponse{{
		Name:          name,
		Model:         name,
		Digest:        s.digest(),
		Details:       s.details(),
		ExpiresAt:     time.Now().Add(keepAlive).UTC(),
		ContextLength: contextLength,
	}}})
}
