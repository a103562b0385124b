// Package trim gives back to the kernel the memory jarvisbot needed only
// for a moment: the heap that start-up or a turn freed, and the pages of
// its own program that they read.
//
// Most of a Go program's resident memory at rest is its executable: the
// kernel maps file pages in blocks around every page touched, and start-up
// (package initialisation of the LLM SDKs, the SQLite engine, the schema
// migrations) touches a great many of them once. Those pages are clean
// copies of the file, so dropping this process's mapping of them loses
// nothing: a page the program needs again is mapped back from the page
// cache at the cost of a minor fault. Release does that for the read-only
// mappings of the executable that hold no private (copy-on-write) page,
// and returns freed heap to the kernel; Keep does it whenever the process
// has grown well past its idle size.
package trim

import (
	"context"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// Stats is what a release did, in bytes of resident memory (VmRSS).
type Stats struct {
	Before, After int64
	// Mappings is how many mappings of the executable were dropped.
	Mappings int
}

// Release returns freed heap to the kernel and drops this process's
// mapping of the clean read-only pages of its executable. It is safe to
// call at any time from any goroutine; pages in use fault back in.
func Release() (Stats, error) {
	st := Stats{Before: resident()}
	debug.FreeOSMemory()
	n, err := dropProgramPages()
	st.Mappings = n
	st.After = resident()
	return st, err
}

// growth is how much the process must have grown past its idle size for
// Keep to release again. It is more than idle work maps back (a long poll
// returning or a gateway heartbeat maps back 2-3 MB of program pages once
// after a release) and less than a turn or a new MCP session: releasing
// for less would only have the same pages mapped back.
const growth = 4 << 20

// levelTrace is below debug: Keep's look at the resident size on every
// tick, for whoever must know that a tick passed without a release (its
// tests), and never shown at any level jarvisbot's configuration names.
const levelTrace = slog.LevelDebug - 4

// Keep releases at its first tick, when start-up is over, then whenever
// the process has grown by growth past its idle size, until ctx ends. The
// idle size starts at what a release leaves and follows smaller growth
// up: that is idle work's own pages, which it keeps. A busy service thus
// settles back soon after it goes quiet, and an idle one is left alone.
func Keep(ctx context.Context, every time.Duration, log *slog.Logger) {
	floor := int64(0) // the idle size; 0 until start-up is released
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			now := resident()
			switch {
			case now-floor >= growth:
				floor = release(log)
			case now > floor:
				floor = now
			}
			log.Log(ctx, levelTrace, "checked memory", "rss_kb", now>>10, "idle_kb", floor>>10)
		}
	}
}

// release releases and returns the resident size it left.
func release(log *slog.Logger) int64 {
	st, err := Release()
	if err != nil {
		log.Debug("releasing memory", "err", err)
	} else {
		log.Debug("released memory", "rss_before_kb", st.Before>>10, "rss_after_kb", st.After>>10, "program_mappings", st.Mappings)
	}
	return st.After
}

// resident is VmRSS in bytes, or 0 where /proc is not there.
func resident() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
