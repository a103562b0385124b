package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"time"
)

// moduleTable is what the -modules table knows before jarvisbot serves:
// which module each byte of the binary belongs to and what each module's
// package initialisation allocates.
type moduleTable struct {
	mods   modules
	layout layout
	inits  map[string]initCost
}

// prepareModules reads the binary, its twin and an inittrace once, before
// the runs, so that a wrong symbols file fails in seconds, not minutes.
func prepareModules(o options, env []string) (*moduleTable, error) {
	if o.symbols == "" {
		return nil, fmt.Errorf("-modules needs -symbols, an unstripped twin of %s (scripts/footprint.sh builds one)", o.jarvisbot)
	}
	if err := checkTwin(o.jarvisbot, o.symbols); err != nil {
		return nil, err
	}
	mods, err := readModules(o.jarvisbot)
	if err != nil {
		return nil, err
	}
	size, err := fileSize(o.jarvisbot)
	if err != nil {
		return nil, err
	}
	l, err := readLayout(o.symbols, mods, size)
	if err != nil {
		return nil, err
	}
	inits, err := traceInits(o.jarvisbot, env, mods)
	if err != nil {
		return nil, err
	}
	return &moduleTable{mods: mods, layout: l, inits: inits}, nil
}

// moduleRow is one line of the table.
type moduleRow struct {
	name        string
	binary      float64 // bytes
	init        initCost
	idle, after float64 // resident bytes
}

func (r *moduleRow) add(o moduleRow) {
	r.binary += o.binary
	r.init.bytes += o.init.bytes
	r.init.allocs += o.init.allocs
	r.idle += o.idle
	r.after += o.after
}

// tableTop modules get a row each, the largest in the binary; the rest
// share one, so that the table fits a README.
const tableTop = 25

// rows gathers each module's figures, the largest in the binary first.
func (t *moduleTable) rows(idle, after residency) []moduleRow {
	sizes := t.layout.binarySize()
	byModule := map[string]*moduleRow{}
	row := func(m string) *moduleRow {
		if byModule[m] == nil {
			byModule[m] = &moduleRow{name: t.label(m)}
		}
		return byModule[m]
	}
	for m, b := range sizes {
		row(m).binary = b
	}
	for m, c := range t.inits {
		row(m).init = c
	}
	for m, b := range idle.byModule {
		row(m).idle = b
	}
	for m, b := range after.byModule {
		row(m).after = b
	}
	var rows []moduleRow
	for _, r := range byModule {
		rows = append(rows, *r)
	}
	slices.SortFunc(rows, func(a, b moduleRow) int {
		return cmp.Or(cmp.Compare(b.binary, a.binary), cmp.Compare(a.name, b.name))
	})
	return rows
}

func (t *moduleTable) label(module string) string {
	switch module {
	case t.mods.main:
		return "jarvisbot itself"
	case stdModule:
		return "Go standard library and runtime"
	case otherModule:
		return "other (type data, strings, padding)"
	}
	return module
}

// print writes the table in Markdown, for the README, with the notes that
// say how it was counted.
func (t *moduleTable) print(w io.Writer, last run, after time.Duration) {
	pageSize := uint64(os.Getpagesize())
	idle := t.layout.residency(last.pagesIdle, pageSize)
	afterTurn := t.layout.residency(last.pagesAfter, pageSize)
	rows := t.rows(idle, afterTurn)

	fmt.Fprintf(w, "\nGo modules in the binary (resident: the last run, idle and %s after a turn):\n\n", after)
	fmt.Fprintln(w, "| module | binary MB | init KB / allocs | resident MiB idle | resident MiB after a turn |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|")
	var rest, total moduleRow
	for i, r := range rows {
		total.add(r)
		if i < tableTop {
			printRow(w, r)
		} else {
			rest.add(r)
		}
	}
	if n := len(rows) - tableTop; n > 0 {
		rest.name = fmt.Sprintf("all others (%d modules)", n)
		printRow(w, rest)
	}
	total.name = "total"
	printRow(w, total)

	fmt.Fprintf(w, "\nbinary MB: each module's symbols in .text, .rodata and the data sections (from an unstripped twin of the same build), and what .gopclntab (%.1f MB of function and line tables and funcdata) holds for its functions: their entries, names, pc-value tables and funcdata, a shared table going to the first function that uses it. Type descriptors and string literals carry no symbol of their own and count as other, as do .gopclntab's header, file tables and lookup index; the total is the stripped file.\n", float64(t.layout.pclntab.size())/1e6)
	fmt.Fprintln(w, t.otherNote())
	fmt.Fprintln(w, "init: the allocations of its packages' init functions (GODEBUG=inittrace=1), in KB (1000 bytes) and count.")
	fmt.Fprintf(w, "resident: the executable's pages in memory (/proc/PID/pagemap), each split over the bytes it holds as binary MB splits the file. Counted when idle: %.1f MiB file pages (RssFile says %.1f MiB) and %.1f MiB of data the process wrote (counted in RssAnon).\n",
		mib(idle.file), last.idle.file/1024, mib(idle.anon))
}

// otherNote says what the other row is made of.
func (t *moduleTable) otherNote() string {
	parts, outside := t.layout.otherBySection()
	note := "other:"
	for _, p := range parts {
		if p.bytes >= 50_000 {
			note += fmt.Sprintf(" %.2f MB in %s,", float64(p.bytes)/1e6, p.name)
		}
	}
	return note + fmt.Sprintf(" %.2f MB outside the loaded sections (headers, alignment).", float64(outside)/1e6)
}

func printRow(w io.Writer, r moduleRow) {
	fmt.Fprintf(w, "| %s | %.2f | %.1f / %d | %.2f | %.2f |\n", r.name, r.binary/1e6, float64(r.init.bytes)/1e3, r.init.allocs, r.idle/(1<<20), r.after/(1<<20))
}

func mib(bytes uint64) float64 { return float64(bytes) / (1 << 20) }
