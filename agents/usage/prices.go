// Package usage turns the record of model calls into what the owner reads
// (A5): tokens and cost by agent, model, day or source, what the gate saved,
// and the figures budgets are checked against. Prices come from a table:
// shipped defaults for the common models, the owner's `prices:` over them.
package usage

import (
	"cmp"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot/store"
)

// Price is what a model costs in US dollars per million tokens.
type Price struct {
	Input      float64 `yaml:"input" json:"input"`
	Output     float64 `yaml:"output" json:"output"`
	CacheRead  float64 `yaml:"cache_read" json:"cache_read"`
	CacheWrite float64 `yaml:"cache_write" json:"cache_write"`
}

// Cost is what one call cost at p. OpenAI's APIs (and Codex, which speaks
// one) count cached tokens inside the input and bill them at the cache
// price, so they are taken out of the input first; Anthropic (and Claude
// Code) report them apart from it. For a coding CLI on a subscription the
// cost is what the same tokens would cost through the API.
func (p Price) Cost(c store.ModelCall) float64 {
	in := c.InputTokens
	if c.Provider == "openai" || c.Provider == "codex" {
		in = max(0, in-c.CacheReadTokens)
	}
	return (float64(in)*p.Input + float64(c.OutputTokens)*p.Output +
		float64(c.CacheReadTokens)*p.CacheRead + float64(c.CacheWriteTokens)*p.CacheWrite) / 1e6
}

// Prices is a price table by model name.
type Prices struct {
	entries []priced // sorted by model
}

type priced struct {
	model string
	price Price
}

// NewPrices returns the shipped table with the owner's entries over it:
// an entry replaces the shipped one of the same model, or adds one.
func NewPrices(owner map[string]Price) Prices {
	byModel := map[string]Price{}
	for _, d := range shipped {
		byModel[d.model] = d.price
	}
	for m, p := range owner {
		byModel[strings.ToLower(strings.TrimSpace(m))] = p
	}
	var p Prices
	for m, pr := range byModel {
		p.entries = append(p.entries, priced{m, pr})
	}
	slices.SortFunc(p.entries, func(a, b priced) int { return cmp.Compare(a.model, b.model) })
	return p
}

// Lookup finds a model's price: its own entry, else the longest entry the
// name begins with followed by "-", ":" or "@" (a dated or tagged name such
// as gpt-4.1-2025-04-14 is priced as gpt-4.1). A provider's prefix
// ("openai/gpt-4.1", as OpenRouter names models) is tried without it too.
func (p Prices) Lookup(model string) (Price, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if m == "" {
		return Price{}, false
	}
	if pr, ok := p.longest(m); ok {
		return pr, true
	}
	if _, rest, ok := strings.Cut(m, "/"); ok {
		return p.longest(rest)
	}
	return Price{}, false
}

func (p Prices) longest(m string) (Price, bool) {
	best, found := -1, false
	var out Price
	for _, e := range p.entries {
		if !strings.HasPrefix(m, e.model) || len(e.model) <= best {
			continue
		}
		if len(m) > len(e.model) && !strings.ContainsRune("-:@", rune(m[len(e.model)])) {
			continue
		}
		best, out, found = len(e.model), e.price, true
	}
	return out, found
}

// Models lists the table's models with their prices, by name.
func (p Prices) Models() []string {
	out := make([]string, len(p.entries))
	for i, e := range p.entries {
		out[i] = e.model
	}
	return out
}
