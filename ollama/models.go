package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
)

// maxList bounds how much of a list of models is read.
const maxList = 4 << 20

// Models lists the models the server has (GET /api/tags), sorted, each by
// the name it is asked for with: without the tag when that is "latest".
func (m *Model) Models(ctx context.Context) ([]string, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, m.host.JoinPath("api", "tags").String(), nil)
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Accept", "application/json")
	resp, err := m.http.Do(hreq)
	if err != nil {
		return nil, m.explain(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxList))
	if err != nil {
		return nil, m.explain(ctx, err)
	}
	if resp.StatusCode >= http.StatusBadRequest {
		return nil, fmt.Errorf("%w: GET /api/tags: %w", ErrRefused, statusError(resp, body))
	}
	var list api.ListResponse
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("reading the list of models of %s: %w", m.where(), err)
	}
	names := make([]string, len(list.Models))
	for i, lm := range list.Models {
		names[i] = strings.TrimSuffix(lm.Name, ":latest")
	}
	slices.Sort(names)
	return names, nil
}
