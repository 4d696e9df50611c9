package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// share is a count as "k of n (p %)", p rounded to a whole percent; "0 of 0" for n = 0.
func share(k, n int) string {
	if n == 0 {
		return "0 of 0"
	}
	return fmt.Sprintf("%d of %d (%s)", k, n, pct(k, n))
}

// pct is k/n as a whole percent, rounded; "–" for n = 0.
func pct(k, n int) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f %%", 100*float64(k)/float64(n))
}

// pctDown is k/n as a percent with two decimals, rounded down so that a share short of all never reads
// 100 %; "–" for n = 0.
func pctDown(k, n int) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f %%", math.Floor(1e4*float64(k)/float64(n))/100)
}

// signed formats x with prec decimals and an explicit sign: "+" or "−" (the minus sign, not a hyphen).
func signed(x float64, prec int) string {
	s := strconv.FormatFloat(x, 'f', prec, 64)
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		return "−" + rest
	}
	return "+" + s
}

// rho formats a correlation with two decimals, a negative one with "−" and a positive one unsigned; "–"
// for NaN (undefined).
func rho(r float64) string {
	if math.IsNaN(r) {
		return "–"
	}
	return strings.Replace(strconv.FormatFloat(r, 'f', 2, 64), "-", "−", 1)
}
