package main

import (
	"cmp"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"slices"
)

// loadSections are the sections a stripped build and its unstripped twin
// must place alike for the twin's symbols to describe the stripped one.
var loadSections = []string{".text", ".rodata", ".gopclntab", ".typelink", ".itablink", ".noptrdata", ".data"}

// checkTwin refuses a symbols file that is not the stripped binary's
// twin, since every figure of the table would then be attributed by the
// addresses of another program.
func checkTwin(stripped, twin string) error {
	s, err := elf.Open(stripped)
	if err != nil {
		return fmt.Errorf("reading the sections of %s: %w", stripped, err)
	}
	defer s.Close()
	t, err := elf.Open(twin)
	if err != nil {
		return fmt.Errorf("reading the sections of the symbols file %s: %w", twin, err)
	}
	defer t.Close()
	var differ []string
	for _, name := range loadSections {
		a, b := s.Section(name), t.Section(name)
		switch {
		case a == nil || b == nil:
			differ = append(differ, fmt.Sprintf("%s is missing from one of them", name))
		case a.Addr != b.Addr || a.Size != b.Size:
			differ = append(differ, fmt.Sprintf("%s is %d bytes at %#x in the binary, %d bytes at %#x in the symbols file", name, a.Size, a.Addr, b.Size, b.Addr))
		}
	}
	if len(differ) > 0 {
		// The first difference says enough; the rest usually follow from it.
		first := differ[0]
		if n := len(differ) - 1; n > 0 {
			first += fmt.Sprintf(", and %d more sections differ", n)
		}
		return fmt.Errorf("%s is not an unstripped twin of %s: %s; build both from the same tree, the twin with scripts/release.sh --unstripped",
			twin, stripped, first)
	}
	return nil
}

// symbol is one sized symbol of the twin's symbol table.
type symbol struct {
	addr, size uint64
	module     string
}

// addrRange is [start, end).
type addrRange struct{ start, end uint64 }

func (r addrRange) size() uint64 { return r.end - r.start }

// overlap is how many bytes r and [start, end) share.
func (r addrRange) overlap(start, end uint64) uint64 {
	lo, hi := max(r.start, start), min(r.end, end)
	if hi <= lo {
		return 0
	}
	return hi - lo
}

// span is a run of bytes that belongs to one module.
type span struct {
	addrRange
	module string
}

// layout says which module each byte of the loaded binary belongs to:
// the bytes of its symbols and, in .gopclntab (function tables, line
// tables and funcdata, which carry no symbol of their own), the bytes
// that describe its functions (pclntabSpans).
type layout struct {
	spans    []span // sorted and disjoint
	pclntab  addrRange
	fileSize uint64    // of the stripped binary
	sections []section // loaded with content from the file
}

// section is a loaded section of the binary.
type section struct {
	addrRange
	name string
}

