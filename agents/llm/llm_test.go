package llm

import (
	"testing"
)

// TestNewBuildsNoSDKClientA3: choosing a provider costs next to nothing;
// the SDK's client (its services, options, environment defaults) is built
// by the first call, so that a service that starts and is never asked
// anything never builds one (issue 14: start-up touches only what it uses).
func TestNewBuildsNoSDKClientA3(t *testing.T) {
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
			// A provider value and its once-built client holder; the SDK
			// clients allocate hundreds of objects.
			if allocs > 8 {
				t.Errorf("New(%s) allocates %.0f objects: it builds the SDK client before any call", cfg.Provider, allocs)
			}
		})
	}
}
