package tools

import "context"

// Entries returns the entries of the directory path of the workspace as
// list_files lists them, unsorted: hidden entries, secrets and files
// ignored by .gitignore left out (unless ctx allows secrets, see
// WithSecrets), directories ending in /. A path outside the workspace, or
// a secret one, is an error, as it is for list_files.
func (w *Workspace) Entries(ctx context.Context, path string) ([]string, error) {
	_, names, err := listDir(ctx, w, path)
	return names, err
}
