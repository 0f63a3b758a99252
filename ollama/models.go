package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
)

// Models lists the models the server has (GET /api/tags), sorted, each by
// the name it is asked for with: without the tag when that is "latest".
func (m *Model) Models(ctx context.Context) ([]string, error) {
	have, err := m.tags(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(have))
	for i, a := range have {
		names[i] = a.Name
	}
	slices.Sort(names)
	return names, nil
}

// tags asks the server for the models it has (GET /api/tags), in its
// order, each by the name it is asked for with: without the tag when that
// is "latest".
func (m *Model) tags(ctx context.Context) ([]Available, error) {
	data, err := m.get(ctx, http.MethodGet, "tags", nil)
	var status api.StatusError
	switch {
	case errors.As(err, &status):
		return nil, fmt.Errorf("%w: GET /api/tags: %w", ErrRefused, err)
	case err != nil:
		return nil, m.explain(ctx, err)
	}
	var list api.ListResponse
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("reading the list of models of %s: %w", m.where(), err)
	}
	have := make([]Available, len(list.Models))
	for i, lm := range list.Models {
		have[i] = Available{Name: strings.TrimSuffix(lm.Name, ":latest"), Family: lm.Details.Family}
	}
	return have, nil
}
