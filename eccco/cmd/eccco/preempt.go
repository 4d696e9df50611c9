package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
)

// asyncPreemptOff is the GODEBUG setting that scripts/goenv.sh exports for every build with the simd
// experiment: there the runtime's asynchronous preemption returns to a goroutine with the AVX-512
// registers' upper halves dirty, and the standard library's SSE assembly (math.Exp, …) then runs about
// 100 times slower until they are cleared (see goenv.sh). //go:debug cannot set it (it is a runtime
// variable, not a registered setting), so the program sets it for itself.
const asyncPreemptOff = "asyncpreemptoff=1"

// reexecForSIMD starts this program again, in place (same process id, arguments and environment), with
// asyncPreemptOff added to GODEBUG, when it was built with GOEXPERIMENT=simd on amd64 and GODEBUG does not
// already say how to preempt. It returns only when nothing had to be done or the exec failed (the program
// then runs as it is: slower in places, the same results).
func reexecForSIMD() {
	if runtime.GOARCH != "amd64" || strings.Contains(os.Getenv("GODEBUG"), "asyncpreemptoff=") || !builtWithSIMD() {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	godebug := asyncPreemptOff
	if g := os.Getenv("GODEBUG"); g != "" {
		godebug = g + "," + asyncPreemptOff
	}
	// Other GODEBUG entries are dropped: the first of duplicate names is the one a Go program reads.
	env := []string{"GODEBUG=" + godebug}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GODEBUG=") {
			env = append(env, kv)
		}
	}
	_ = syscall.Exec(exe, os.Args, env)
}

// builtWithSIMD reports whether the binary's build settings name the simd experiment.
func builtWithSIMD() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "GOEXPERIMENT" {
			for _, e := range strings.Split(s.Value, ",") {
				if e == "simd" {
					return true
				}
			}
		}
	}
	return false
}
