package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// residentPage is one page of the executable's mappings in memory.
type residentPage struct {
	addr uint64
	// file: the page is the file's (page cache), as RssFile counts it;
	// otherwise a private copy, as of data the program wrote.
	file bool
}

// pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst). The
// page frame number needs privileges; these flags do not.
const (
	pagePresent = 1 << 63
	pageFile    = 1 << 61 // file page or shared anonymous
)

// executableMappings finds the ranges /proc/PID/maps maps from exe.
func executableMappings(maps, exe string) ([]addrRange, error) {
	var ranges []addrRange
	for line := range strings.Lines(maps) {
		f := strings.Fields(line)
		if len(f) < 6 || strings.Join(f[5:], " ") != exe {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("a /proc/PID/maps line that does not parse: %q", line)
		}
		ranges = append(ranges, addrRange{start, end})
	}
	if len(ranges) == 0 {
		return nil, fmt.Errorf("/proc/PID/maps maps nothing from %s", exe)
	}
	return ranges, nil
}

// presentPages decodes the pagemap entries of consecutive pages from start
// and keeps those in memory.
func presentPages(entries []byte, start, pageSize uint64) []residentPage {
	var pages []residentPage
	for i := 0; i+8 <= len(entries); i += 8 {
		e := binary.LittleEndian.Uint64(entries[i:])
		if e&pagePresent != 0 {
			pages = append(pages, residentPage{addr: start + uint64(i/8)*pageSize, file: e&pageFile != 0})
		}
	}
	return pages
}

// residentPages lists the pages of the executable that process pid has in
// memory. A parent may read its own child's pagemap without privileges.
func residentPages(pid int) ([]residentPage, error) {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return nil, fmt.Errorf("finding jarvisbot's executable: %w", err)
	}
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return nil, fmt.Errorf("reading jarvisbot's mappings: %w", err)
	}
	ranges, err := executableMappings(string(maps), exe)
	if err != nil {
		return nil, err
	}
	pm, err := os.Open(fmt.Sprintf("/proc/%d/pagemap", pid))
	if err != nil {
		return nil, fmt.Errorf("reading which of jarvisbot's pages are resident: %w", err)
	}
	defer pm.Close()
	pageSize := uint64(os.Getpagesize())
	var pages []residentPage
	for _, r := range ranges {
		entries := make([]byte, r.size()/pageSize*8)
		if _, err := pm.ReadAt(entries, int64(r.start/pageSize*8)); err != nil {
			return nil, fmt.Errorf("reading /proc/%d/pagemap at %#x: %w", pid, r.start, err)
		}
		pages = append(pages, presentPages(entries, r.start, pageSize)...)
	}
	return pages, nil
}

// residency is the resident bytes of the executable by module, and how
// many of them are file pages (to compare with RssFile) or private copies.
type residency struct {
	byModule   map[string]float64
	file, anon uint64
}

func (l layout) residency(pages []residentPage, pageSize uint64) residency {
	r := residency{byModule: map[string]float64{}}
	for _, p := range pages {
		l.bytesIn(p.addr, p.addr+pageSize, r.byModule)
		if p.file {
			r.file += pageSize
		} else {
			r.anon += pageSize
		}
	}
	return r
}
