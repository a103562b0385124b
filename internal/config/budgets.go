package config

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/names"
)

// Budgets bound what model calls spend (A5): a daily and a monthly limit
// for the whole installation and for each agent by name. A limit is US
// dollars ("$5", "2.50 USD"), priced by the price table, or tokens
// ("200000 tokens", "2M tokens"); "" or "none" is no limit. An agent
// named here need not exist yet: its limit applies once it does. Limits
// the owner sets on the dashboard win over these.
type Budgets struct {
	Daily   string            `yaml:"daily"`
	Monthly string            `yaml:"monthly"`
	Agents  map[string]Budget `yaml:"agents"`
}

// Budget is one agent's daily and monthly limit.
type Budget struct {
	Daily   string `yaml:"daily"`
	Monthly string `yaml:"monthly"`
}

// Limit is a parsed budget limit: US dollars or tokens; zero is none.
type Limit struct {
	USD    float64
	Tokens int64
}

// ParseLimit reads a limit as the config and the dashboard take it:
// "$5", "5 USD", "5 dollars" for money; "200000 tokens", "500k tokens",
// "2M tokens" for tokens; "" or "none" for no limit. A bare number is
// refused: it could be either.
func ParseLimit(s string) (Limit, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" || t == "none" {
		return Limit{}, nil
	}
	money := false
	switch {
	case strings.HasPrefix(t, "$"):
		t, money = strings.TrimSpace(t[1:]), true
	case strings.HasSuffix(t, "$"):
		t, money = strings.TrimSpace(t[:len(t)-1]), true
	default:
		for _, unit := range []string{"usd", "dollars", "dollar"} {
			if rest, ok := strings.CutSuffix(t, unit); ok {
				t, money = strings.TrimSpace(rest), true
				break
			}
		}
	}
	tokens := false
	if !money {
		for _, unit := range []string{"tokens", "token"} {
			if rest, ok := strings.CutSuffix(t, unit); ok {
				t, tokens = strings.TrimSpace(rest), true
				break
			}
		}
	}
	if !money && !tokens {
		return Limit{}, fmt.Errorf("%q: say the unit: \"$5\" for US dollars or \"200000 tokens\" (\"2M tokens\"); \"none\" for no limit", s)
	}
	mult := 1.0
	if tokens {
		switch {
		case strings.HasSuffix(t, "k"):
			t, mult = t[:len(t)-1], 1e3
		case strings.HasSuffix(t, "m"):
			t, mult = t[:len(t)-1], 1e6
		}
	}
	t = strings.NewReplacer(",", "", "_", "").Replace(strings.TrimSpace(t))
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Limit{}, fmt.Errorf("%q: %q is not a number", s, t)
	}
	v *= mult
	switch {
	case v < 0:
		return Limit{}, fmt.Errorf("%q is negative: a limit is what may be spent", s)
	case v == 0:
		return Limit{}, fmt.Errorf("%q would stop every turn: leave the key out, or write none, for no limit", s)
	case tokens && v > math.MaxInt64/2:
		return Limit{}, fmt.Errorf("%q is more tokens than can be counted: write none for no limit", s)
	case money:
		return Limit{USD: v}, nil
	}
	return Limit{Tokens: int64(math.Ceil(v))}, nil
}

// check validates every limit and agent name, saying where.
func (b Budgets) check(at func(keys ...string) string) error {
	for _, l := range []struct{ key, v string }{{"daily", b.Daily}, {"monthly", b.Monthly}} {
		if _, err := ParseLimit(l.v); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: budgets.%s: %w", at("budgets", l.key), l.key, err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(b.Agents)) {
		if err := names.ValidAgent(name); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: budgets.agents: %w", at("budgets", "agents", name), err)
		}
		a := b.Agents[name]
		for _, l := range []struct{ key, v string }{{"daily", a.Daily}, {"monthly", a.Monthly}} {
			if _, err := ParseLimit(l.v); err != nil {
				return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: budgets.agents.%s.%s: %w", at("budgets", "agents", name, l.key), name, l.key, err)
			}
		}
	}
	return nil
}
