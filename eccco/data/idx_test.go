package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// idxBytes builds an idx file of unsigned bytes.
func idxBytes(magic uint32, dims []int, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, magic)
	for _, d := range dims {
		binary.Write(&b, binary.BigEndian, uint32(d))
	}
	b.Write(data)
	return b.Bytes()
}

func gzipBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// fixtureImages returns n images of rows×cols pixels whose pixel p of image i is (i*7 + p*13) mod 256,
// with image 0 all zeros, and labels i mod 10.
func fixtureImages(n, rows, cols int) (images, labels []byte) {
	images = make([]byte, n*rows*cols)
	labels = make([]byte, n)
	for i := range n {
		for p := range rows * cols {
			if i > 0 {
				images[i*rows*cols+p] = byte((i*7 + p*13) % 256)
			}
		}
		labels[i] = byte(i % 10)
	}
	images[len(images)-1] = 255
	return images, labels
}

func TestReadIDXRawAndGzip(t *testing.T) {
	dir := t.TempDir()
	imgs, labs := fixtureImages(12, 3, 2)
	imgFile := idxBytes(idxImagesMagic, []int{12, 3, 2}, imgs)
	labFile := idxBytes(idxLabelsMagic, []int{12}, labs)
	raw, err := ReadIDX(writeFile(t, dir, "raw/img", imgFile), writeFile(t, dir, "raw/lab", labFile))
	if err != nil {
		t.Fatal(err)
	}
	// gzip is recognised by its magic bytes, whatever the file is called.
	gz, err := ReadIDX(writeFile(t, dir, "gz/img", gzipBytes(t, imgFile)), writeFile(t, dir, "gz/lab.gz", gzipBytes(t, labFile)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(raw.X, gz.X) || !reflect.DeepEqual(raw.Y, gz.Y) {
		t.Error("raw and gzipped files read differently")
	}
	if raw.N() != 12 || raw.D() != 6 || raw.K() != 10 || *raw.Image != (ImageShape{3, 2, 1}) || raw.Name != "raw" {
		t.Errorf("N=%d D=%d K=%d image=%v name=%q", raw.N(), raw.D(), raw.K(), raw.Image, raw.Name)
	}
	for i, b := range imgs {
		if want := float32(float64(b)/255*2 - 1); raw.X[i] != want {
			t.Fatalf("pixel %d: %v, want %v", i, raw.X[i], want)
		}
	}
	if raw.X[0] != -1 || raw.X[len(raw.X)-1] != 1 {
		t.Errorf("0 and 255 map to %v and %v, want -1 and 1", raw.X[0], raw.X[len(raw.X)-1])
	}
	if raw.Y[11] != 1 || raw.FeatureNames[5] != "r2c1" {
		t.Errorf("label %d, feature name %q", raw.Y[11], raw.FeatureNames[5])
	}
}

func TestReadIDXErrors(t *testing.T) {
	dir := t.TempDir()
	imgs, labs := fixtureImages(5, 2, 2)
	goodImg := idxBytes(idxImagesMagic, []int{5, 2, 2}, imgs)
	goodLab := idxBytes(idxLabelsMagic, []int{5}, labs)
	gzImg := gzipBytes(t, goodImg)
	corruptGz := bytes.Clone(gzImg)
	corruptGz[len(corruptGz)-6] ^= 0xff // inside the CRC-32 / length trailer
	badLab := bytes.Clone(goodLab)
	badLab[len(badLab)-1] = 10
	for _, tc := range []struct {
		name     string
		img, lab []byte
		inLabels bool // the error must name the label file
		want     []string
	}{
		{"truncated", goodImg[:len(goodImg)-3], goodLab, false, []string{"truncated", "ends after 17"}},
		{"header-only", goodImg[:6], goodLab, false, []string{"truncated inside the idx header"}},
		{"tiny", goodImg[:2], goodLab, false, []string{"too short"}},
		{"trailing", append(bytes.Clone(goodImg), 0), goodLab, false, []string{"data after the 20 bytes"}},
		{"wrong-magic", idxBytes(0x00000801, []int{5}, labs), goodLab, false, []string{"magic number is 0x00000801, want 0x00000803"}},
		{"labels-as-images", goodImg, goodImg, true, []string{"magic number is 0x00000803, want 0x00000801"}},
		{"count", goodImg, idxBytes(idxLabelsMagic, []int{4}, labs[:4]), true, []string{"4 labels", "5 images"}},
		{"label10", goodImg, badLab, true, []string{"label 10 of item 4", "0..9"}},
		{"gzip-truncated", gzImg[:len(gzImg)-10], goodLab, false, []string{"corrupt or truncated gzip data"}},
		{"gzip-crc", corruptGz, goodLab, false, []string{"corrupt or truncated gzip data"}},
		{"gzip-header", []byte{0x1f, 0x8b, 0, 0}, goodLab, false, []string{"gzip header"}},
		{"zero-dim", idxBytes(idxImagesMagic, []int{5, 0, 2}, nil), goodLab, false, []string{"dimension 1 equal to 0"}},
		{"huge", idxBytes(idxImagesMagic, []int{1 << 20, 1 << 10, 1 << 10}, nil), goodLab, false, []string{"corrupt header"}},
	} {
		ip := writeFile(t, dir, tc.name+"-images", tc.img)
		lp := writeFile(t, dir, tc.name+"-labels", tc.lab)
		_, err := ReadIDX(ip, lp)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		named := ip
		if tc.inLabels {
			named = lp
		}
		for _, w := range append(tc.want, named) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", tc.name, err, w)
			}
		}
	}
	if _, err := ReadIDX(filepath.Join(dir, "missing"), filepath.Join(dir, "missing2")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing file: %v", err)
	}
}

