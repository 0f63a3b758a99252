package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// models lists the ids GET BASE/models gives. An HTTP error status is a
// *StatusError.
func (m *Model) models(ctx context.Context) ([]string, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, m.base.JoinPath("models").String(), nil)
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Accept", "application/json")
	m.authorize(hreq)
	resp, err := m.http.Do(hreq)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= http.StatusBadRequest {
		status := m.statusError(resp)
		status.Tries = 1
		return nil, status
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return nil, fmt.Errorf("reading the list of models: %w", err)
	}
	names := make([]string, len(list.Data))
	for i, d := range list.Data {
		names[i] = d.ID
	}
	return names, nil
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
