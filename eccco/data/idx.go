package data

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// The idx format (LeCun's MNIST files): a 4-byte magic (two zero bytes, a type code, the number of
// dimensions), one big-endian uint32 per dimension, then the data in row-major order. MNIST and
// Fashion-MNIST use unsigned bytes (type 0x08): images are 3-dimensional (N, rows, cols) with magic
// 0x00000803, labels 1-dimensional (N) with magic 0x00000801.
const (
	idxImagesMagic = 0x00000803
	idxLabelsMagic = 0x00000801
	// maxIDXBytes bounds the data size a header may announce, so that a corrupt header cannot make the
	// reader allocate absurd amounts of memory (MNIST's training images are 47 MB).
	maxIDXBytes = 1 << 30
	// numIDXClasses is the number of classes of the MNIST family: labels must be 0..9.
	numIDXClasses = 10
)

// isGzip reports whether the first bytes are the gzip magic 0x1f 0x8b.
func isGzip(head []byte) bool { return len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b }

// openMaybeGzip opens path for reading, decompressing it on the fly when it starts with the gzip magic
// bytes (whatever its name). close closes everything it opened.
func openMaybeGzip(path string) (r io.Reader, gz bool, close func() error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, nil, err
	}
	br := bufio.NewReaderSize(f, 1<<20)
	head, _ := br.Peek(2)
	if !isGzip(head) {
		return br, false, f.Close, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		f.Close()
		return nil, true, nil, fmt.Errorf("reading gzip header: %w", err)
	}
	return zr, true, func() error { zr.Close(); return f.Close() }, nil
}

// readIDX reads an idx file of unsigned bytes with the given magic and number of dimensions; raw or
// gzipped. It checks the magic, that the file holds exactly the data its header announces, and (for
// gzip) the CRC.
func readIDX(path string, magic uint32, ndims int) (dims []int, data []byte, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("loading %s: %w", path, err)
		}
	}()
	r, gz, closeFn, err := openMaybeGzip(path)
	if err != nil {
		return nil, nil, err
	}
	defer closeFn()
	wrapGz := func(err error) error {
		if gz {
			return fmt.Errorf("corrupt or truncated gzip data: %w", err)
		}
		return err
	}
	hdr := make([]byte, 4+4*ndims)
	if n, err := io.ReadFull(r, hdr[:4]); err != nil {
		return nil, nil, fmt.Errorf("truncated: %d bytes, too short for an idx header: %w", n, wrapGz(err))
	}
	if got := binary.BigEndian.Uint32(hdr); got != magic {
		return nil, nil, fmt.Errorf("not an idx file of %d-dimensional unsigned bytes: magic number is 0x%08x, want 0x%08x", ndims, got, magic)
	}
	if _, err := io.ReadFull(r, hdr[4:]); err != nil {
		return nil, nil, fmt.Errorf("truncated inside the idx header: %w", wrapGz(err))
	}
	size := 1
	dims = make([]int, ndims)
	for i := range dims {
		dims[i] = int(binary.BigEndian.Uint32(hdr[4+4*i:]))
		if dims[i] == 0 {
			return nil, nil, fmt.Errorf("idx header has dimension %d equal to 0", i)
		}
		size *= dims[i]
		if size > maxIDXBytes {
			return nil, nil, fmt.Errorf("idx header announces dimensions %v, more than %d bytes: corrupt header?", dims[:i+1], maxIDXBytes)
		}
	}
	data = make([]byte, size)
	if n, err := io.ReadFull(r, data); err != nil {
		return nil, nil, fmt.Errorf("truncated: the header announces %v = %d data bytes, the file ends after %d: %w", dims, size, n, wrapGz(err))
	}
	// Read on to EOF: this catches trailing bytes and makes gzip verify its CRC and length.
	var extra [1]byte
	if n, err := io.ReadFull(r, extra[:]); n > 0 {
		return nil, nil, fmt.Errorf("has data after the %d bytes its header announces (dimensions %v)", size, dims)
	} else if !errors.Is(err, io.EOF) {
		return nil, nil, wrapGz(err)
	}
	return dims, data, nil
}

