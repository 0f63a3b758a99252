package main

import (
	"testing"
)

func TestByteSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64 // 0: refused
	}{
		{"1GiB", 1 << 30},
		{"1G", 1 << 30},
		{"2gb", 2 << 30},
		{"100MiB", 100 << 20},
		{"512K", 512 << 10},
		{"512k", 512 << 10},
		{"4096", 4096},
		{"100B", 100},
		{" 7M ", 7 << 20},
		{"0", 0},
		{"-1G", 0},
		{"1T", 0},
		{"1.5G", 0},
		{"G", 0},
		{"", 0},
		{"9223372036854775807G", 0},
	}
	for _, tt := range tests {
		var b byteSize
		err := b.UnmarshalText([]byte(tt.in))
		if tt.want == 0 && err == nil || tt.want != 0 && (err != nil || int64(b) != tt.want) {
			t.Errorf("UnmarshalText(%q) = %d, %v; want %d", tt.in, b, err, tt.want)
		}
	}
}
