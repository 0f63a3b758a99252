package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newWorkspace makes a workspace in a temporary directory holding files,
// given by slash-separated path; a path ending in / is an empty directory.
func newWorkspace(t *testing.T, files map[string]string) *Workspace {
	t.Helper()
	root := filepath.Join(t.TempDir(), "ws")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, files)
	ws, err := NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// run calls tool with args as protocol.Check would leave them.
func run(t *testing.T, tool Tool, args map[string]any) (string, error) {
	t.Helper()
	return tool.run(context.Background(), args)
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noTempFiles fails the test when a temporary file of writeAtomic is left
// anywhere under root.
func noTempFiles(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", path)
		}
		return nil
	})
}
