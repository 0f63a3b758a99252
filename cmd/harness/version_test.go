package main

import (
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
