package metrics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeProc writes a /proc stand-in with the files processFamilies reads;
// an empty content leaves that file out.
func fakeProc(t *testing.T, stat, procStat, limits string, fds int) string {
	t.Helper()
	root := t.TempDir()
	self := filepath.Join(root, "self")
	if err := os.MkdirAll(filepath.Join(self, "fd"), 0o755); err != nil {
		t.Fatal(err)
	}
	for path, text := range map[string]string{filepath.Join(self, "stat"): stat, filepath.Join(root, "stat"): procStat, filepath.Join(self, "limits"): limits} {
		if text == "" {
			continue
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range fds {
		if err := os.WriteFile(filepath.Join(self, "fd", string(rune('a'+i))), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// A command name with spaces and parentheses, then fields 3 to 24:
// utime 250, stime 50, starttime 12345, vsize 1000000, rss 300 pages.
const fakeStat = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 7 0 12345 1000000 300 18446744073709551615\n"

const fakeProcStat = "cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 1 2 3\nctxt 99\nbtime 1700000000\nprocesses 5\n"

const fakeLimits = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
`

func TestProcessFamilies(t *testing.T) {
	values := func(fs []family) map[string]float64 {
		v := map[string]float64{}
		for _, f := range fs {
			v[f.name] = f.samples[0].value
		}
		return v
	}
	page := float64(os.Getpagesize())
	for _, c := range []struct {
		name                   string
		stat, procStat, limits string
		want                   map[string]float64
		wantErr                string
	}{
		{"everything readable", fakeStat, fakeProcStat, fakeLimits, map[string]float64{
			"process_cpu_seconds_total":     3,
			"process_virtual_memory_bytes":  1000000,
			"process_resident_memory_bytes": 300 * page,
			"process_start_time_seconds":    1700000000 + 123.45,
			"process_open_fds":              3,
			"process_max_fds":               1024,
		}, ""},
		{"no stat: its series are left out, the rest served", "", fakeProcStat, fakeLimits, map[string]float64{
			"process_open_fds": 3,
			"process_max_fds":  1024,
		}, "self/stat"},
		{"a short stat line", "1 (x) S 1 2\n", fakeProcStat, fakeLimits, map[string]float64{
			"process_open_fds": 3,
			"process_max_fds":  1024,
		}, "field 14"},
		{"no boot time: no start time", fakeStat, "cpu 1 2 3\n", fakeLimits, map[string]float64{
			"process_cpu_seconds_total":     3,
			"process_virtual_memory_bytes":  1000000,
			"process_resident_memory_bytes": 300 * page,
			"process_open_fds":              3,
			"process_max_fds":               1024,
		}, "btime"},
		{"unlimited open files: no max", fakeStat, fakeProcStat, "Max open files            unlimited            unlimited            files\n", map[string]float64{
			"process_cpu_seconds_total":     3,
			"process_virtual_memory_bytes":  1000000,
			"process_resident_memory_bytes": 300 * page,
			"process_start_time_seconds":    1700000000 + 123.45,
			"process_open_fds":              3,
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs, err := processFamilies(fakeProc(t, c.stat, c.procStat, c.limits, 3))
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Errorf("error %v, want one saying %q", err, c.wantErr)
			}
			got := values(fs)
			if len(got) != len(c.want) {
				t.Errorf("series %v, want %v", got, c.want)
			}
			for name, want := range c.want {
				if g, ok := got[name]; !ok || g < want-1e-6 || g > want+1e-6 {
					t.Errorf("%s = %v (present %v), want %v", name, g, ok, want)
				}
			}
		})
	}
}
