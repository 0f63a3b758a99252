package xdg_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"harness/xdg"
)

func TestDirs(t *testing.T) {
	if filepath.Separator == '\\' {
		t.Skip("the absolute paths of the table are Unix paths")
	}
	home := func(dir string) func() (string, error) {
		return func() (string, error) { return dir, nil }
	}
	noHome := func() (string, error) { return "", errors.New("$HOME is not defined") }
	abs := func(p string) string { return filepath.FromSlash(p) }
	tests := []struct {
		name          string
		env           map[string]string
		home          func() (string, error)
		config, state string // "" when an error wrapping ErrNoHome is wanted
	}{
		{"variables", map[string]string{"XDG_CONFIG_HOME": abs("/cfg"), "XDG_STATE_HOME": abs("/st")}, noHome, abs("/cfg/harness"), abs("/st/harness")},
		{"home", nil, home(abs("/home/me")), abs("/home/me/.config/harness"), abs("/home/me/.local/state/harness")},
		{"relative variables are ignored", map[string]string{"XDG_CONFIG_HOME": "cfg", "XDG_STATE_HOME": "st"}, home(abs("/home/me")), abs("/home/me/.config/harness"), abs("/home/me/.local/state/harness")},
		{"no home", nil, noHome, "", ""},
		{"a relative home", nil, home("me"), "", ""},
		{"no home func", map[string]string{"XDG_STATE_HOME": abs("/st")}, nil, "", abs("/st/harness")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := xdg.Dirs{Getenv: func(k string) string { return tt.env[k] }, Home: tt.home}
			for _, c := range []struct {
				what string
				get  func() (string, error)
				want string
			}{{"Config", d.Config, tt.config}, {"State", d.State, tt.state}} {
				got, err := c.get()
				switch {
				case c.want == "" && !errors.Is(err, xdg.ErrNoHome):
					t.Errorf("%s() = %q, %v; want an error wrapping ErrNoHome", c.what, got, err)
				case c.want != "" && (got != c.want || err != nil):
					t.Errorf("%s() = %q, %v; want %q", c.what, got, err, c.want)
				}
			}
		})
	}
}

// ForWorkspace gives each workspace its own entry of a kind in the state
// folder, named so that a person can tell it, and two workspaces of one
// name apart.
func TestForWorkspace(t *testing.T) {
	d := xdg.Dirs{Getenv: func(v string) string {
		if v == "XDG_STATE_HOME" {
			return "/state"
		}
		return ""
	}, Home: func() (string, error) { return "/home/u", nil }}
	a, err := d.ForWorkspace("caches", "/src/app")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := d.ForWorkspace("caches", "/src/app")
	other, _ := d.ForWorkspace("caches", "/work/app")
	hashes, _ := d.ForWorkspace("ignores", "/src/app")
	if a != again || a == other || filepath.Base(a) != filepath.Base(hashes) {
		t.Errorf("entries %q, %q, %q, %q", a, again, other, hashes)
	}
	if dir := filepath.Dir(a); dir != filepath.Join("/state", "harness", "caches") || !strings.HasPrefix(filepath.Base(a), "app-") || len(filepath.Base(a)) != len("app-")+12 {
		t.Errorf("entry %q", a)
	}
	none := xdg.Dirs{Getenv: func(string) string { return "" }, Home: func() (string, error) { return "", errors.New("no home") }}
	if _, err := none.ForWorkspace("caches", "/src/app"); err == nil {
		t.Error("an entry without a state folder")
	}
}
