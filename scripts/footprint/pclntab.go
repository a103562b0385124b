package main

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
)

// .gopclntab is a third of the binary and, when jarvisbot idles, about a
// third of its resident pages: the runtime reads it for the functions on
// goroutine stacks (a GC's stack scan, a stack's growth, a traceback).
// Almost all of it is per function, so it is attributed function by
// function: the function's entry in the function table, its name, the
// pc-value tables (stack size, file and line, pcdata) and the funcdata
// (stack maps, inlining trees) it refers to. A table or funcdata that
// several functions share goes to the first of them in address order.
// What no function refers to (the header, the file and compilation-unit
// tables, the lookup index) counts as other.

// go120Magic starts a .gopclntab laid out as Go 1.20 and later lay it out
// (runtime.pcHeader, runtime._func): the form this reader knows.
const go120Magic = 0xfffffff1

// Offsets in runtime.pcHeader (64-bit).
const (
	pcHeaderNfunc    = 8
	pcHeaderFuncname = 32
	pcHeaderCutab    = 40
	pcHeaderPctab    = 56
	pcHeaderPcln     = 64
	pcHeaderSize     = 72
)

// Offsets in runtime._func, which npcdata pcdata offsets and then
// nfuncdata funcdata offsets follow (uint32 each).
const (
	funcNameOff   = 4
	funcPcsp      = 16
	funcPcfile    = 20
	funcPcln      = 24
	funcNpcdata   = 28
	funcNfuncdata = 43
	funcSize      = 44
)

// noFuncdata marks a funcdata slot a function does not use.
const noFuncdata = 0xffffffff

// pclntabSpans attributes the bytes of .gopclntab (tab, loaded at base)
// to the modules of the functions they describe. gofunc is where the
// funcdata lies (the go:func.* symbol), inside .gopclntab. The spans are
// sorted, disjoint and merged where neighbours share a module.
func pclntabSpans(tab []byte, base uint64, gofunc addrRange, mods modules) ([]span, error) {
	le := binary.LittleEndian
	if len(tab) < pcHeaderSize || le.Uint32(tab) != go120Magic || tab[7] != 8 {
		return nil, fmt.Errorf(".gopclntab is not in the 64-bit Go 1.20+ form this reader knows; build with the Go release the project names")
	}
	nfunc := le.Uint64(tab[pcHeaderNfunc:])
	funcname := le.Uint64(tab[pcHeaderFuncname:])
	cutab := le.Uint64(tab[pcHeaderCutab:])
	pctab := le.Uint64(tab[pcHeaderPctab:])
	pcln := le.Uint64(tab[pcHeaderPcln:])
	if pcln+8*(nfunc+1) > uint64(len(tab)) || funcname > cutab || cutab > pctab || pctab > pcln {
		return nil, fmt.Errorf(".gopclntab's header gives tables outside it (%d functions)", nfunc)
	}
	if gofunc.start < base || gofunc.end > base+uint64(len(tab)) {
		return nil, fmt.Errorf("the funcdata (%#x-%#x) is not inside .gopclntab (%#x-%#x)", gofunc.start, gofunc.end, base, base+uint64(len(tab)))
	}
	// The names: those of the functions and those of the functions
	// inlined into them, which only the inlining trees refer to. Each
	// name says its own module.
	var spans []span
	for at := funcname; at < cutab; {
		n := bytes.IndexByte(tab[at:cutab], 0)
		if n < 0 { // no terminator: the rest is one name
			n = int(cutab-at) - 1
		}
		end := at + uint64(n) + 1
		spans = append(spans, span{addrRange{base + at, base + end}, mods.ofSymbol(string(tab[at : end-1]))})
		at = end
	}
	// pc-value tables and funcdata: where each starts, and whose it is.
	pcvalueOwner := map[uint64]string{}
	funcdataOwner := map[uint64]string{}
	claim := func(owners map[uint64]string, at uint64, module string) {
		if _, ok := owners[at]; !ok {
			owners[at] = module
		}
	}
	for i := range nfunc {
		entry := pcln + 8*i
		f := pcln + uint64(le.Uint32(tab[entry+4:]))
		if f+funcSize > uint64(len(tab)) {
			return nil, fmt.Errorf("function %d's record lies outside .gopclntab", i)
		}
		rec := tab[f:]
		npcdata, nfuncdata := uint64(le.Uint32(rec[funcNpcdata:])), uint64(rec[funcNfuncdata])
		end := f + funcSize + 4*(npcdata+nfuncdata)
		nameAt := funcname + uint64(le.Uint32(rec[funcNameOff:]))
		if end > uint64(len(tab)) || nameAt >= cutab {
			return nil, fmt.Errorf("function %d's record or name lies outside its table", i)
		}
		nameLen := bytes.IndexByte(tab[nameAt:cutab], 0)
		if nameLen < 0 {
			return nil, fmt.Errorf("function %d's name runs past the name table", i)
		}
		module := mods.ofSymbol(string(tab[nameAt : nameAt+uint64(nameLen)]))
		spans = append(spans,
			span{addrRange{base + entry, base + entry + 8}, module},
			span{addrRange{base + f, base + end}, module})
		for _, at := range []uint64{funcPcsp, funcPcfile, funcPcln} {
			if off := uint64(le.Uint32(rec[at:])); off != 0 {
				claim(pcvalueOwner, pctab+off, module)
			}
		}
		for j := range npcdata {
			if off := uint64(le.Uint32(rec[funcSize+4*j:])); off != 0 {
				claim(pcvalueOwner, pctab+off, module)
			}
		}
		for j := range nfuncdata {
			if off := le.Uint32(rec[funcSize+4*(npcdata+j):]); off != noFuncdata {
				claim(funcdataOwner, gofunc.start-base+uint64(off), module)
			}
		}
	}
	// The pc-value tables end where the function table begins; the
	// funcdata ends with its symbol. The function table's sentinel entry
	// and the padding between records are nobody's.
	spans = append(spans, ownedRuns(pcvalueOwner, pcln, base)...)
	spans = append(spans, ownedRuns(funcdataOwner, gofunc.end-base, base)...)
	return mergeSpans(spans), nil
}

// ownedRuns turns starts with owners into spans: each from its start to
// the next start, the last to limit; all offsets are from base.
func ownedRuns(owners map[uint64]string, limit, base uint64) []span {
	starts := make([]uint64, 0, len(owners))
	for at := range owners {
		if at < limit {
			starts = append(starts, at)
		}
	}
	slices.Sort(starts)
	out := make([]span, 0, len(starts))
	for i, at := range starts {
		end := limit
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		out = append(out, span{addrRange{base + at, base + end}, owners[at]})
	}
	return out
}

// mergeSpans sorts spans, keeps each byte once (for the first span that
// holds it) and joins touching spans of one module.
func mergeSpans(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var out []span
	for _, s := range spans {
		if n := len(out); n > 0 {
			last := &out[n-1]
			s.start = max(s.start, last.end)
			if s.end <= s.start {
				continue
			}
			if s.start == last.end && s.module == last.module {
				last.end = s.end
				continue
			}
		}
		out = append(out, s)
	}
	return out
}
