package sizelimit

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// TestReadFileLimit: a file over its limit is refused with an EINVALID
// error naming the file, its size and the limit; a stream that never ends
// is cut at the limit; a file within it is read whole.
func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	big := filepath.Join(dir, "big.json")
	os.WriteFile(small, []byte("{}"), 0o600)
	os.WriteFile(big, make([]byte, 3<<10+5), 0o600)
	l := Limit{What: "an mcp.json", Max: 1 << 10, Hint: "is it the right file?"}

	if data, err := l.ReadFile(small); err != nil || string(data) != "{}" {
		t.Fatalf("small: %q %v", data, err)
	}
	_, err := l.ReadFile(big)
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Fatalf("big: %v, want EINVALID", err)
	}
	for _, want := range []string{big + " is too large", "3 KiB (3077 bytes)", "an mcp.json may be at most 1 KiB", "is it the right file?"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	var tl *TooLarge
	if !errors.As(err, &tl) || tl.Size != 3<<10+5 || strings.Contains(tl.Error(), big) {
		t.Errorf("cause: %#v", tl)
	}
	if _, err := l.ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := l.ReadFile(dir); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("folder: %v", err)
	}
	// An endless stream stops at the limit.
	_, err = l.ReadAll(endless{}, "stdin")
	if err == nil || !strings.Contains(err.Error(), "stdin is too large: larger than 1 KiB, the most an mcp.json may be") {
		t.Errorf("endless: %v", err)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

var _ io.Reader = endless{}

// TestReadAllSized: a regular file is read into one buffer of the size
// its Stat gave (a byte more, to see it end), and a file whose size
// changed between Stat and reading is still read whole, or refused once
// it passes the limit.
func TestReadAllSized(t *testing.T) {
	l := Limit{What: "a config file", Max: 64 << 10}
	for _, tc := range []struct {
		name       string
		body, stat int
		wantCap    int // 0: any
		wantErr    bool
	}{
		{name: "empty", body: 0, stat: 0, wantCap: 1},
		{name: "small", body: 5, stat: 5, wantCap: 6},
		{name: "many reads", body: 40 << 10, stat: 40 << 10, wantCap: 40<<10 + 1},
		{name: "grew", body: 9000, stat: 100},
		{name: "shrank", body: 100, stat: 9000},
		{name: "grew past the limit", body: 64<<10 + 1, stat: 10, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Repeat("x", tc.body)
			data, err := l.ReadAll(&statted{Reader: iotest.OneByteReader(strings.NewReader(body)), size: int64(tc.stat)}, "config")
			if tc.wantErr {
				if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
					t.Fatalf("err = %v, want EINVALID", err)
				}
				return
			}
			if err != nil || string(data) != body {
				t.Fatalf("read %d bytes, err %v; want the %d written", len(data), err, len(body))
			}
			if tc.wantCap != 0 && cap(data) != tc.wantCap {
				t.Errorf("buffer of %d bytes for a %d-byte file, want %d", cap(data), tc.body, tc.wantCap)
			}
		})
	}
}

// statted is a reader that says, as a regular file does, how large it is.
type statted struct {
	io.Reader
	size int64
}

func (s *statted) Stat() (fs.FileInfo, error) { return sizedInfo(s.size), nil }

type sizedInfo int64

func (i sizedInfo) Name() string       { return "config.yaml" }
func (i sizedInfo) Size() int64        { return int64(i) }
func (i sizedInfo) Mode() fs.FileMode  { return 0o600 }
func (i sizedInfo) ModTime() time.Time { return time.Time{} }
func (i sizedInfo) IsDir() bool        { return false }
func (i sizedInfo) Sys() any           { return nil }

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{900: "900 bytes", 1 << 10: "1 KiB", 256 << 10: "256 KiB", 1<<20 + 1<<19: "1.5 MiB", 3 << 30: "3 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
