package experiment

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// A boolean --set key reads every spelling of strconv.ParseBool as the same value (issue 52: the CLI
// compared the raw string, so authors-models=0 or =False silently ignored authors-models-dir while
// =false was refused), and authors-models-dir with authors-models off is an error that says so.
func TestParseSetBooleanSpellings(t *testing.T) {
	spellings := map[bool][]string{
		true:  {"true", "1", "t", "T", "TRUE", "True"},
		false: {"false", "0", "f", "F", "FALSE", "False"},
	}
	for _, key := range []string{"authors-models", "authors-data", "stop-on-all-conditions"} {
		for value, spelt := range spellings {
			want, err := ParseSet([]string{key + "=" + spelt[0]}, SetSettings)
			if err != nil {
				t.Fatal(err)
			}
			if got := want.Settings[key]; got != spelt[0] {
				t.Errorf("%s=%s: recorded as %q", key, spelt[0], got)
			}
			for _, s := range spelt[1:] {
				got, err := ParseSet([]string{key + "=" + s}, SetSettings)
				if err != nil {
					t.Errorf("%s=%s: %v", key, s, err)
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s=%s gives %+v, %s=%v gives %+v", key, s, got, key, value, want)
				}
			}
		}
	}
	for _, s := range spellings[true] {
		o, err := ParseSet([]string{"authors-models=" + s, "authors-models-dir=/m"}, SetSettings)
		if on, given := o.AuthorsModels(); err != nil || !on || !given || o.AuthorsModelsDir != "/m" {
			t.Errorf("authors-models=%s with a dir: on %v, given %v, dir %q, err %v", s, on, given, o.AuthorsModelsDir, err)
		}
		o, err = ParseSet([]string{"unbiased=" + s}, SetSampler)
		if err != nil || !o.Sampler.Unbiased {
			t.Errorf("unbiased=%s: %+v, %v", s, o.Sampler, err)
		}
	}
	for _, s := range spellings[false] {
		_, err := ParseSet([]string{"authors-models-dir=/m,authors-models=" + s}, SetSettings)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "authors-models=false says not to use them") {
			t.Errorf("authors-models=%s with authors-models-dir: %v, want ErrInvalid saying the two contradict", s, err)
		}
	}
	if on, given := (Overrides{}).AuthorsModels(); on || given {
		t.Errorf("no authors-models: on %v, given %v", on, given)
	}
	if _, err := ParseSet([]string{"authors-models=yes"}, SetSettings); !errors.Is(err, ErrInvalid) {
		t.Errorf("authors-models=yes: %v, want ErrInvalid", err)
	}
}
