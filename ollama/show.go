package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"
)

// ContextLength asks the server for the context length m's model was
// trained with: the most tokens any num_ctx can give it (the server
// quietly lowers a larger num_ctx to it). It reads /api/show's model_info,
// where the key is "<architecture>.context_length". It returns 0 and no
// error when the model does not say. Errors are those of Chat:
// ErrModelNotFound, ErrUnreachable, ErrRefused.
func (m *Model) ContextLength(ctx context.Context) (int, error) {
	data, err := m.show(ctx)
	if err != nil {
		return 0, m.explain(ctx, err)
	}
	var show struct {
		ModelInfo map[string]any `json:"model_info"`
	}
	if err := json.Unmarshal(data, &show); err != nil {
		return 0, fmt.Errorf("reading the details of %s from %s: %w", m.name, m.where(), err)
	}
	return contextLength(show.ModelInfo), nil
}

// show posts /api/show for the model and returns the answer's body.
func (m *Model) show(ctx context.Context) ([]byte, error) {
	body, err := json.Marshal(api.ShowRequest{Model: m.name})
	if err != nil {
		return nil, err
	}
	return m.get(ctx, http.MethodPost, "show", body)
}

// contextLength finds the context length in a model_info map: the key of
// the model's architecture (general.architecture), or else the largest
// value of a key ending in ".context_length". 0 when there is none.
func contextLength(info map[string]any) int {
	const suffix = ".context_length"
	if arch, ok := info["general.architecture"].(string); ok {
		if n := positive(info[arch+suffix]); n > 0 {
			return n
		}
	}
	best := 0
	for k, v := range info {
		if strings.HasSuffix(k, suffix) {
			best = max(best, positive(v))
		}
	}
	return best
}

// positive is v as a positive whole number, or 0.
func positive(v any) int {
	f, ok := v.(float64)
	if !ok || f < 1 || f != float64(int(f)) {
		return 0
	}
	return int(f)
}
