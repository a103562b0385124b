package metrics

import (
	"runtime"
	"runtime/debug"
	"time"
)

// The Go runtime's series, under the names and with the meanings
// Prometheus' Go client gives them, so dashboards and alerts written for
// any Go service work.
//
// They come from runtime.ReadMemStats, which stops the world for a few
// tens of microseconds per scrape (with a 100 MB heap, on two cores),
// rather than runtime/metrics, which stops nothing but whose package
// initialisation builds its table of descriptions (~15 KB, ~95
// allocations) in every process that links it, metrics on or off.
// Paying at scrape, only when metrics are on, is issue 30's rule.

// goSeries is one go_* series read from MemStats.
type goSeries struct {
	name, help string
	kind       kind
	value      func(*runtime.MemStats) uint64
}

func goSeriesTable() []goSeries {
	return []goSeries{
		{"go_memstats_alloc_bytes", "Number of heap bytes allocated and currently in use.", kindGauge, func(s *runtime.MemStats) uint64 { return s.Alloc }},
		{"go_memstats_alloc_bytes_total", "Total number of heap bytes allocated, even if freed.", kindCounter, func(s *runtime.MemStats) uint64 { return s.TotalAlloc }},
		{"go_memstats_sys_bytes", "Number of bytes obtained from the OS, for every use.", kindGauge, func(s *runtime.MemStats) uint64 { return s.Sys }},
		{"go_memstats_mallocs_total", "Total number of heap objects allocated, even if freed.", kindCounter, func(s *runtime.MemStats) uint64 { return s.Mallocs }},
		{"go_memstats_frees_total", "Total number of heap objects freed.", kindCounter, func(s *runtime.MemStats) uint64 { return s.Frees }},
		{"go_memstats_heap_alloc_bytes", "Number of heap bytes allocated and currently in use.", kindGauge, func(s *runtime.MemStats) uint64 { return s.HeapAlloc }},
		{"go_memstats_heap_sys_bytes", "Number of heap bytes obtained from the OS.", kindGauge, func(s *runtime.MemStats) uint64 { return s.HeapSys }},
		{"go_memstats_heap_idle_bytes", "Number of heap bytes waiting to be used.", kindGauge, func(s *runtime.MemStats) uint64 { return s.HeapIdle }},
		{"go_memstats_heap_inuse_bytes", "Number of heap bytes in spans that hold objects.", kindGauge, func(s *runtime.MemStats) uint64 { return s.HeapInuse }},
		{"go_memstats_heap_released_bytes", "Number of heap bytes released to the OS.", kindGauge, func(s *runtime.MemStats) uint64 { return s.HeapReleased }},
		{"go_memstats_heap_objects", "Number of currently allocated objects.", kindGauge, func(s *runtime.MemStats) uint64 { return s.HeapObjects }},
		{"go_memstats_stack_inuse_bytes", "Number of bytes in stack spans.", kindGauge, func(s *runtime.MemStats) uint64 { return s.StackInuse }},
		{"go_memstats_stack_sys_bytes", "Number of bytes obtained from the OS for stacks.", kindGauge, func(s *runtime.MemStats) uint64 { return s.StackSys }},
		{"go_memstats_next_gc_bytes", "Heap size at which the next garbage collection is due.", kindGauge, func(s *runtime.MemStats) uint64 { return s.NextGC }},
	}
}

// goFamilies reads the runtime now.
func goFamilies(table []goSeries) []family {
	// MemStats is ~5 KB (the pause ring and the size classes): on the
	// heap, once per scrape, not on the stack of every handler.
	ms := new(runtime.MemStats)
	runtime.ReadMemStats(ms)
	fs := make([]family, 0, len(table)+7)
	for _, g := range table {
		fs = append(fs, one(g.name, g.help, g.kind, float64(g.value(ms))))
	}
	threads, _ := runtime.ThreadCreateProfile(nil)
	fs = append(fs,
		one("go_goroutines", "Number of goroutines that currently exist.", kindGauge, float64(runtime.NumGoroutine())),
		one("go_threads", "Number of OS threads created.", kindGauge, float64(threads)),
		one("go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting: how many threads may run Go code at once.", kindGauge, float64(runtime.GOMAXPROCS(0))),
		// A negative limit reads the current one without changing it.
		one("go_gc_gomemlimit_bytes", "Go runtime memory limit configured by GOMEMLIMIT or debug.SetMemoryLimit.", kindGauge, float64(debug.SetMemoryLimit(-1))),
		family{name: "go_info", help: "Information about the Go environment.", kind: kindGauge,
			samples: []sample{{labels: []label{{"version", runtime.Version()}}, value: 1}}},
	)
	last := 0.0
	if ms.LastGC != 0 {
		last = float64(ms.LastGC) / 1e9
	}
	fs = append(fs, one("go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.", kindGauge, last))

	// ReadGCStats only takes the heap's lock, and sorts the recent pauses
	// into the minimum, the quartiles and the maximum.
	st := debug.GCStats{PauseQuantiles: make([]time.Duration, 5)}
	debug.ReadGCStats(&st)
	q := make([]sample, 0, len(st.PauseQuantiles)+2)
	for i, p := range st.PauseQuantiles {
		q = append(q, sample{labels: []label{{"quantile", formatFloat(float64(i) / 4)}}, value: p.Seconds()})
	}
	q = append(q, sample{suffix: "_sum", value: st.PauseTotal.Seconds()}, sample{suffix: "_count", value: float64(st.NumGC)})
	return append(fs, family{name: "go_gc_duration_seconds", help: "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.", kind: kindSummary, samples: q})
}
