package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestMain lets the test binary stand in for eccco in TestReexecForSIMD: with ECCCO_TEST_REEXEC set it
// runs what main runs first and prints the GODEBUG it then has.
func TestMain(m *testing.M) {
	if os.Getenv("ECCCO_TEST_REEXEC") == "1" {
		reexecForSIMD()
		fmt.Printf("GODEBUG=%s\n", os.Getenv("GODEBUG"))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A simd build started without asyncpreemptoff in GODEBUG runs again with it (keeping the user's other
// settings); one that has a setting of its own is left alone.
func TestReexecForSIMD(t *testing.T) {
	if runtime.GOARCH != "amd64" || !builtWithSIMD() {
		t.Skip("not an amd64 build with GOEXPERIMENT=simd: nothing to re-execute")
	}
	for _, c := range []struct{ godebug, want string }{
		{"", "GODEBUG=asyncpreemptoff=1"},
		{"gctrace=0", "GODEBUG=gctrace=0,asyncpreemptoff=1"},
		{"asyncpreemptoff=0", "GODEBUG=asyncpreemptoff=0"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "ECCCO_TEST_REEXEC=1", "GODEBUG="+c.godebug)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GODEBUG=%q: %v", c.godebug, err)
		}
		if got := strings.TrimSpace(string(out)); got != c.want {
			t.Errorf("started with GODEBUG=%q: the program ran with %q, want %q", c.godebug, got, c.want)
		}
	}
}
