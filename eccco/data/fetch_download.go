package data

// Downloads from the upstream URLs, each verified before it is installed: the idx files by the sha256 of
// their uncompressed content, cal_housing.tgz by its sha256, UCI's German Credit zip (which has no
// published checksum) by parsing it to UCI's row and class counts.

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

func defaultHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	tr.TLSHandshakeTimeout = 10 * time.Second
	tr.ResponseHeaderTimeout = 30 * time.Second
	return &http.Client{Transport: tr, Timeout: 15 * time.Minute}
}

// get starts an HTTP GET and returns the body of a 200 response.
func (f *fetcher) get(url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(f.ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "eccco-go data fetcher")
	resp, err := f.client.Do(req)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) {
			return nil, fmt.Errorf("%w (cannot resolve the host: no network access?)", err)
		}
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: HTTP %s", url, resp.Status)
	}
	f.logf("%s: downloading %s (%s)", f.spec.info.Name, url, sizeString(resp.ContentLength))
	return resp.Body, nil
}

func sizeString(n int64) string {
	if n < 0 {
		return "size unknown"
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// downloadToTemp downloads url into a temporary file of the destination directory, calls fn with its
// path and removes it afterwards.
func (f *fetcher) downloadToTemp(url, base string, fn func(path string) error) error {
	body, err := f.get(url)
	if err != nil {
		return err
	}
	defer body.Close()
	st := &stage{dir: f.dir}
	tmp, _, n, err := st.writeTemp(base, body)
	if err != nil {
		return fmt.Errorf("downloading %s: %w", url, err)
	}
	defer os.Remove(tmp)
	f.logf("%s: downloaded %d bytes", f.spec.info.Name, n)
	return fn(tmp)
}

// downloadIDX downloads the four gzipped idx files from baseURL, verifying each one's sha256.
func (f *fetcher) downloadIDX(baseURL string) error {
	x := f.newIDXStager()
	defer x.st.abort()
	for _, base := range idxBases {
		url := baseURL + base + ".gz"
		body, err := f.get(url)
		if err != nil {
			return err
		}
		err = x.add(base, body, url)
		body.Close()
		if err != nil {
			return err
		}
	}
	return x.commit()
}

// downloadCalifornia downloads figshare's cal_housing.tgz, verifies its sha256 and converts it.
func (f *fetcher) downloadCalifornia() error {
	return f.downloadToTemp(californiaURL, "cal_housing.tgz", f.californiaFromTgz)
}

// downloadGerman downloads UCI's zip and converts its german.data, insisting on UCI's counts.
func (f *fetcher) downloadGerman() error {
	return f.downloadToTemp(germanURL, "german.zip", func(path string) error {
		return withZipEntry(path, "german.data", func(r io.Reader, name string) error { return f.germanFrom(r, name, true) })
	})
}
