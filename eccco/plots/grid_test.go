package plots

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestGreyScale(t *testing.T) {
	for _, c := range []struct {
		v    float32
		want uint8
	}{{-1, 0}, {1, 255}, {0, 128}, {-2, 0}, {3, 255}, {0.5, 191}} { // (0.5+1)/2·255 = 191.25
		if got := Grey(c.v); got != c.want {
			t.Errorf("Grey(%v) = %d, want %d", c.v, got, c.want)
		}
	}
}

func TestImageGridLayoutAndPNG(t *testing.T) {
	black, white := []float32{-1, -1, -1, -1}, []float32{1, 1, 1, 1}
	img, err := ImageGrid([][]float32{black, black, black}, 2, 2, 2) // 2 columns, 2 rows, 1-px gutters
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 5 || b.Dy() != 5 {
		t.Fatalf("grid is %d×%d, want 5×5", b.Dx(), b.Dy())
	}
	// Images at columns 0–1 and 3–4 of rows 0–1; the third image starts row 2 of cells, at (0, 3).
	if img.GrayAt(0, 0).Y != 0 || img.GrayAt(2, 0).Y != 255 || img.GrayAt(0, 3).Y != 0 || img.GrayAt(4, 4).Y != 255 {
		t.Errorf("unexpected pixels: image, gutter, third image, empty cell = %d %d %d %d",
			img.GrayAt(0, 0).Y, img.GrayAt(2, 0).Y, img.GrayAt(0, 3).Y, img.GrayAt(4, 4).Y)
	}
	path := filepath.Join(t.TempDir(), "sub", "grid.png")
	if err := WritePNG(path, img); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _, _ := back.At(0, 3).RGBA(); r != 0 {
		t.Errorf("decoded pixel (0,3) = %d, want black", r)
	}
	if _, err := ImageGrid([][]float32{white, {1}}, 2, 2, 2); err == nil {
		t.Error("an image of the wrong size was accepted")
	}
}
