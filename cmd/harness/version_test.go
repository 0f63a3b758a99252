package main

import (
	"bytes"
	"context"
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "dev"},
		{"a module version", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"a build with no commit", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"a build of a commit", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcs("vcs.revision", "8f7854f0a1b2c3d4", "vcs.time", "2026-12-01T23:34:31Z", "vcs.modified", "false")},
			"dev (commit 8f7854f0a1b2 of 2026-12-01T23:34:31Z)"},
		{"a build of a changed tree", &debug.BuildInfo{Settings: vcs("vcs.revision", "8f7854f", "vcs.modified", "true")},
			"dev (commit 8f7854f, with changes not committed)"},
	}
	for _, tt := range tests {
		if got := versionOf(tt.info); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// `harness --version` alone, answered before the parser is built, prints
// what the parser's version flag prints when other words come with it.
func TestVersionAlone(t *testing.T) {
	ctx := context.Background()
	var alone, parsed, stderr bytes.Buffer
	if code := execute(ctx, []string{"--version"}, nil, &alone, &stderr); code != exitOK || stderr.Len() > 0 {
		t.Fatalf("--version: exit %d, stderr %q", code, stderr.String())
	}
	if code := execute(ctx, []string{"-w", t.TempDir(), "--version"}, nil, &parsed, &stderr); code != exitOK || stderr.Len() > 0 {
		t.Fatalf("-w DIR --version: exit %d, stderr %q", code, stderr.String())
	}
	if alone.String() != parsed.String() || alone.String() != version()+"\n" {
		t.Errorf("--version printed %q; with -w it printed %q; want both %q", alone.String(), parsed.String(), version()+"\n")
	}
}