// readLayout reads the twin's symbol table and attributes each symbol.
func readLayout(twin string, mods modules, fileSize uint64) (layout, error) {
	f, err := elf.Open(twin)
	if err != nil {
		return layout{}, fmt.Errorf("reading the symbols file %s: %w", twin, err)
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC {
		return layout{}, fmt.Errorf("%s is position-independent (%s); the resident figures read the addresses it was linked at, so build it as a plain executable", twin, f.Type)
	}
	pcln := f.Section(".gopclntab")
	if pcln == nil {
		return layout{}, fmt.Errorf("%s has no .gopclntab section: is it a Go binary?", twin)
	}
	elfSyms, err := f.Symbols()
	if errors.Is(err, elf.ErrNoSymbols) {
		return layout{}, fmt.Errorf("%s has no symbol table: build it with scripts/release.sh --unstripped", twin)
	} else if err != nil {
		return layout{}, fmt.Errorf("reading the symbol table of %s: %w", twin, err)
	}
	var syms []symbol
	var gofunc addrRange
	for _, s := range elfSyms {
		if s.Name == "go:func.*" {
			gofunc = addrRange{s.Value, s.Value + s.Size}
		}
		i := int(s.Section)
		if s.Size == 0 || i <= 0 || i >= len(f.Sections) {
			continue
		}
		sec := f.Sections[i]
		// .bss and .noptrbss take no room in the file, and their pages
		// are anonymous memory, not the executable's.
		if sec.Flags&elf.SHF_ALLOC == 0 || sec.Type == elf.SHT_NOBITS {
			continue
		}
		syms = append(syms, symbol{addr: s.Value, size: s.Size, module: mods.ofSymbol(s.Name)})
	}
	tab, err := pcln.Data()
	if err != nil {
		return layout{}, fmt.Errorf("reading .gopclntab of %s: %w", twin, err)
	}
	pclnSpans, err := pclntabSpans(tab, pcln.Addr, gofunc, mods)
	if err != nil {
		return layout{}, fmt.Errorf("%s: %w", twin, err)
	}
	l := newLayout(syms, addrRange{pcln.Addr, pcln.Addr + pcln.Size}, pclnSpans, fileSize)
	for _, sec := range f.Sections {
		if sec.Flags&elf.SHF_ALLOC != 0 && sec.Type != elf.SHT_NOBITS {
			l.sections = append(l.sections, section{addrRange{sec.Addr, sec.Addr + sec.Size}, sec.Name})
		}
	}
	return l, nil
}

// newLayout places the symbols, except those inside .gopclntab (the
// funcdata, which pclnSpans attribute function by function), beside the
// spans of .gopclntab.
func newLayout(syms []symbol, pclntab addrRange, pclnSpans []span, fileSize uint64) layout {
	l := layout{pclntab: pclntab, fileSize: fileSize}
	syms = slices.Clone(syms)
	slices.SortFunc(syms, func(a, b symbol) int { return cmp.Compare(a.addr, b.addr) })
	var end uint64
	for _, s := range syms {
		r := addrRange{max(s.addr, end), s.addr + s.size}
		// Go's symbols do not overlap; should some, each byte counts
		// once, for the first, so sizes still add up.
		if r.end <= r.start || pclntab.overlap(r.start, r.end) > 0 {
			continue
		}
		l.spans = append(l.spans, span{r, s.module})
		end = r.end
	}
	for _, s := range pclnSpans {
		if pclntab.overlap(s.start, s.end) == s.size() {
			l.spans = append(l.spans, s)
		}
	}
	l.spans = mergeSpans(l.spans)
	return l
}

// binarySize is how many bytes of the stripped file each module accounts
// for; other gets the rest, so that the sizes add up to the file.
func (l layout) binarySize() map[string]float64 {
	sizes := map[string]float64{}
	var counted float64
	for _, s := range l.spans {
		sizes[s.module] += float64(s.size())
		counted += float64(s.size())
	}
	sizes[otherModule] += float64(l.fileSize) - counted
	return sizes
}

// bytesIn shares the bytes [start, end) out among modules by the spans
// they hold; the rest goes to other.
func (l layout) bytesIn(start, end uint64, into map[string]float64) {
	counted := uint64(0)
	i, _ := slices.BinarySearchFunc(l.spans, start, func(s span, addr uint64) int {
		if s.end <= addr {
			return -1
		}
		return 1
	})
	for ; i < len(l.spans) && l.spans[i].start < end; i++ {
		n := l.spans[i].overlap(start, end)
		into[l.spans[i].module] += float64(n)
		counted += n
	}
	into[otherModule] += float64(end - start - counted)
}

// sectionBytes is a number of bytes in one section.
type sectionBytes struct {
	name  string
	bytes uint64
}

// otherBySection says where the bytes that no module accounts for lie,
// section by section, the largest first, and how many lie outside every
// section (headers, padding between segments): what the other row is.
func (l layout) otherBySection() (parts []sectionBytes, outside uint64) {
	var inside uint64
	for _, sec := range l.sections {
		into := map[string]float64{}
		l.bytesIn(sec.start, sec.end, into)
		if n := uint64(into[otherModule]); n > 0 {
			parts = append(parts, sectionBytes{sec.name, n})
		}
		inside += sec.size()
	}
	slices.SortFunc(parts, func(a, b sectionBytes) int { return cmp.Compare(b.bytes, a.bytes) })
	return parts, l.fileSize - min(inside, l.fileSize)
}

func fileSize(path string) (uint64, error) {
	info, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return uint64(info.Size()), nil
}