// writeVisionFixture writes a small MNIST-style set (train: 10 images per class, test: 20 images) into
// dir/sub, the training images gzipped and the rest raw.
func writeVisionFixture(t *testing.T, dir, sub string) (trainImgs []byte) {
	t.Helper()
	trainImgs, trainLabs := fixtureImages(100, 4, 3)
	testImgs, testLabs := fixtureImages(20, 4, 3)
	writeFile(t, dir, sub+"/train-images-idx3-ubyte.gz", gzipBytes(t, idxBytes(idxImagesMagic, []int{100, 4, 3}, trainImgs)))
	writeFile(t, dir, sub+"/train-labels-idx1-ubyte", idxBytes(idxLabelsMagic, []int{100}, trainLabs))
	writeFile(t, dir, sub+"/t10k-images-idx3-ubyte", idxBytes(idxImagesMagic, []int{20, 4, 3}, testImgs))
	writeFile(t, dir, sub+"/t10k-labels-idx1-ubyte.gz", gzipBytes(t, idxBytes(idxLabelsMagic, []int{20}, testLabs)))
	return trainImgs
}

func TestLoadVisionRecipeOnFixture(t *testing.T) {
	dir := t.TempDir()
	trainImgs := writeVisionFixture(t, dir, "fashion-mnist")
	if ok, err := Present("fashion-mnist", dir); !ok || err != nil {
		t.Fatalf("Present = %v, %v", ok, err)
	}
	s, err := Load("fashion-mnist", Options{Dir: dir, Seed: 3, PerClass: 400})
	if err != nil {
		t.Fatal(err)
	}
	if s.Train.N() != 4000 || s.Test.N() != 20 || *s.Train.Image != (ImageShape{4, 3, 1}) {
		t.Fatalf("train %d, test %d, image %v", s.Train.N(), s.Test.N(), s.Train.Image)
	}
	for k, c := range s.Train.ClassCounts() {
		if c != 400 {
			t.Errorf("class %d has %d training images, want 400", k, c)
		}
	}
	if s.Train.ClassNames[9] != "Ankle boot" || s.Standardizer != nil {
		t.Errorf("class names %v, standardizer %v", s.Train.ClassNames, s.Standardizer)
	}
	for j := range s.Lower {
		if s.Lower[j] != -1 || s.Upper[j] != 1 {
			t.Fatalf("bounds of pixel %d are [%v, %v], want [-1, 1]", j, s.Lower[j], s.Upper[j])
		}
	}
	for _, v := range s.Test.X {
		if v < -1 || v > 1 {
			t.Fatalf("test pixel %v outside [-1, 1]", v)
		}
	}
	// Training rows are fixture images plus N(0, 0.03²) noise: the residual against the nearest image of
	// the row's class must look like that noise. Find each row's source image by least squares.
	D := 12
	var resid []float64
	for i := range s.Train.N() {
		row := s.Train.Row(i)
		best, bestErr := -1, math.Inf(1)
		for src := s.Train.Y[i]; src < 100; src += 10 { // images of class k are k, k+10, …
			e := 0.0
			for p := range D {
				d := float64(row[p]) - float64(pixelScale[trainImgs[src*D+p]])
				e += d * d
			}
			if e < bestErr {
				best, bestErr = src, e
			}
		}
		for p := range D {
			resid = append(resid, float64(row[p])-float64(pixelScale[trainImgs[best*D+p]]))
		}
	}
	m, sd := meanSD(resid)
	near(t, "mean training noise", m, 0, 0.002)
	near(t, "sd of training noise", sd, 0.03, 0.001)

	again, err := Load("fashion-mnist", Options{Dir: dir, Seed: 3, PerClass: 400})
	if err != nil || !reflect.DeepEqual(again, s) {
		t.Errorf("same seed gave a different split (%v)", err)
	}
}

func TestLoadVisionMissing(t *testing.T) {
	dir := t.TempDir()
	_, err := Load("mnist", Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "eccco data fetch mnist") || !strings.Contains(err.Error(), dir) {
		t.Errorf("error %v should say how to fetch MNIST", err)
	}
	if ok, err := Present("mnist", dir); ok || err != nil {
		t.Errorf("Present = %v, %v", ok, err)
	}
}
