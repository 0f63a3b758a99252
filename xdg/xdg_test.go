package xdg_test

import (
	"errors"
	"path/filepath"
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
