// Package clock is the wall clock behind every time eccco measures and writes; tests may freeze it.
//
// Measured times (a benchmark's stage timings, a model's training seconds) are the only bytes of eccco's
// outputs that differ between two runs of the same inputs. With the environment variable TestEnv set to
// "frozen" the clock stands still, every measured duration is zero, and two runs (an uninterrupted one and
// one killed and resumed, say) can be compared byte for byte. It is a seam for tests, not a setting: the
// times it writes are not measurements.
package clock

import (
	"os"
	"sync"
	"time"
)

// TestEnv names the environment variable that freezes the clock for tests: ECCCO_TEST_CLOCK=frozen.
const TestEnv = "ECCCO_TEST_CLOCK"

// frozenAt is the instant a frozen clock shows.
var frozenAt = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

var (
	mu  sync.RWMutex
	now = fromEnv()
)

func fromEnv() func() time.Time {
	if os.Getenv(TestEnv) == "frozen" {
		return func() time.Time { return frozenAt }
	}
	return time.Now
}

// Frozen reports whether the clock stands still (TestEnv).
func Frozen() bool { return os.Getenv(TestEnv) == "frozen" }

// Now is the current time (time.Now unless frozen or replaced by Set).
func Now() time.Time {
	mu.RLock()
	defer mu.RUnlock()
	return now()
}

// Since is the time elapsed since t on this clock.
func Since(t time.Time) time.Duration { return Now().Sub(t) }

// Set replaces the clock with f (for tests in this module) until restore is called.
func Set(f func() time.Time) (restore func()) {
	mu.Lock()
	old := now
	now = f
	mu.Unlock()
	return func() {
		mu.Lock()
		now = old
		mu.Unlock()
	}
}
