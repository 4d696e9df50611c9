package plots

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"

	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
)

// ImageGrid lays out grey images, each a row-major height×width slice with pixels in [−1, 1] (the scale
// of the paper's image data), in a grid of cols columns with a 1-pixel white gutter. −1 maps to black and
// +1 to white; values outside [−1, 1] are clipped.
func ImageGrid(images [][]float32, height, width, cols int) (*image.Gray, error) {
	if len(images) == 0 || height <= 0 || width <= 0 || cols <= 0 {
		return nil, fmt.Errorf("image grid: need images and positive height, width and columns (got %d images, %d×%d, %d columns)", len(images), height, width, cols)
	}
	cols = min(cols, len(images))
	rows := (len(images) + cols - 1) / cols
	img := image.NewGray(image.Rect(0, 0, cols*(width+1)-1, rows*(height+1)-1))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for n, pixels := range images {
		if len(pixels) != height*width {
			return nil, fmt.Errorf("image grid: image %d has %d pixels, want %d×%d", n, len(pixels), height, width)
		}
		x0, y0 := (n%cols)*(width+1), (n/cols)*(height+1)
		for y := range height {
			for x := range width {
				img.SetGray(x0+x, y0+y, color.Gray{Y: Grey(pixels[y*width+x])})
			}
		}
	}
	return img, nil
}

// Grey maps a pixel value in [−1, 1] to an 8-bit grey level (clipping values outside the range).
func Grey(v float32) uint8 {
	g := (float64(v) + 1) / 2 * 255
	return uint8(min(max(g+0.5, 0), 255))
}

// WritePNG writes img to path atomically (a temporary file synced and renamed into place; package
// internal/atomicfile) with permission 0644, creating directories.
func WritePNG(path string, img image.Image) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return png.Encode(w, img) })
}
