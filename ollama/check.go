package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/ollama/ollama/api"
)

// MissingError is the error of Check for a server that does not have the
// model. It wraps ErrModelNotFound.
type MissingError struct {
	Model string
	Host  *url.URL // as the model was given it, password and all
	// Have lists the models the server has.
	Have []Available
}

// Available is a model a server has.
type Available struct {
	Name   string
	Family string // the family of its architecture, as the server reports it
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("%v: %q is not on the Ollama server at %s", ErrModelNotFound, e.Model, e.Host.Redacted())
}

func (e *MissingError) Unwrap() error { return ErrModelNotFound }

// Check asks the server whether it has the model, without loading it. It
// returns nil when it does, a *MissingError when it does not, and an
// error wrapping ErrUnreachable when no server answers.
func (m *Model) Check(ctx context.Context) error {
	body, err := json.Marshal(api.ShowRequest{Model: m.name})
	if err != nil {
		return err
	}
	status, _, err := m.get(ctx, http.MethodPost, "show", body)
	switch {
	case err != nil:
		return m.explain(ctx, err)
	case status == http.StatusOK:
		return nil
	case status != http.StatusNotFound:
		return fmt.Errorf("%w (HTTP %d) to /api/show", ErrRefused, status)
	}
	missing := &MissingError{Model: m.name, Host: m.host}
	status, data, err := m.get(ctx, http.MethodGet, "tags", nil)
	if err != nil || status != http.StatusOK {
		return missing
	}
	var list api.ListResponse
	if json.Unmarshal(data, &list) == nil {
		for _, lm := range list.Models {
			missing.Have = append(missing.Have, Available{Name: strings.TrimSuffix(lm.Name, ":latest"), Family: lm.Details.Family})
		}
	}
	return missing
}

// get sends a request to /api/NAME and returns the status and, up to
// 1 MiB, the body of the answer.
func (m *Model) get(ctx context.Context, method, name string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, m.host.JoinPath("api", name).String(), bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := m.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, data, err
}
