package metrics

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The Go runtime's series, under the names Prometheus' Go client gives
// them, so dashboards and alerts written for any Go service work. They are
// read through runtime/metrics, which does not stop the world as
// runtime.ReadMemStats does; the GC pause summary comes from
// debug.ReadGCStats, which only takes the heap's lock.

// The runtime/metrics a scrape reads, by index into a fixed array.
const (
	rmGoroutines = iota
	rmThreads
	rmGOMAXPROCS
	rmGOGC
	rmMemoryLimit
	rmHeapObjectsBytes
	rmHeapUnused
	rmHeapFree
	rmHeapReleased
	rmHeapStacks
	rmHeapObjects
	rmAllocsBytes
	rmAllocsObjects
	rmFreesObjects
	rmTinyAllocs
	rmHeapGoal
	rmTotal
	rmCount
)

func runtimeSampleNames() [rmCount]string {
	return [rmCount]string{
		rmGoroutines:       "/sched/goroutines:goroutines",
		rmThreads:          "/sched/threads/total:threads",
		rmGOMAXPROCS:       "/sched/gomaxprocs:threads",
		rmGOGC:             "/gc/gogc:percent",
		rmMemoryLimit:      "/gc/gomemlimit:bytes",
		rmHeapObjectsBytes: "/memory/classes/heap/objects:bytes",
		rmHeapUnused:       "/memory/classes/heap/unused:bytes",
		rmHeapFree:         "/memory/classes/heap/free:bytes",
		rmHeapReleased:     "/memory/classes/heap/released:bytes",
		rmHeapStacks:       "/memory/classes/heap/stacks:bytes",
		rmHeapObjects:      "/gc/heap/objects:objects",
		rmAllocsBytes:      "/gc/heap/allocs:bytes",
		rmAllocsObjects:    "/gc/heap/allocs:objects",
		rmFreesObjects:     "/gc/heap/frees:objects",
		rmTinyAllocs:       "/gc/heap/tiny/allocs:objects",
		rmHeapGoal:         "/gc/heap/goal:bytes",
		rmTotal:            "/memory/classes/total:bytes",
	}
}

// goSeries is one go_* series: the sum of the runtime/metrics at sum.
type goSeries struct {
	name, help string
	kind       kind
	sum        []int
}

func goSeriesTable() []goSeries {
	return []goSeries{
		{"go_goroutines", "Number of goroutines that currently exist.", kindGauge, []int{rmGoroutines}},
		{"go_threads", "Number of OS threads the Go runtime holds.", kindGauge, []int{rmThreads}},
		{"go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting: how many threads may run Go code at once.", kindGauge, []int{rmGOMAXPROCS}},
		{"go_gc_gogc_percent", "Heap size target percentage configured by GOGC or debug.SetGCPercent.", kindGauge, []int{rmGOGC}},
		{"go_gc_gomemlimit_bytes", "Go runtime memory limit configured by GOMEMLIMIT or debug.SetMemoryLimit.", kindGauge, []int{rmMemoryLimit}},
		{"go_memstats_alloc_bytes", "Number of heap bytes allocated and currently in use.", kindGauge, []int{rmHeapObjectsBytes}},
		{"go_memstats_alloc_bytes_total", "Total number of heap bytes allocated, even if freed.", kindCounter, []int{rmAllocsBytes}},
		{"go_memstats_heap_alloc_bytes", "Number of heap bytes allocated and currently in use.", kindGauge, []int{rmHeapObjectsBytes}},
		{"go_memstats_heap_inuse_bytes", "Number of heap bytes in spans that hold objects.", kindGauge, []int{rmHeapObjectsBytes, rmHeapUnused}},
		{"go_memstats_heap_idle_bytes", "Number of heap bytes waiting to be used.", kindGauge, []int{rmHeapFree, rmHeapReleased}},
		{"go_memstats_heap_released_bytes", "Number of heap bytes released to the OS.", kindGauge, []int{rmHeapReleased}},
		{"go_memstats_heap_sys_bytes", "Number of heap bytes obtained from the OS.", kindGauge, []int{rmHeapObjectsBytes, rmHeapUnused, rmHeapFree, rmHeapReleased}},
		{"go_memstats_heap_objects", "Number of currently allocated objects.", kindGauge, []int{rmHeapObjects}},
		// Tiny allocations are counted apart in runtime/metrics and
		// inside mallocs and frees in MemStats.
		{"go_memstats_mallocs_total", "Total number of heap objects allocated, even if freed.", kindCounter, []int{rmAllocsObjects, rmTinyAllocs}},
		{"go_memstats_frees_total", "Total number of heap objects freed.", kindCounter, []int{rmFreesObjects, rmTinyAllocs}},
		{"go_memstats_next_gc_bytes", "Heap size at which the next garbage collection is due.", kindGauge, []int{rmHeapGoal}},
		{"go_memstats_stack_inuse_bytes", "Number of bytes in stack spans.", kindGauge, []int{rmHeapStacks}},
		{"go_memstats_sys_bytes", "Number of bytes obtained from the OS, for every use.", kindGauge, []int{rmTotal}},
	}
}

// goFamilies reads the runtime now. A runtime/metrics name this Go does
// not know leaves its series out.
func goFamilies(table []goSeries) []family {
	names := runtimeSampleNames()
	var s [rmCount]metrics.Sample
	for i := range s {
		s[i].Name = names[i]
	}
	metrics.Read(s[:])
	fs := make([]family, 0, len(table)+3)
series:
	for _, g := range table {
		var v float64
		for _, i := range g.sum {
			switch s[i].Value.Kind() {
			case metrics.KindUint64:
				v += float64(s[i].Value.Uint64())
			case metrics.KindFloat64:
				v += s[i].Value.Float64()
			default:
				continue series
			}
		}
		fs = append(fs, one(g.name, g.help, g.kind, v))
	}

	st := debug.GCStats{PauseQuantiles: make([]time.Duration, 5)}
	debug.ReadGCStats(&st)
	q := make([]sample, 0, len(st.PauseQuantiles)+2)
	for i, p := range st.PauseQuantiles {
		// ReadGCStats gives the minimum, the quartiles and the maximum.
		q = append(q, sample{labels: []label{{"quantile", formatFloat(float64(i) / 4)}}, value: p.Seconds()})
	}
	q = append(q, sample{suffix: "_sum", value: st.PauseTotal.Seconds()}, sample{suffix: "_count", value: float64(st.NumGC)})
	fs = append(fs, family{name: "go_gc_duration_seconds", help: "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.", kind: kindSummary, samples: q})
	last := 0.0
	if !st.LastGC.IsZero() {
		last = float64(st.LastGC.UnixNano()) / 1e9
	}
	fs = append(fs,
		one("go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.", kindGauge, last),
		family{name: "go_info", help: "Information about the Go environment.", kind: kindGauge,
			samples: []sample{{labels: []label{{"version", runtime.Version()}}, value: 1}}},
	)
	return fs
}
