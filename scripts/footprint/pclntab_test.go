package main

import (
	"debug/elf"
	"encoding/binary"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPclntabSpansOfThisBinary reads the .gopclntab of this harness, built
// as the footprint script builds a symbols file (test binaries have no
// symbol table): the functions' parts cover nearly all of it, lie inside
// it, in order, and go to the modules their functions are from.
func TestPclntabSpansOfThisBinary(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "footprint")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pcln := f.Section(".gopclntab")
	if pcln == nil {
		t.Fatal("the test binary has no .gopclntab")
	}
	tab, err := pcln.Data()
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var gofunc addrRange
	for _, s := range syms {
		if s.Name == "go:func.*" {
			gofunc = addrRange{s.Value, s.Value + s.Size}
		}
	}
	if gofunc.size() == 0 {
		t.Fatal("the test binary has no go:func.* symbol")
	}
	spans, err := pclntabSpans(tab, pcln.Addr, gofunc, newModules("github.com/jarvisbot/jarvisbot", nil))
	if err != nil {
		t.Fatal(err)
	}
	section := addrRange{pcln.Addr, pcln.Addr + pcln.Size}
	covered := map[string]uint64{}
	var total, end uint64
	for i, s := range spans {
		if s.start < end || s.end <= s.start || section.overlap(s.start, s.end) != s.size() {
			t.Fatalf("span %d (%#x-%#x) is empty, out of order or outside .gopclntab (%#x-%#x)", i, s.start, s.end, section.start, section.end)
		}
		end = s.end
		covered[s.module] += s.size()
		total += s.size()
	}
	// Outside the functions' parts lie only the header, the file and
	// compilation-unit tables and the lookup index: a few percent.
	if total < section.size()*9/10 {
		t.Errorf("the spans cover %d of .gopclntab's %d bytes; want nine tenths or more", total, section.size())
	}
	if covered[stdModule] == 0 || covered["github.com/jarvisbot/jarvisbot"] == 0 {
		t.Errorf("covered by module: %v; want the standard library and this package (package main) among them", covered)
	}
}

func TestPclntabSpansRefusesWhatItCannotRead(t *testing.T) {
	header := func(magic uint32, nfunc, funcname, pctab, pcln uint64) []byte {
		b := make([]byte, 256)
		binary.LittleEndian.PutUint32(b, magic)
		b[7] = 8
		binary.LittleEndian.PutUint64(b[pcHeaderNfunc:], nfunc)
		binary.LittleEndian.PutUint64(b[pcHeaderFuncname:], funcname)
		binary.LittleEndian.PutUint64(b[pcHeaderCutab:], funcname) // no names
		binary.LittleEndian.PutUint64(b[pcHeaderPctab:], pctab)
		binary.LittleEndian.PutUint64(b[pcHeaderPcln:], pcln)
		return b
	}
	inside := addrRange{0x1000 + 200, 0x1000 + 256}
	for _, tc := range []struct {
		name   string
		tab    []byte
		gofunc addrRange
		want   string
	}{
		{"an older layout", header(0xfffffff0, 0, 72, 72, 72), inside, "Go 1.20+"},
		{"too short", []byte{0xf1, 0xff, 0xff, 0xff}, inside, "Go 1.20+"},
		{"tables past its end", header(go120Magic, 1000, 72, 80, 100), inside, "outside"},
		{"funcdata elsewhere", header(go120Magic, 0, 72, 72, 72), addrRange{0x9000, 0x9100}, "not inside"},
		{"a name without its end", func() []byte {
			b := header(go120Magic, 1, 72, 80, 100)
			binary.LittleEndian.PutUint64(b[pcHeaderCutab:], 80) // names 72-80, no NUL among them
			copy(b[72:80], "mainmain")
			binary.LittleEndian.PutUint32(b[100+4:], 20) // the record at 120
			return b
		}(), inside, "runs past"},
		{"a record past its end", func() []byte {
			b := header(go120Magic, 1, 72, 80, 100)
			binary.LittleEndian.PutUint32(b[100+4:], 150) // the record at 250 needs 44 bytes
			return b
		}(), inside, "outside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pclntabSpans(tc.tab, 0x1000, tc.gofunc, testModules)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one that says %q", err, tc.want)
			}
		})
	}
}

func TestMergeSpans(t *testing.T) {
	got := mergeSpans([]span{
		{addrRange{30, 40}, "b"},
		{addrRange{0, 10}, "a"},
		{addrRange{10, 20}, "a"}, // touches the first, same module: joined
		{addrRange{15, 25}, "b"}, // overlaps: keeps only its own bytes
		{addrRange{22, 24}, "c"}, // inside the one before: nothing left
	})
	want := []span{{addrRange{0, 20}, "a"}, {addrRange{20, 25}, "b"}, {addrRange{30, 40}, "b"}}
	if !slices.Equal(got, want) {
		t.Errorf("mergeSpans = %v, want %v", got, want)
	}
}
