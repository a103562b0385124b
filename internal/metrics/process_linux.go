package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// userHZ is the unit of /proc's CPU and start times. The kernel reports
// them in USER_HZ, which is 100 on every architecture Go runs Linux on.
const userHZ = 100

// processFamilies reads the process's series from /proc (root, so tests
// can point it elsewhere). What cannot be read is left out and said in
// the error; what can is returned.
func processFamilies(root string) ([]family, error) {
	var fs []family
	var errs []error
	self := filepath.Join(root, "self")

	st, err := readFile(filepath.Join(self, "stat"), parseStat)
	if err != nil {
		errs = append(errs, err)
	} else {
		fs = append(fs,
			one("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", kindCounter, float64(st.utime+st.stime)/userHZ),
			one("process_virtual_memory_bytes", "Virtual memory size in bytes.", kindGauge, float64(st.vsize)),
			one("process_resident_memory_bytes", "Resident memory size in bytes.", kindGauge, float64(st.rss)*float64(os.Getpagesize())),
		)
		if boot, err := readFile(filepath.Join(root, "stat"), parseBootTime); err != nil {
			errs = append(errs, err)
		} else {
			fs = append(fs, one("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", kindGauge, float64(boot)+float64(st.starttime)/userHZ))
		}
	}

	if n, err := countEntries(filepath.Join(self, "fd")); err != nil {
		errs = append(errs, err)
	} else {
		fs = append(fs, one("process_open_fds", "Number of open file descriptors.", kindGauge, float64(n)))
	}

	if limit, err := readFile(filepath.Join(self, "limits"), parseMaxOpenFiles); err != nil {
		errs = append(errs, err)
	} else if limit >= 0 {
		fs = append(fs, one("process_max_fds", "Maximum number of open file descriptors.", kindGauge, float64(limit)))
	}
	return fs, errors.Join(errs...)
}

func readFile[T any](path string, parse func([]byte) (T, error)) (T, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("reading the process's figures: %w", err)
	}
	v, err := parse(b)
	if err != nil {
		return v, fmt.Errorf("reading the process's figures from %s: %w", path, err)
	}
	return v, nil
}

func countEntries(dir string) (int, error) {
	d, err := os.Open(dir)
	if err != nil {
		return 0, fmt.Errorf("counting open files: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return 0, fmt.Errorf("counting open files in %s: %w", dir, err)
	}
	return len(names), nil
}

// procStat is what a scrape needs of /proc/self/stat.
type procStat struct {
	utime, stime, starttime uint64 // in USER_HZ ticks; starttime since boot
	vsize                   uint64 // bytes
	rss                     uint64 // pages
}

// parseStat reads proc(5)'s /proc/pid/stat. The command name (field 2) is
// in parentheses and may hold spaces and parentheses itself, so fields are
// counted from the last ')'.
func parseStat(b []byte) (procStat, error) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return procStat{}, errors.New("no command name in parentheses")
	}
	// After ')': field 3 (state) onwards, so field n is at index n-3.
	f := strings.Fields(string(b[end+1:]))
	field := func(n int) (uint64, error) {
		if n-3 >= len(f) {
			return 0, fmt.Errorf("%d fields, field %d wanted", len(f)+2, n)
		}
		v, err := strconv.ParseUint(f[n-3], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("field %d: %w", n, err)
		}
		return v, nil
	}
	var s procStat
	var errs [5]error
	s.utime, errs[0] = field(14)
	s.stime, errs[1] = field(15)
	s.starttime, errs[2] = field(22)
	s.vsize, errs[3] = field(23)
	s.rss, errs[4] = field(24)
	return s, errors.Join(errs[:]...)
}

// parseBootTime reads the btime line of /proc/stat: the boot time in
// seconds since the epoch.
func parseBootTime(b []byte) (uint64, error) {
	for l := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("btime: %w", err)
			}
			return n, nil
		}
	}
	return 0, errors.New("no btime line")
}

// parseMaxOpenFiles reads the soft limit on open files from
// /proc/self/limits; -1 when it is unlimited.
//
//	Limit                     Soft Limit           Hard Limit           Units
//	Max open files            1024                 524288               files
func parseMaxOpenFiles(b []byte) (int64, error) {
	for l := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(l, "Max open files"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				break
			}
			if f[0] == "unlimited" {
				return -1, nil
			}
			n, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("max open files: %w", err)
			}
			return n, nil
		}
	}
	return 0, errors.New("no max open files line")
}
