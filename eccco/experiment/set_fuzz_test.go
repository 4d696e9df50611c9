package experiment

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// FuzzParseSet feeds ParseSet what a user writes after --set: the arguments (one per line of args) and
// the groups a command accepts (bit g of groups: SetGroup g; the seeds use every command's groups, the
// ONNX form of `eccco explain` SetSearch and SetGenerator). It never panics, an error wraps ErrInvalid,
// and what it accepts is made of the groups' keys and reads the same given one pair per argument.
// Seeds: the --set values of the README, the examples and the CLI's tests. `go test` runs the seeds only;
// fuzz with go test -run '^$' -fuzz FuzzParseSet -fuzztime 45s ./eccco/experiment.
func FuzzParseSet(f *testing.F) {
	const all = 1<<(SetSettings+1) - 1
	onnxForm := uint8(1<<SetSearch | 1<<SetGenerator)
	for _, s := range []struct {
		args   string
		groups uint8
	}{
		{"epochs=5", 1 << SetTraining},
		{"epochs=5,lenet-epochs=1\nvae-epochs=2", 1 << SetTraining},
		{"stop=max-iter", onnxForm},
		{"stop=valid\nmax-iter=4", onnxForm},
		{"cost=0.05,max-iter=200", onnxForm},
		{"step=0.1, energy=5 ,setsize=1,ridge=0,decay-rate=0.5,decay-every=10", onnxForm},
		{"energy=-1", onnxForm},
		{"authors-models=false\nauthors-models-dir=/tmp/m", all},
		{"target-mix=,energy-decay-rate=0,energy-decay-every=0,vision-cost=0,vision-l1-energy=0", 1 << SetSettings},
		{"target-mix=1:39/100", 1 << SetSettings},
		{"sampling=per-counterfactual", 1 << SetSampling},
		{"chains=8,keep=4,steps=10,sgld-step=0.01,noise=0.005,clip=0,unbiased=true", 1 << SetSampler},
		{"chains=1000000000", 1 << SetSampler},
		{"stop=all-conditions,stop-on-all-conditions=true", all},
		{"epochs=1,epochs=2", all},
		{"epochs", all},
		{"=1,,", all},
		{"lr=NaN", all},
		{"nosuchkey=1", all},
	} {
		f.Add(s.args, s.groups)
	}
	f.Fuzz(func(t *testing.T, text string, mask uint8) {
		var groups []SetGroup
		for g := SetTraining; g <= SetSettings; g++ {
			if mask&(1<<g) != 0 {
				groups = append(groups, g)
			}
		}
		args := strings.Split(text, "\n")
		o, err := ParseSet(args, groups...)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseSet(%q, %v): error does not wrap ErrInvalid: %v", args, groups, err)
			}
			return
		}
		valid := SetKeys(groups...)
		var pairs []string
		for _, a := range args {
			for kv := range strings.SplitSeq(a, ",") {
				if kv = strings.TrimSpace(kv); kv == "" {
					continue
				}
				k, _, _ := strings.Cut(kv, "=")
				if k = strings.TrimSpace(k); !slices.Contains(valid, k) {
					t.Fatalf("ParseSet(%q, %v) accepted key %q, not one of %v", args, groups, k, valid)
				}
				pairs = append(pairs, kv)
			}
		}
		again, err := ParseSet(pairs, groups...)
		if err != nil {
			t.Fatalf("one pair per argument %q: %v (accepted as %q)", pairs, err, args)
		}
		if a, b := render(reflect.ValueOf(o)), render(reflect.ValueOf(again)); a != b {
			t.Fatalf("one pair per argument reads otherwise:\n%q: %s\n%q: %s", args, a, pairs, b)
		}
	})
}

// render writes a value with its pointers followed and its maps' keys sorted, so that two Overrides
// compare by what they hold (NaN included, which reflect.DeepEqual never finds equal).
func render(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "nil"
		}
		return "&" + render(v.Elem())
	case reflect.Struct:
		var b strings.Builder
		b.WriteString("{")
		for i := range v.NumField() {
			fmt.Fprintf(&b, "%s:%s ", v.Type().Field(i).Name, render(v.Field(i)))
		}
		return b.String() + "}"
	case reflect.Map:
		if v.IsNil() {
			return "nil"
		}
		var kv []string
		for it := v.MapRange(); it.Next(); {
			kv = append(kv, render(it.Key())+"="+render(it.Value()))
		}
		sort.Strings(kv)
		return "map[" + strings.Join(kv, " ") + "]"
	case reflect.Slice:
		if v.IsNil() {
			return "nil"
		}
		fallthrough
	case reflect.Array:
		var el []string
		for i := range v.Len() {
			el = append(el, render(v.Index(i)))
		}
		return "[" + strings.Join(el, " ") + "]"
	case reflect.Func:
		return fmt.Sprintf("func(nil=%v)", v.IsNil())
	}
	return fmt.Sprintf("%#v", v)
}

// FuzzParseStop: a rule parseStop reads is one of stopNames, and its name reads back to it.
func FuzzParseStop(f *testing.F) {
	for _, s := range append(slices.Clone(stopNames), " Valid ", "max_iter", "") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseStop(s)
		if err != nil {
			return
		}
		if int(r) < 0 || int(r) >= len(stopNames) {
			t.Fatalf("parseStop(%q) = %d, not one of the %d rules", s, r, len(stopNames))
		}
		if back, err := parseStop(stopNames[r]); err != nil || back != r {
			t.Fatalf("parseStop(%q) = %d; its name %q reads %d, %v", s, r, stopNames[r], back, err)
		}
	})
}