// idxSet is an MNIST-style image file and its label file, read into memory as bytes.
type idxSet struct {
	n, rows, cols int
	pixels        []byte // n·rows·cols bytes
	labels        []byte // n labels in 0..9
}

// readIDXPair reads and cross-checks an image file and its label file.
func readIDXPair(imagesPath, labelsPath string) (*idxSet, error) {
	idims, pix, err := readIDX(imagesPath, idxImagesMagic, 3)
	if err != nil {
		return nil, err
	}
	ldims, labels, err := readIDX(labelsPath, idxLabelsMagic, 1)
	if err != nil {
		return nil, err
	}
	if ldims[0] != idims[0] {
		return nil, fmt.Errorf("loading %s: it holds %d labels but %s holds %d images", labelsPath, ldims[0], imagesPath, idims[0])
	}
	for i, l := range labels {
		if l >= numIDXClasses {
			return nil, fmt.Errorf("loading %s: label %d of item %d is outside 0..%d", labelsPath, l, i, numIDXClasses-1)
		}
	}
	return &idxSet{n: idims[0], rows: idims[1], cols: idims[2], pixels: pix, labels: labels}, nil
}

// pixelScale maps a byte b to b/255·2 − 1 ∈ [−1, 1].
var pixelScale = func() (t [256]float32) {
	for b := range t {
		t[b] = float32(float64(b)/255*2 - 1)
	}
	return t
}()

var (
	pixelNamesMu    sync.Mutex
	pixelNamesCache = map[[2]int][]string{}
)

// pixelNames returns the feature names "r<row>c<col>" (0-based) of a rows×cols image, shared between
// data sets of the same shape.
func pixelNames(rows, cols int) []string {
	pixelNamesMu.Lock()
	defer pixelNamesMu.Unlock()
	key := [2]int{rows, cols}
	if names, ok := pixelNamesCache[key]; ok {
		return names
	}
	names := make([]string, 0, rows*cols)
	for r := range rows {
		for c := range cols {
			names = append(names, fmt.Sprintf("r%dc%d", r, c))
		}
	}
	pixelNamesCache[key] = names
	return names
}

// dataset converts the images with the given indices (all images when indices is nil) to a Dataset with
// pixels scaled to [−1, 1].
func (s *idxSet) dataset(name string, classNames []string, indices []int) *Dataset {
	if indices == nil {
		indices = identity(s.n)
	}
	D := s.rows * s.cols
	d := &Dataset{
		Name: name, X: make([]float32, len(indices)*D), Y: make([]int, len(indices)),
		FeatureNames: pixelNames(s.rows, s.cols), ClassNames: classNames,
		Image: &ImageShape{Height: s.rows, Width: s.cols, Channels: 1},
	}
	for j, i := range indices {
		src, dst := s.pixels[i*D:(i+1)*D], d.X[j*D:(j+1)*D]
		for p, b := range src {
			dst[p] = pixelScale[b]
		}
		d.Y[j] = int(s.labels[i])
	}
	return d
}

// ReadIDX reads an MNIST-style pair of idx files (images of unsigned bytes with magic 0x00000803, labels
// with magic 0x00000801), each raw or gzip-compressed (recognised by the magic bytes 0x1f 0x8b, whatever
// the file name). Pixels are scaled to [−1, 1] (b/255·2 − 1), labels must be 0..9 and the class names are
// "0".."9"; Dataset.Image holds the image shape. Errors name the file: a wrong magic number, a truncated
// file or trailing data, corrupt gzip data, a label count that differs from the image count, a label
// above 9.
func ReadIDX(imagesPath, labelsPath string) (*Dataset, error) {
	s, err := readIDXPair(imagesPath, labelsPath)
	if err != nil {
		return nil, err
	}
	d := s.dataset(filepath.Base(filepath.Dir(imagesPath)), digitNames, nil)
	return d, d.Validate()
}

// visionPerClass is the number of training images per class the paper draws (with replacement).
const visionPerClass = 1000

// visionNoiseSD is the standard deviation of the Gaussian noise added to training pixels.
const visionNoiseSD = 0.03

