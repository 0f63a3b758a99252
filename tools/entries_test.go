package tools

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestEntries: the entries are list_files's, secrets and ignored files
// left out, and a secret folder or a path outside is refused.
func TestEntries(t *testing.T) {
	ws := secretWorkspace(t)
	got, err := ws.Entries(context.Background(), ".")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := []string{"certs/", "deploy/", "keep.log", "main.go", "ops/", "secrets.env.example", "sub/"}
	if !slices.Equal(got, want) {
		t.Errorf("entries %q, want %q", got, want)
	}
	if _, err := ws.Entries(context.Background(), "build"); !errors.Is(err, ErrSecret) {
		t.Errorf("an ignored folder: %v, want ErrSecret", err)
	}
	if _, err := ws.Entries(context.Background(), "../"); err == nil {
		t.Error("a path outside the workspace was listed")
	}
}
