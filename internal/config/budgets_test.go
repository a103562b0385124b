package config

import (
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot"
)

// TestParseLimitA5: money and tokens as the owner writes them; a bare
// number, a negative, a zero and nonsense are refused saying what to write.
func TestParseLimitA5(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Limit
		err  string
	}{
		{in: "", want: Limit{}},
		{in: "none", want: Limit{}},
		{in: "$5", want: Limit{USD: 5}},
		{in: " $2.50 ", want: Limit{USD: 2.5}},
		{in: "10 USD", want: Limit{USD: 10}},
		{in: "3 dollars", want: Limit{USD: 3}},
		{in: "200000 tokens", want: Limit{Tokens: 200000}},
		{in: "2,000,000 tokens", want: Limit{Tokens: 2000000}},
		{in: "2M tokens", want: Limit{Tokens: 2000000}},
		{in: "1.5m tokens", want: Limit{Tokens: 1500000}},
		{in: "500k tokens", want: Limit{Tokens: 500000}},
		{in: "5", err: `say the unit: "$5" for US dollars`},
		{in: "$-1", err: "is negative"},
		{in: "-3 tokens", err: "is negative"},
		{in: "$0", err: "would stop every turn"},
		{in: "lots tokens", err: "is not a number"},
		{in: "$NaN", err: "is not a number"},
		{in: "1e30 tokens", err: "more tokens than can be counted"},
	} {
		got, err := ParseLimit(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseLimit(%q) = %+v, %v; want an error saying %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseLimit(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

// TestBudgetsConfigA5: budgets: parses for the installation and per
// agent; a bad limit or agent name is refused with its line and key; an
// unknown key under budgets is named with the known ones.
func TestBudgetsConfigA5(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		err        []string
		check      func(t *testing.T, c Config)
	}{
		{name: "installation and agents", yaml: "budgets:\n  daily: $5\n  monthly: 20M tokens\n  agents:\n    research: {daily: 500k tokens, monthly: $20}\n",
			check: func(t *testing.T, c Config) {
				if c.Budgets.Daily != "$5" || c.Budgets.Monthly != "20M tokens" || c.Budgets.Agents["research"].Monthly != "$20" {
					t.Errorf("budgets %+v", c.Budgets)
				}
			}},
		{name: "an agent not made yet is fine", yaml: "budgets:\n  agents:\n    later: {daily: $1}\n"},
		{name: "bare number", yaml: "budgets:\n  daily: 5\n", err: []string{"b.yaml:2", "budgets.daily", `say the unit`}},
		{name: "negative agent limit", yaml: "budgets:\n  agents:\n    research:\n      monthly: $-2\n", err: []string{"b.yaml:4", "budgets.agents.research.monthly", "is negative"}},
		{name: "bad agent name", yaml: "budgets:\n  agents:\n    \"no way\": {daily: $1}\n", err: []string{"b.yaml:3", "budgets.agents"}},
		{name: "unknown key", yaml: "budgets:\n  weekly: $5\n", err: []string{"b.yaml:2", `unknown key "weekly"`, "daily", "monthly", "agents"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parse("b.yaml", []byte(tc.yaml))
			if len(tc.err) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if tc.check != nil {
					tc.check(t, c)
				}
				return
			}
			if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
				t.Fatalf("error %v, want EINVALID", err)
			}
			for _, w := range tc.err {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
