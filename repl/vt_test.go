package repl

import (
	"strconv"
	"strings"
	"sync"
)

// vt is the screen of a terminal, as far as the tests need one: it
// prints text, wraps it at the right edge, scrolls at the bottom, and acts
// on carriage return, line feed, backspace, the cursor moves (CSI A B C D
// G H), and the erasures of lines and screens (CSI J, K). Other sequences
// (colours, modes, the cursor's shape) are read and ignored.
type vt struct {
	mu         sync.Mutex
	rows, cols int
	cells      [][]rune
	row, col   int
	wrap       bool   // the last column was written: the next rune wraps first
	esc        []byte // an escape sequence read so far
}

func newVT(rows, cols int) *vt {
	v := &vt{rows: rows, cols: cols, cells: make([][]rune, rows)}
	for i := range v.cells {
		v.cells[i] = blankRow(cols)
	}
	return v
}

func blankRow(cols int) []rune {
	return []rune(strings.Repeat(" ", cols))
}

// Write feeds the terminal what a program wrote to it.
func (v *vt) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, r := range string(p) {
		v.put(r)
	}
	return len(p), nil
}

func (v *vt) put(r rune) {
	if v.esc != nil {
		v.escape(r)
		return
	}
	switch r {
	case 0x1b:
		v.esc = []byte{}
	case '\r':
		v.col, v.wrap = 0, false
	case '\n':
		v.lineFeed()
	case '\b':
		v.col, v.wrap = max(0, v.col-1), false
	case '\a', 0:
	default:
		if v.wrap {
			v.col, v.wrap = 0, false
			v.lineFeed()
		}
		v.cells[v.row][v.col] = r
		if v.col == v.cols-1 {
			v.wrap = true
		} else {
			v.col++
		}
	}
}

func (v *vt) lineFeed() {
	v.wrap = false
	if v.row < v.rows-1 {
		v.row++
		return
	}
	copy(v.cells, v.cells[1:])
	v.cells[v.rows-1] = blankRow(v.cols)
}

// escape reads one more rune of an escape sequence, and acts on the
// sequence once it is whole.
func (v *vt) escape(r rune) {
	if len(v.esc) == 0 && r != '[' {
		v.esc = nil // a two-byte sequence (ESC 7, ESC =, ...): ignored
		return
	}
	v.esc = append(v.esc, byte(r))
	if len(v.esc) == 1 || r < 0x40 || r > 0x7e {
		return // the final byte of CSI is in @ to ~
	}
	params := string(v.esc[1 : len(v.esc)-1])
	v.esc = nil
	if strings.ContainsAny(params, "?> ") {
		return // private modes and the cursor's shape
	}
	n := func(i, def int) int {
		fields := strings.Split(params, ";")
		if i >= len(fields) {
			return def
		}
		k, err := strconv.Atoi(fields[i])
		if err != nil || k == 0 && def == 1 {
			return def
		}
		return k
	}
	switch r {
	case 'A':
		v.row = max(0, v.row-n(0, 1))
	case 'B':
		v.row = min(v.rows-1, v.row+n(0, 1))
	case 'C':
		v.col = min(v.cols-1, v.col+n(0, 1))
	case 'D':
		v.col = max(0, v.col-n(0, 1))
	case 'G':
		v.col = min(v.cols-1, n(0, 1)-1)
	case 'H':
		v.row, v.col = min(v.rows-1, n(0, 1)-1), min(v.cols-1, n(1, 1)-1)
	case 'J':
		switch n(0, 0) {
		case 0:
			v.clearLine(v.col, v.cols)
			for i := v.row + 1; i < v.rows; i++ {
				v.cells[i] = blankRow(v.cols)
			}
		case 2, 3:
			for i := range v.cells {
				v.cells[i] = blankRow(v.cols)
			}
		}
	case 'K':
		switch n(0, 0) {
		case 0:
			v.clearLine(v.col, v.cols)
		case 1:
			v.clearLine(0, v.col+1)
		case 2:
			v.clearLine(0, v.cols)
		}
	default:
		return // colours and the rest leave the screen as it is
	}
	v.wrap = false
}

func (v *vt) clearLine(from, to int) {
	for i := from; i < to; i++ {
		v.cells[v.row][i] = ' '
	}
}

// lines returns the rows of the screen, the spaces at their ends trimmed,
// and the row the cursor is on.
func (v *vt) lines() (lines []string, cursor int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, row := range v.cells {
		lines = append(lines, strings.TrimRight(string(row), " "))
	}
	return lines, v.row
}
