// Package debian reads what the word-table generators need to name their
// sources: the version of an installed Debian package, from its changelog.
// The generated tables' headers carry it, so anyone can tell which data a
// table was made from and make it again.
//
// It serves C5: the tables the gate reads are generated, with their sources named.
package debian

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Version reads the version from the first line of a Debian changelog
// (changelog.Debian.gz): "onboard (1.4.1-5) unstable; urgency=medium".
func Version(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read the package version: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	line, err := bufio.NewReader(zr).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	_, rest, ok := strings.Cut(line, "(")
	version, _, ok2 := strings.Cut(rest, ")")
	if !ok || !ok2 || version == "" {
		return "", fmt.Errorf("%s: no version on its first line %q", path, line)
	}
	return version, nil
}
