package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestLookAtTellsWhatLstatTells checks that lookInfo, which the walks keep
// in the place of os.Lstat's answer, tells the same of every kind of file:
// a stamp or a mark made from one must equal the one made from the other.
func TestLookAtTellsWhatLstatTells(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	if err := os.WriteFile(file, []byte("twelve bytes"), 0o640); err != nil {
		t.Fatal(err)
	}
	past := time.Date(1969, 7, 20, 20, 17, 40, 123456789, time.UTC) // before 1970, with a part of a second
	if err := os.Chtimes(file, past, past); err != nil {
		t.Fatal(err)
	}
	twice := filepath.Join(dir, "twice.txt")
	if err := os.Link(file, twice); err != nil && runtime.GOOS != "windows" {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{"file": file, "folder": folder, "root": dir}
	if runtime.GOOS != "windows" {
		sticky := filepath.Join(dir, "sticky")
		if err := os.Mkdir(sticky, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(sticky, 0o777|fs.ModeSticky|fs.ModeSetgid); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "link")
		if err := os.Symlink("file.txt", link); err != nil {
			t.Fatal(err)
		}
		fifo := filepath.Join(dir, "fifo")
		if err := mkfifo(fifo); err != nil {
			t.Fatal(err)
		}
		paths["sticky folder"], paths["link"], paths["fifo"], paths["device"] = sticky, link, fifo, os.DevNull
	}
	for name, p := range paths {
		t.Run(name, func(t *testing.T) {
			fi, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			l, err := lookAt(p)
			if err != nil {
				t.Fatal(err)
			}
			if l.Name() != fi.Name() || l.Size() != fi.Size() || l.Mode() != fi.Mode() || l.IsDir() != fi.IsDir() {
				t.Errorf("lookAt = %q %d %v %v; os.Lstat = %q %d %v %v", l.Name(), l.Size(), l.Mode(), l.IsDir(), fi.Name(), fi.Size(), fi.Mode(), fi.IsDir())
			}
			if l.ModTime() != fi.ModTime() {
				t.Errorf("ModTime = %v, os.Lstat's %v", l.ModTime(), fi.ModTime())
			}
			lid, lok := fileID(&l)
			fid, fok := sysFileID(fi)
			if lid != fid || lok != fok || changeTime(&l) != sysChangeTime(fi) || links(&l) != sysLinks(fi) {
				t.Errorf("identity, change time, links = %v %v %d %d; of os.Lstat's: %v %v %d %d", lid, lok, changeTime(&l), links(&l), fid, fok, sysChangeTime(fi), sysLinks(fi))
			}
			if l.stamp() != stampFrom(fi) || stampFrom(&l) != stampFrom(fi) || stampOf(p) != stampFrom(fi) {
				t.Errorf("stamps differ: %+v, %+v, %+v; os.Lstat's %+v", l.stamp(), stampFrom(&l), stampOf(p), stampFrom(fi))
			}
			lm, lok := markOf(&l)
			fm, fok := markOf(fi)
			if lm != fm || lok != fok {
				t.Errorf("markOf = %+v %v; of os.Lstat's %+v %v", lm, lok, fm, fok)
			}
			if lookOf(fi) != l {
				t.Errorf("lookOf(os.Lstat) = %+v; lookAt = %+v", lookOf(fi), l)
			}
		})
	}
	if l, _ := lookAt(file); runtime.GOOS != "windows" && l.links != 2 {
		t.Errorf("a file with two names has %d links", l.links)
	}
	// Windows gives no identity: a folder's stamp is not to be told apart.
	if st, ok := folderStampOf(folder); ok != (runtime.GOOS != "windows") || ok && st.id == (id{}) {
		t.Errorf("folderStampOf(folder) = %+v, %v", st, ok)
	}
	if _, err := lookAt(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lookAt of a missing file: %v, want fs.ErrNotExist", err)
	}
}

// TestLookSlabKeepsEach checks that a slab makes one allocation for
// every 256 looks it keeps, and that each look it hands out stays as it
// was kept while later ones fill its blocks.
func TestLookSlabKeepsEach(t *testing.T) {
	var s lookSlab
	var kept []*lookInfo
	for i := range 600 {
		kept = append(kept, s.keep(lookInfo{size: int64(i)}))
	}
	for i, l := range kept {
		if l.size != int64(i) {
			t.Fatalf("look %d holds %d", i, l.size)
		}
	}
	if n := testing.AllocsPerRun(20, func() {
		var s lookSlab
		for range 600 {
			s.keep(lookInfo{})
		}
	}); n != 3 {
		t.Errorf("600 looks took %v allocations; want 3 blocks of 256", n)
	}
}
