package clock

import (
	"testing"
	"time"
)

// ECCCO_TEST_CLOCK=frozen stops the clock: two readings a sleep apart are equal. Unset, the clock moves.
func TestFrozenClock(t *testing.T) {
	t.Setenv(TestEnv, "frozen")
	f := fromEnv()
	a := f()
	time.Sleep(2 * time.Millisecond)
	if b := f(); !b.Equal(a) || !Frozen() {
		t.Errorf("frozen clock moved: %v then %v", a, b)
	}
	t.Setenv(TestEnv, "")
	f = fromEnv()
	a = f()
	time.Sleep(2 * time.Millisecond)
	if b := f(); !b.After(a) || Frozen() {
		t.Errorf("the clock did not move: %v then %v", a, b)
	}
}

// Set replaces the clock until restored; Since measures on it.
func TestSetAndRestore(t *testing.T) {
	at := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	restore := Set(func() time.Time { return at })
	start := Now()
	at = at.Add(90 * time.Second)
	if d := Since(start); d != 90*time.Second {
		t.Errorf("Since = %v, want 1m30s", d)
	}
	restore()
	if Now().Year() < 2025 {
		t.Errorf("after restore the clock reads %v, want the wall clock", Now())
	}
}
