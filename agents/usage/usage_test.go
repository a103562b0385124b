package usage

import (
	"math"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/store"
)

func TestPricesLookup(t *testing.T) {
	p := NewPrices(map[string]Price{"llama3.1": {Input: 0.1, Output: 0.2}, "GPT-4.1": {Input: 9, Output: 9}})
	tests := []struct {
		model string
		want  float64 // input price; -1 = no price
	}{
		{"claude-sonnet-4-5", 3},
		{"claude-sonnet-4-5-20250929", 3},
		{"claude-haiku-4-5@20251001", 1},
		{"gpt-4.1", 9}, // the owner's entry wins, whatever its case
		{"gpt-4.1-2025-04-14", 9},
		{"gpt-4.1-mini", 0.4}, // its own entry, not gpt-4.1's
		{"gpt-4.1-mini-2025-04-14", 0.4},
		{"openai/gpt-4o-mini", 0.15}, // OpenRouter's naming
		{"llama3.1", 0.1},
		{"llama3.1:8b", 0.1},
		{"gpt-4.10", -1}, // not a dated gpt-4.1
		{"mistral-large", -1},
		{"", -1},
	}
	for _, tt := range tests {
		got, ok := p.Lookup(tt.model)
		if !ok && tt.want != -1 || ok && got.Input != tt.want {
			t.Errorf("Lookup(%q) = %+v, %v; want input %v", tt.model, got, ok, tt.want)
		}
	}
}

func TestCostCountsCachedTokensOnce(t *testing.T) {
	p := Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	anthropic := store.ModelCall{Provider: "anthropic", InputTokens: 1000, OutputTokens: 100, CacheReadTokens: 10000, CacheWriteTokens: 2000}
	// Anthropic reports cached tokens beside the input.
	if got, want := p.Cost(anthropic), (1000*3+100*15+10000*0.3+2000*3.75)/1e6; math.Abs(got-want) > 1e-12 {
		t.Errorf("anthropic cost %v, want %v", got, want)
	}
	// OpenAI's prompt tokens include the cached ones.
	openai := store.ModelCall{Provider: "openai", InputTokens: 11000, OutputTokens: 100, CacheReadTokens: 10000}
	if got, want := p.Cost(openai), (1000*3+100*15+10000*0.3)/1e6; math.Abs(got-want) > 1e-12 {
		t.Errorf("openai cost %v, want %v", got, want)
	}
}

func TestGroup(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	t0 := time.Date(2026, 12, 4, 22, 30, 0, 0, time.UTC) // 23:30 in Berlin: still the 4th
	calls := []store.ModelCall{
		{At: t0, Agent: "default", Source: "chat", Provider: "anthropic", Model: "claude-sonnet-4-5", InputTokens: 1_000_000, Outcome: "ok", ToolTokens: 100, CatalogTokens: 1000},
		{At: t0.Add(time.Hour), Agent: "inbox", Source: "schedule:brief", Provider: "openai", Model: "gpt-4.1", InputTokens: 1_000_000, Outcome: "ok", ToolTokens: 200, CatalogTokens: 1000},
		{At: t0.Add(2 * time.Hour), Agent: "inbox", Source: "schedule:brief", Provider: "openai", Model: "local-model", OutputTokens: 10, Outcome: "ok"},
		{At: t0.Add(3 * time.Hour), Agent: "default", Source: "", Provider: "openai", Model: "gpt-4.1", Outcome: "error: overloaded"},
	}
	prices := NewPrices(nil)
	rows, total, err := Group(calls, ByAgent, prices, berlin)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Key != "default" || rows[0].Cost != 3 || rows[1].Key != "inbox" || rows[1].Cost != 2 || rows[1].Unpriced != 1 {
		t.Errorf("by agent: %+v", rows)
	}
	if total.Calls != 4 || total.Errors != 1 || total.Cost != 5 || total.Unpriced != 1 || total.Tokens() != 2_000_010 {
		t.Errorf("total: %+v", total)
	}
	if got := total.Saved(); math.Abs(got-0.85) > 1e-9 {
		t.Errorf("saved %v, want 0.85 (300 of 2000 tokens sent)", got)
	}
	days, _, _ := Group(calls, ByDay, prices, berlin)
	if len(days) != 2 || days[0].Key != "2026-12-04" || days[0].Calls != 1 || days[1].Key != "2026-12-05" || days[1].Calls != 3 {
		t.Errorf("by day in Berlin: %+v", days)
	}
	sources, _, _ := Group(calls, BySource, prices, berlin)
	if len(sources) != 2 || sources[0].Key != "chat" || sources[0].Calls != 2 || sources[1].Key != "schedule:brief" {
		t.Errorf("by source: %+v", sources)
	}
	models, _, _ := Group(calls, ByModel, prices, berlin)
	if len(models) != 3 || models[0].Key != "anthropic claude-sonnet-4-5" || models[1].Key != "openai gpt-4.1" || models[1].Calls != 2 {
		t.Errorf("by model: %+v", models)
	}
	if _, _, err := Group(calls, "colour", prices, berlin); err == nil {
		t.Error("grouping by colour: no error")
	}
}

