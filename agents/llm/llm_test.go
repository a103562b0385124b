package llm

import (
	"testing"
)

// TestNewBuildsNoClientA3: choosing a provider costs next to nothing: a
// few small values (its address, headers and a retrying client over the
// shared transport), no connection and nothing per API (issue 14:
// start-up touches only what it uses).
func TestNewBuildsNoClientA3(t *testing.T) {
	for _, cfg := range []Config{
		{Provider: "anthropic", Model: "claude-test", APIKey: "key", BaseURL: "http://127.0.0.1:1"},
		{Provider: "openai", Model: "gpt-test", APIKey: "key", BaseURL: "http://127.0.0.1:1/v1"},
	} {
		t.Run(cfg.Provider, func(t *testing.T) {
			allocs := testing.AllocsPerRun(20, func() {
				if _, err := New(cfg); err != nil {
					t.Fatal(err)
				}
			})
			// The provider, its header map and its retrying client.
			if allocs > 8 {
				t.Errorf("New(%s) allocates %.0f objects: it builds its client before any call", cfg.Provider, allocs)
			}
		})
	}
}
