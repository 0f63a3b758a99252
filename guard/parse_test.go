package guard

import "testing"

func TestLongOption(t *testing.T) {
	tests := []struct {
		arg, opt string
		want     bool
	}{
		{"--compress-program", "--compress-program", true},
		{"--compress-program=bash", "--compress-program", true},
		{"--compress-prog=bash", "--compress-program", true},
		{"--c", "--compress-program", true},
		{"--", "--compress-program", false},
		{"--=x", "--compress-program", false},
		{"--compress-programs", "--compress-program", false},
		{"--compress-program-x=1", "--compress-program", false},
		{"-c", "--compress-program", false},
		{"compress", "--compress-program", false},
		{"--har", "--hard", true},
		{"--har=x", "--hard", true},
		{"--hardx", "--hard", false},
		{"--h", "-h", false},
	}
	for _, tt := range tests {
		if got := longOption(tt.arg, tt.opt); got != tt.want {
			t.Errorf("longOption(%q, %q) = %v, want %v", tt.arg, tt.opt, got, tt.want)
		}
	}
}

func TestTestRefusal(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		refuse bool
	}{
		{"test", []string{"-v", "HOME"}, false},
		{"test", []string{"-v", "a[1]"}, true},
		{"test", []string{"-R", "a[$(x)]"}, true},
		{"[", []string{"-v", "x", "]"}, false},
		{"[", []string{"-v", "]"}, false},
		{"[", []string{"a", "=", "-v", "]"}, false},
		{"test", []string{"1", "-eq", "-2"}, false},
		{"test", []string{"n", "-ne", "+2"}, false},
		{"test", []string{"a[1]", "-eq", "0"}, true},
		{"[", []string{"0", "-gt", "1+1", "]"}, true},
		{"[", []string{"0", "-le", "", "]"}, true},
		{"test", []string{"-f", "a[1]"}, false},
	}
	for _, tt := range tests {
		if got := testRefusal(tt.name, tt.args) != ""; got != tt.refuse {
			t.Errorf("testRefusal(%q, %q) refuses %v, want %v", tt.name, tt.args, got, tt.refuse)
		}
	}
}
