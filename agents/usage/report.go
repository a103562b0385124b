package usage

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
)

// Totals are the sums over a set of calls.
type Totals struct {
	Calls            int `json:"calls"`
	Errors           int `json:"errors"`
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
	// Cost is the sum over the calls whose model has a price; Unpriced
	// counts the others, whose tokens are in the sums all the same.
	Cost     float64 `json:"cost_usd"`
	Unpriced int     `json:"unpriced_calls"`
	// The tools: how many were sent, their schemas' estimated tokens, and
	// what sending every tool the agents could have would have cost.
	ToolsSent     int `json:"tools_sent"`
	ToolTokens    int `json:"tool_tokens"`
	CatalogTokens int `json:"catalog_tokens"`
}

// Add counts one call.
func (t *Totals) Add(c store.ModelCall, prices Prices) {
	t.Calls++
	if c.Outcome != "ok" {
		t.Errors++
	}
	t.InputTokens += c.InputTokens
	t.OutputTokens += c.OutputTokens
	t.CacheReadTokens += c.CacheReadTokens
	t.CacheWriteTokens += c.CacheWriteTokens
	t.ToolsSent += c.ToolsSent
	t.ToolTokens += c.ToolTokens
	t.CatalogTokens += c.CatalogTokens
	if c.InputTokens+c.OutputTokens+c.CacheReadTokens+c.CacheWriteTokens == 0 {
		return // nothing billed: a failed call, a price or not
	}
	if p, ok := prices.Lookup(c.Model); ok {
		t.Cost += p.Cost(c)
	} else {
		t.Unpriced++
	}
}

// Tokens is every token the provider counted.
func (t Totals) Tokens() int {
	return t.InputTokens + t.OutputTokens + t.CacheReadTokens + t.CacheWriteTokens
}

// Saved is the share of tool schema tokens the gate kept out of the calls,
// 0 to 1; 0 when nothing could have been sent.
func (t Totals) Saved() float64 {
	if t.CatalogTokens <= 0 || t.ToolTokens >= t.CatalogTokens {
		return 0
	}
	return 1 - float64(t.ToolTokens)/float64(t.CatalogTokens)
}

// Ways a report groups calls.
const (
	ByAgent  = "agent"
	ByModel  = "model"
	ByDay    = "day"
	BySource = "source"
)

// Groupings are the ways a report may group calls, for help and errors.
var Groupings = []string{ByAgent, ByModel, ByDay, BySource}

// Row is one group of a report.
type Row struct {
	Key string `json:"key"`
	Totals
}

// Report is the calls of a period grouped one way.
type Report struct {
	Since time.Time `json:"since"`
	By    string    `json:"by"`
	Rows  []Row     `json:"rows"`
	Total Totals    `json:"total"`
}

// Group sums calls by agent, model ("provider model"), day (in loc) or
// source. Days come in date order, the other groupings by cost, then
// tokens, highest first.
func Group(calls []store.ModelCall, by string, prices Prices, loc *time.Location) ([]Row, Totals, error) {
	key, err := keyOf(by, loc)
	if err != nil {
		return nil, Totals{}, err
	}
	idx := map[string]int{}
	var rows []Row
	var total Totals
	for _, c := range calls {
		k := key(c)
		i, ok := idx[k]
		if !ok {
			i = len(rows)
			idx[k] = i
			rows = append(rows, Row{Key: k})
		}
		rows[i].Add(c, prices)
		total.Add(c, prices)
	}
	if by == ByDay {
		slices.SortFunc(rows, func(a, b Row) int { return cmp.Compare(a.Key, b.Key) })
	} else {
		slices.SortFunc(rows, func(a, b Row) int {
			return cmp.Or(cmp.Compare(b.Cost, a.Cost), cmp.Compare(b.Tokens(), a.Tokens()), cmp.Compare(a.Key, b.Key))
		})
	}
	return rows, total, nil
}

// CheckGrouping says what is wrong with a way to group, before any call
// is read.
func CheckGrouping(by string) error {
	_, err := keyOf(by, nil)
	return err
}

func keyOf(by string, loc *time.Location) (func(store.ModelCall) string, error) {
	if loc == nil {
		loc = time.Local
	}
	switch by {
	case ByAgent:
		return func(c store.ModelCall) string { return c.Agent }, nil
	case ByModel:
		return func(c store.ModelCall) string { return strings.TrimSpace(c.Provider + " " + c.Model) }, nil
	case ByDay:
		return func(c store.ModelCall) string { return c.At.In(loc).Format(time.DateOnly) }, nil
	case BySource:
		return func(c store.ModelCall) string { return cmp.Or(c.Source, "chat") }, nil
	}
	return nil, fmt.Errorf("cannot group usage by %q: give one of %s", by, strings.Join(Groupings, ", "))
}

// DayStart and MonthStart are the beginnings of the owner's day and month
// around now, in loc: the periods /usage and budgets count.
func DayStart(now time.Time, loc *time.Location) time.Time {
	y, m, d := now.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

// MonthStart is the first day of now's month in loc, at midnight.
func MonthStart(now time.Time, loc *time.Location) time.Time {
	y, m, _ := now.In(loc).Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, loc)
}

// ParseSince reads how far back a report goes: a number of days ("7d"), a
// Go duration ("12h", "90m"), "today", "month", or a date ("2026-12-01",
// midnight in loc).
func ParseSince(s string, now time.Time, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	switch s {
	case "today":
		return DayStart(now, loc), nil
	case "month":
		return MonthStart(now, loc), nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		var days int
		if _, err := fmt.Sscanf(n, "%d", &days); err == nil && days > 0 && fmt.Sprint(days) == n {
			return now.AddDate(0, 0, -days), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, loc); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("cannot read %q as a time to report from: give days (7d), hours (24h), today, month, or a date (2026-12-01)", s)
}
