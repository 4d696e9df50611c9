package data

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
)

func TestFetchDownloads(t *testing.T) {
	// Network failures are reported per URL with the next step.
	client, ft := failingClient()
	err := Fetch(context.Background(), "california-housing", FetchOptions{Dir: t.TempDir(), HTTPClient: client})
	wantErr(t, err, californiaURL, "no such host", "cannot resolve the host", "eccco data fetch california-housing --from DIR")
	if len(ft.urls) != 1 {
		t.Errorf("requested %v", ft.urls)
	}
	// A download with the wrong checksum is refused and leaves nothing behind.
	dest := t.TempDir()
	bad := &http.Client{Transport: &fakeTransport{serve: func(string) ([]byte, error) { return []byte("not a tgz"), nil }}}
	err = Fetch(context.Background(), "california-housing", FetchOptions{Dir: dest, HTTPClient: bad})
	wantErr(t, err, "checksum mismatch", californiaTgzSHA256)
	if !errors.Is(err, ErrChecksum) || errors.Is(err, ErrLocalWrite) {
		t.Errorf("wrong download: %v; want ErrChecksum, not ErrLocalWrite", err)
	}
	if files := dirFiles(t, dest); len(files) != 0 {
		t.Errorf("left %v", files)
	}
	// German Credit: UCI's zip is checked by parsing: 1,000 rows, 700 good, 300 bad.
	var uci strings.Builder
	heads := strings.Split(strings.TrimSpace(germanHead), "\n") // a good and a bad applicant
	for i := range 1000 {
		uci.WriteString(heads[min(i/700, 1)] + "\n")
	}
	serveZip := func(content string) *http.Client {
		z := zipBytes(t, "german.data", []byte(content))
		return &http.Client{Transport: &fakeTransport{serve: func(url string) ([]byte, error) {
			if url != germanURL {
				return nil, fmt.Errorf("unexpected URL %s", url)
			}
			return z, nil
		}}}
	}
	dest = t.TempDir()
	if err := Fetch(context.Background(), "german-credit", FetchOptions{Dir: dest, HTTPClient: serveZip(uci.String())}); err != nil {
		t.Fatal(err)
	}
	if files := dirFiles(t, dest); len(files) != 1 || files[0] != "german_credit.csv" {
		t.Errorf("data directory holds %v", files)
	}
	dest = t.TempDir()
	err = Fetch(context.Background(), "german-credit", FetchOptions{Dir: dest, HTTPClient: serveZip(germanHead)})
	wantErr(t, err, "2 rows: 1 good, 1 bad", "UCI's german.data has 1000 rows")
	if !errors.Is(err, ErrChecksum) {
		t.Errorf("German Credit download with the wrong counts: %v; want ErrChecksum", err)
	}
	if files := dirFiles(t, dest); len(files) != 0 {
		t.Errorf("left %v", files)
	}
}

// brokenBodyTransport answers 200 with a body that fails after a few bytes, as a dropped connection does.
type brokenBodyTransport struct{}

func (brokenBodyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body := io.MultiReader(strings.NewReader("the first bytes"), iotest.ErrReader(io.ErrUnexpectedEOF))
	return &http.Response{StatusCode: 200, Status: "200 OK", Body: io.NopCloser(body), ContentLength: -1,
		Request: req, Header: http.Header{}}, nil
}

// TestFetchNetworkFaultsAreNotLocal: a failed connection and a download cut short are network failures
// with their own messages, never ErrLocalWrite, and they leave nothing behind.
func TestFetchNetworkFaultsAreNotLocal(t *testing.T) {
	client, _ := failingClient()
	dest := t.TempDir()
	err := Fetch(context.Background(), "german-credit", FetchOptions{Dir: dest, HTTPClient: client})
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || !errors.Is(err, ErrNotAvailable) || errors.Is(err, ErrLocalWrite) {
		t.Errorf("unreachable host: %v; want a *net.DNSError and ErrNotAvailable, not ErrLocalWrite", err)
	}
	err = Fetch(context.Background(), "california-housing", FetchOptions{Dir: dest, HTTPClient: &http.Client{Transport: brokenBodyTransport{}}})
	wantErr(t, err, "downloading "+californiaURL, "unexpected EOF", "on a machine with internet access")
	if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, ErrNotAvailable) || errors.Is(err, ErrLocalWrite) {
		t.Errorf("download cut short: %v; want io.ErrUnexpectedEOF and ErrNotAvailable, not ErrLocalWrite", err)
	}
	if strings.Contains(err.Error(), "local problem") {
		t.Errorf("a network failure is described as local: %v", err)
	}
	if files := dirFiles(t, dest); len(files) != 0 {
		t.Errorf("left %v", files)
	}
}
