package debian

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	for _, tt := range []struct {
		name, first, want, err string
	}{
		{"changelog", "media-types (10.0.0) unstable; urgency=medium\n\n  * x\n", "10.0.0", ""},
		{"epoch", "wordnet (1:3.0-37) unstable; urgency=low\n", "1:3.0-37", ""},
		{"no version", "garbage without parentheses\n", "", "no version on its first line"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "changelog.Debian.gz")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			zw := gzip.NewWriter(f)
			if _, err := zw.Write([]byte(tt.first)); err != nil {
				t.Fatal(err)
			}
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := Version(path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Version = %q, %v; want an error saying %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Version = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
