package trim

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// dropProgramPages drops the clean read-only mappings of the executable.
func dropProgramPages() (int, error) { return dropFilePages("/proc/self/exe") }

// dropFilePages drops this process's clean read-only mappings of a file.
func dropFilePages(path string) (int, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0, fmt.Errorf("finding the mapped file: %w", err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, fmt.Errorf("reading the process's mappings: %w", err)
	}
	n := 0
	for _, r := range programRegions(smaps, devNumber(st.Dev), st.Ino) {
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, r.start, r.end-r.start, syscall.MADV_DONTNEED); e != 0 {
			return n, fmt.Errorf("releasing program pages %#x-%#x: %w", r.start, r.end, e)
		}
		n++
	}
	return n, nil
}

// devNumber is st_dev as /proc/PID/maps prints it, major and minor apart.
func devNumber(dev uint64) [2]uint64 {
	major := (dev>>8)&0xfff | (dev>>32)&^0xfff
	minor := dev&0xff | (dev>>12)&^0xff
	return [2]uint64{major, minor}
}

type region struct{ start, end uintptr }

// programRegions picks, from /proc/self/smaps, the mappings of the file
// (dev, ino) that may be dropped: read-only, private, and without a single
// anonymous page. A page written since it was mapped (relocations of a
// position-independent build, a debugger's breakpoint) is anonymous and
// exists nowhere else, so a mapping holding one is left alone.
func programRegions(smaps []byte, dev [2]uint64, ino uint64) []region {
	var out []region
	var cur *region
	keep := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			keep()
			r, ok := parseMapping(f, dev, ino)
			if ok {
				cur = &r
			}
			continue
		}
		if cur == nil {
			continue
		}
		if len(f) >= 2 && f[0] == "Anonymous:" && f[1] != "0" {
			cur = nil
		}
	}
	keep()
	return out
}

// parseMapping reads a mapping's header line: "start-end perms offset
// major:minor inode path".
func parseMapping(f []string, dev [2]uint64, ino uint64) (region, bool) {
	if f[1] != "r-xp" && f[1] != "r--p" {
		return region{}, false
	}
	if i, err := strconv.ParseUint(f[4], 10, 64); err != nil || i != ino {
		return region{}, false
	}
	maj, min, ok := strings.Cut(f[3], ":")
	if !ok {
		return region{}, false
	}
	ma, err1 := strconv.ParseUint(maj, 16, 64)
	mi, err2 := strconv.ParseUint(min, 16, 64)
	if err1 != nil || err2 != nil || [2]uint64{ma, mi} != dev {
		return region{}, false
	}
	lo, hi, _ := strings.Cut(f[0], "-")
	s, err1 := strconv.ParseUint(lo, 16, 64)
	e, err2 := strconv.ParseUint(hi, 16, 64)
	if err1 != nil || err2 != nil || e <= s {
		return region{}, false
	}
	return region{uintptr(s), uintptr(e)}, true
}