func loadVision(spec *setSpec, opts Options) (*Split, error) {
	dir := dirOrDefault(opts.Dir)
	sub := filepath.Join(dir, spec.subdir)
	paths := make([]string, len(idxBases))
	for i, base := range idxBases {
		p, err := findIDX(sub, base)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, missingError(spec, dir, err)
			}
			return nil, fmt.Errorf("loading %s: %w", spec.info.Name, err)
		}
		paths[i] = p
	}
	trainSet, err := readIDXPair(paths[0], paths[1])
	if err != nil {
		return nil, err
	}
	testSet, err := readIDXPair(paths[2], paths[3])
	if err != nil {
		return nil, err
	}
	if trainSet.rows != testSet.rows || trainSet.cols != testSet.cols {
		return nil, fmt.Errorf("loading %s: training images are %d×%d but test images are %d×%d",
			spec.info.Name, trainSet.rows, trainSet.cols, testSet.rows, testSet.cols)
	}
	per := visionPerClass
	if opts.PerClass > 0 {
		per = opts.PerClass
	}
	indices, err := samplePerClassWithReplacement(trainSet.labels, len(spec.classNames), per, streamRand(opts.Seed, streamSample))
	if err != nil {
		return nil, fmt.Errorf("loading %s from %s: %w", spec.info.Name, paths[1], err)
	}
	train := trainSet.dataset(spec.info.Name, spec.classNames, indices)
	noise := streamRand(opts.Seed, streamNoise)
	for i := range train.X {
		train.X[i] += float32(visionNoiseSD * noise.NormFloat64())
	}
	test := testSet.dataset(spec.info.Name, spec.classNames, nil)
	for _, d := range []*Dataset{train, test} {
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("loading %s: %w", spec.info.Name, err)
		}
	}
	D := train.D()
	lo, hi := make([]float32, D), make([]float32, D)
	for j := range D {
		lo[j], hi[j] = -1, 1
	}
	return &Split{Train: train, Test: test, Lower: lo, Upper: hi}, nil
}

// samplePerClassWithReplacement draws n indices of every class k in 0..K-1, grouped by class, the same
// way Dataset.SamplePerClass does with replacement.
func samplePerClassWithReplacement(labels []byte, K, n int, rng interface{ IntN(int) int }) ([]int, error) {
	byClass := make([][]int, K)
	for i, l := range labels {
		if int(l) < K {
			byClass[l] = append(byClass[l], i)
		}
	}
	indices := make([]int, 0, K*n)
	for k, rows := range byClass {
		if len(rows) == 0 {
			return nil, fmt.Errorf("no training images of class %d", k)
		}
		for range n {
			indices = append(indices, rows[rng.IntN(len(rows))])
		}
	}
	return indices, nil
}

// LoadOfficialTraining returns every image of a vision set's official training file (60,000 for MNIST and
// Fashion-MNIST), scaled to [−1, 1] as Load scales them but without Load's per-class draw and noise: the
// data that CounterfactualExplanations.jl's pretrained "strong" VAEs were trained on (its
// dev/artifacts/vision.qmd:18,49 at 4c34c2a: VAE(…) trained on load_mnist(), all 60,000 training images;
// later versions call TaijaData.load_mnist()), which REVISE used in the authors'
// runs. dir is the data directory ("" for DefaultDir()); a set that is not a vision set wraps
// ErrInvalidOption, a missing file ErrNotAvailable.
func LoadOfficialTraining(name, dir string) (*Dataset, error) {
	spec, err := lookupSpec(name)
	if err != nil {
		return nil, err
	}
	if spec.subdir == "" || spec.info.Kind != KindVision {
		return nil, markf(ErrInvalidOption, "%s is not an image set: it has no official training file", name)
	}
	dir = dirOrDefault(dir)
	sub := filepath.Join(dir, spec.subdir)
	paths := make([]string, 2)
	for i, base := range idxBases[:2] {
		p, err := findIDX(sub, base)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, missingError(spec, dir, err)
			}
			return nil, fmt.Errorf("loading %s: %w", name, err)
		}
		paths[i] = p
	}
	s, err := readIDXPair(paths[0], paths[1])
	if err != nil {
		return nil, err
	}
	d := s.dataset(spec.info.Name, spec.classNames, nil)
	return d, d.Validate()
}
