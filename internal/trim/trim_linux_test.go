package trim

import (
	"bytes"
	"context"
	"encoding/binary"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

func TestProgramRegionsPicksCleanReadOnlyMappingsOfTheProgram(t *testing.T) {
	const smaps = `00400000-015b9000 r-xp 00000000 fe:00 9978145                            /usr/bin/jarvisbot
Size:              18148 kB
Rss:               10660 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me
015b9000-02c4b000 r--p 011b9000 fe:00 9978145                            /usr/bin/jarvisbot
Size:              23112 kB
Anonymous:             0 kB
02c4b000-02c50000 r--p 0284b000 fe:00 9978145                            /usr/bin/jarvisbot
Size:                 20 kB
Anonymous:             8 kB
02c50000-02cd1000 rw-p 02850000 fe:00 9978145                            /usr/bin/jarvisbot
Anonymous:           472 kB
02cd1000-04d1d000 rw-p 00000000 00:00 0
Anonymous:           136 kB
7f0000000000-7f0000100000 r--p 00000000 fe:00 1234                       /usr/lib/locale/C.utf8/LC_CTYPE
Anonymous:             0 kB
7f0000100000-7f0000200000 r-xp 00000000 fe:01 9978145                    /mnt/other/jarvisbot
Anonymous:             0 kB
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
Anonymous:           132 kB
`
	got := programRegions([]byte(smaps), [2]uint64{0xfe, 0}, 9978145)
	want := []region{{0x400000, 0x15b9000}, {0x15b9000, 0x2c4b000}}
	if len(got) != len(want) {
		t.Fatalf("regions %#x, want %#x: only the read-only program mappings with no private page", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("region %d = %#x, want %#x", i, got[i], want[i])
		}
	}
}

func TestDevNumberMatchesTheMapsNotation(t *testing.T) {
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/self/exe", &st); err != nil {
		t.Skip("no /proc:", err)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	dev := devNumber(st.Dev)
	want := strconv.FormatUint(dev[0], 16) + ":" + strconv.FormatUint(dev[1], 16)
	for line := range strings.Lines(string(maps)) {
		f := strings.Fields(line)
		if len(f) >= 5 && f[4] == strconv.FormatUint(st.Ino, 10) {
			maj, min, _ := strings.Cut(f[3], ":")
			a, _ := strconv.ParseUint(maj, 16, 64)
			b, _ := strconv.ParseUint(min, 16, 64)
			if a != dev[0] || b != dev[1] {
				t.Errorf("maps has device %s for the program, devNumber gives %s", f[3], want)
			}
			return
		}
	}
	t.Fatal("the test binary is not among its own mappings")
}

// mapped tells from /proc/self/pagemap whether the page holding addr is
// mapped into this process (bit 63: present).
func mapped(t *testing.T, addr uintptr) bool {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skip("no pagemap:", err)
	}
	defer f.Close()
	var entry [8]byte
	if _, err := f.ReadAt(entry[:], int64(addr/uintptr(os.Getpagesize()))*8); err != nil {
		t.Fatal(err)
	}
	return binary.LittleEndian.Uint64(entry[:])>>63 == 1
}

func TestDropFilePagesUnmapsACleanReadOnlyMapping(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mapped")
	if err := os.WriteFile(path, bytes.Repeat([]byte("jarvisbot"), 1<<19), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, _ := f.Stat()
	m, err := syscall.Mmap(int(f.Fd()), 0, int(info.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	page := os.Getpagesize()
	sum := 0
	for i := 0; i < len(m); i += page {
		sum += int(m[i])
	}
	resident := func() (n int) {
		for i := 0; i < len(m); i += page {
			if mapped(t, uintptr(unsafe.Pointer(&m[i]))) {
				n++
			}
		}
		return n
	}
	if n := resident(); n != len(m)/page {
		t.Fatalf("%d of %d pages mapped after reading them all", n, len(m)/page)
	}
	n, err := dropFilePages(path)
	if err != nil || n != 1 {
		t.Fatalf("dropFilePages = %d, %v; want the one mapping", n, err)
	}
	if n := resident(); n != 0 {
		t.Errorf("%d pages still mapped after the release, want 0", n)
	}
	again := 0
	for i := 0; i < len(m); i += page {
		again += int(m[i])
	}
	if again != sum {
		t.Errorf("the file reads %d after the release, %d before: the pages must come back unchanged", again, sum)
	}
}

func TestReleaseDropsTheProgramsMappings(t *testing.T) {
	st, err := Release()
	if err != nil {
		t.Fatal(err)
	}
	if st.Mappings < 1 {
		t.Errorf("%d program mappings dropped, want its read-only ones", st.Mappings)
	}
}

func TestReleaseGivesBackFreedHeap(t *testing.T) {
	garbage := make([]byte, 64<<20)
	for i := range garbage {
		garbage[i] = byte(i)
	}
	garbage = nil
	st, err := Release()
	if err != nil {
		t.Fatal(err)
	}
	if freed := st.Before - st.After; freed < 32<<20 {
		t.Errorf("VmRSS %d → %d KiB: freed %d KiB, want most of the 64 MiB garbage back", st.Before>>10, st.After>>10, freed>>10)
	}
	_ = garbage
}

// records counts log messages.
type records struct {
	mu    sync.Mutex
	count map[string]int
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.count[rec.Message]++
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }
func (r *records) n(msg string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count[msg]
}

func TestKeepReleasesAgainOnlyAfterRealGrowthAndStops(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc:", err)
	}
	rec := &records{count: map[string]int{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Keep(ctx, 20*time.Millisecond, slog.New(rec))
	}()
	// wait waits until Keep has logged msg n times in all.
	wait := func(msg string, n int) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for rec.n(msg) < n {
			if time.Now().After(deadline) {
				t.Fatalf("waited 5s for %q to be logged %d times; it was %d times (releases: %d)", msg, n, rec.n(msg), rec.n("released memory"))
			}
			time.Sleep(time.Millisecond)
		}
	}
	// ticks waits for n more ticks, each of which could have released.
	ticks := func(n int) {
		t.Helper()
		wait("checked memory", rec.n("checked memory")+n)
	}
	wait("released memory", 1)
	ticks(3)
	if n := rec.n("released memory"); n != 1 {
		t.Errorf("%d releases while nothing grew, want 1", n)
	}
	small := bytes.Repeat([]byte{1}, 1<<20) // idle work's size: kept
	ticks(3)
	if n := rec.n("released memory"); n != 1 {
		t.Errorf("%d releases after growing by 1 MiB, want still 1", n)
	}
	grown := bytes.Repeat([]byte{1}, 16<<20) // a busy spell's size, alive
	wait("released memory", 2)
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Keep did not stop when its context ended")
	}
	runtime.KeepAlive(small)
	runtime.KeepAlive(grown)
}