func TestPeriods(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	now := time.Date(2026, 12, 31, 23, 30, 0, 0, time.UTC) // Jan 1st 00:30 in Berlin
	if got := DayStart(now, berlin); !got.Equal(time.Date(2027, 1, 1, 0, 0, 0, 0, berlin)) {
		t.Errorf("DayStart = %v", got)
	}
	if got := MonthStart(now, berlin); !got.Equal(time.Date(2027, 1, 1, 0, 0, 0, 0, berlin)) {
		t.Errorf("MonthStart = %v", got)
	}
}

func TestFormats(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{Tokens(0), "0"}, {Tokens(950), "950"}, {Tokens(1000), "1k"}, {Tokens(12345), "12.3k"}, {Tokens(1_250_000), "1.25M"}, {Tokens(3_000_000), "3M"},
		{Dollars(0), "$0.00"}, {Dollars(0.001234), "$0.0012"}, {Dollars(0.5), "$0.50"}, {Dollars(12.345), "$12.35"},
		{Totals{Cost: 1.5}.CostText(), "$1.50"},
		{Totals{Cost: 1.5, Unpriced: 1}.CostText(), "$1.50 + 1 call with no price"},
		{Totals{Cost: 1.5, Unpriced: 4}.CostText(), "$1.50 + 4 calls with no price"},
		{Totals{Unpriced: 2}.CostText(), "no price"},
		{Totals{ToolTokens: 100, CatalogTokens: 1000}.SavedText(), "90% of 1k schema tokens"},
		{Totals{}.SavedText(), ""},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestParseSince(t *testing.T) {
	loc := time.FixedZone("CET", 3600)
	now := time.Date(2026, 12, 5, 10, 0, 0, 0, loc)
	for _, tt := range []struct {
		in   string
		want time.Time
	}{
		{"7d", now.AddDate(0, 0, -7)},
		{"24h", now.Add(-24 * time.Hour)},
		{"90m", now.Add(-90 * time.Minute)},
		{"today", time.Date(2026, 12, 5, 0, 0, 0, 0, loc)},
		{"Month", time.Date(2026, 12, 1, 0, 0, 0, 0, loc)},
		{"2026-11-20", time.Date(2026, 11, 20, 0, 0, 0, 0, loc)},
	} {
		got, err := ParseSince(tt.in, now, loc)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "0d", "-3d", "7 days", "d", "yesterday", "-1h"} {
		if _, err := ParseSince(bad, now, loc); err == nil {
			t.Errorf("ParseSince(%q): no error", bad)
		}
	}
}

func TestCheckGrouping(t *testing.T) {
	for _, by := range Groupings {
		if err := CheckGrouping(by); err != nil {
			t.Errorf("CheckGrouping(%q) = %v", by, err)
		}
	}
	if err := CheckGrouping("colour"); err == nil {
		t.Error("CheckGrouping(colour): no error")
	}
}
