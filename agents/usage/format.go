package usage

import (
	"fmt"
	"strconv"
)

// Tokens writes a token count short: 950, 12.3k, 1.25M.
func Tokens(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n)
	case n < 1_000_000:
		return trim(fmt.Sprintf("%.1f", float64(n)/1e3)) + "k"
	default:
		return trim(fmt.Sprintf("%.2f", float64(n)/1e6)) + "M"
	}
}

// trim drops a decimal part of zeros: "12.0" → "12", "1.50" → "1.5".
func trim(s string) string {
	for len(s) > 0 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}

// Dollars writes an amount in US dollars with the precision it needs:
// cents from a cent up, four places below.
func Dollars(v float64) string {
	if v >= 0.01 || v == 0 {
		return fmt.Sprintf("$%.2f", v)
	}
	return fmt.Sprintf("$%.4f", v)
}

// CostText is what a set of calls cost, honest about the calls whose model
// has no price: "$1.23", "$1.23 + 4 calls with no price", "no price".
func (t Totals) CostText() string {
	switch {
	case t.Unpriced == 0:
		return Dollars(t.Cost)
	case t.Cost == 0:
		return "no price"
	case t.Unpriced == 1:
		return Dollars(t.Cost) + " + 1 call with no price"
	}
	return fmt.Sprintf("%s + %d calls with no price", Dollars(t.Cost), t.Unpriced)
}

// SavedText says what the gate kept out of the calls: "92% of 1.2M schema
// tokens", or "" when nothing could have been sent.
func (t Totals) SavedText() string {
	if t.CatalogTokens <= 0 {
		return ""
	}
	return fmt.Sprintf("%.0f%% of %s schema tokens", 100*t.Saved(), Tokens(t.CatalogTokens))
}
