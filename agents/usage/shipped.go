package usage

// shipped are the list prices of the common models, in US dollars per
// million tokens, as their providers published them (late 2026). They are
// data, not logic: `prices:` in the config replaces or adds entries, and a
// model found in neither shows its tokens with "no price".
var shipped = []priced{
	// Anthropic: cache writes at 1.25× input (5-minute cache), reads at 0.1×.
	{"claude-opus-4-5", Price{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}},
	{"claude-opus-4-1", Price{Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75}},
	{"claude-opus-4", Price{Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75}},
	{"claude-sonnet-4-5", Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}},
	{"claude-sonnet-4", Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}},
	{"claude-3-7-sonnet", Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}},
	{"claude-haiku-4-5", Price{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25}},
	{"claude-3-5-haiku", Price{Input: 0.8, Output: 4, CacheRead: 0.08, CacheWrite: 1}},
	// OpenAI: cached input at its own price, no charge for writing it.
	{"gpt-5", Price{Input: 1.25, Output: 10, CacheRead: 0.125}},
	{"gpt-5-mini", Price{Input: 0.25, Output: 2, CacheRead: 0.025}},
	{"gpt-5-nano", Price{Input: 0.05, Output: 0.4, CacheRead: 0.005}},
	{"gpt-4.1", Price{Input: 2, Output: 8, CacheRead: 0.5}},
	{"gpt-4.1-mini", Price{Input: 0.4, Output: 1.6, CacheRead: 0.1}},
	{"gpt-4.1-nano", Price{Input: 0.1, Output: 0.4, CacheRead: 0.025}},
	{"gpt-4o", Price{Input: 2.5, Output: 10, CacheRead: 1.25}},
	{"gpt-4o-mini", Price{Input: 0.15, Output: 0.6, CacheRead: 0.075}},
	{"o3", Price{Input: 2, Output: 8, CacheRead: 0.5}},
	{"o4-mini", Price{Input: 1.1, Output: 4.4, CacheRead: 0.275}},
}
