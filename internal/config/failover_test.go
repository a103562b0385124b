package config

import (
	"reflect"
	"testing"
	"time"
)

// TestProviderListA3: provider: may be a list, primary first, each entry
// a whole provider of its own; a single mapping reads as it always did;
// an agent's entry may be a list too. What cannot chain (a coding CLI, a
// fallback without a name, an empty list) is refused at its line.
func TestProviderListA3(t *testing.T) {
	dir := t.TempDir()
	ok := []struct {
		name    string
		content string
		want    Provider
		agent   Provider // agents.a.provider, when the case has one
	}{
		{"single mapping", "provider:\n  name: anthropic\n  model: claude-x\n",
			Provider{Name: "anthropic", Model: "claude-x"}, Provider{}},
		{"a chain", `provider:
  - name: Anthropic
    model: claude-x
    timeout: 30s
  - name: openai
    model: gpt-x
    api_key_secret: OPENAI_KEY
  - {name: openai, base_url: "http://localhost:11434/v1", model: llama3.1, max_tokens: 1024}
`, Provider{Name: "anthropic", Model: "claude-x", Timeout: 30 * time.Second, Fallbacks: []Provider{
			{Name: "openai", Model: "gpt-x", APIKeySecret: "OPENAI_KEY"},
			{Name: "openai", BaseURL: "http://localhost:11434/v1", Model: "llama3.1", MaxTokens: 1024}}}, Provider{}},
		{"a list of one", "provider:\n  - {name: openai, model: gpt-x}\n", Provider{Name: "openai", Model: "gpt-x", Fallbacks: []Provider{}}, Provider{}},
		{"an agent's own chain", "agents:\n  a:\n    provider:\n      - {model: claude-y}\n      - {name: openai, model: gpt-y}\n",
			Provider{}, Provider{Model: "claude-y", Fallbacks: []Provider{{Name: "openai", Model: "gpt-y"}}}},
	}
	for _, tt := range ok {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _, err := loadIn(t, dir, tt.name, tt.content, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.Provider, tt.want) {
				t.Errorf("provider %+v, want %+v", cfg.Provider, tt.want)
			}
			if got := cfg.Agents["a"].Provider; !reflect.DeepEqual(got, tt.agent) {
				t.Errorf("agent's provider %+v, want %+v", got, tt.agent)
			}
		})
	}
	bad := []struct {
		name, content string
		want          []string
	}{
		{"CLI as a fallback", "provider:\n  - {name: anthropic, model: m}\n  - {name: claude-code}\n",
			[]string{":3:", "provider[1]", "claude-code", "coding CLI", "cannot be a fallback"}},
		{"CLI leading a chain", "provider:\n  - {name: codex}\n  - {name: openai, model: m}\n",
			[]string{":1:", "codex", "coding CLI", "single provider"}},
		{"CLI in an agent's chain", "agents:\n  a:\n    provider:\n      - {name: anthropic, model: m}\n      - {name: codex}\n",
			[]string{":5:", "agents.a.provider[1]", "codex"}},
		{"fallback without a name", "provider:\n  - {name: anthropic, model: m}\n  - {model: gpt-x}\n",
			[]string{":3:", "provider[1]", "names its provider"}},
		{"unknown fallback name", "provider:\n  - {name: anthropic, model: m}\n  - {name: gemini, model: g}\n",
			[]string{":3:", "provider[1]", "gemini"}},
		{"turn limits on a fallback", "provider:\n  - {name: anthropic, model: m}\n  - {name: openai, model: g, max_steps: 3}\n",
			[]string{":3:", "max_steps", "first entry"}},
		{"unknown key in an entry", "provider:\n  - name: anthropic\n    modle: m\n",
			[]string{":3:", `unknown key "modle"`, "provider entry", "model"}},
		{"unknown key in a single mapping", "provider:\n  name: anthropic\n  key: sk-123\n",
			[]string{":3:", `unknown key "key"`, "api_key_secret"}},
		{"empty list", "provider: []\n", []string{":1:", "empty list"}},
		{"an entry that is not a mapping", "provider:\n  - anthropic\n", []string{":2:", "one provider"}},
		{"a scalar", "provider: anthropic\n", []string{":1:", "a list of them"}},
		{"wrong type inside an entry", "provider:\n  - {name: openai, max_tokens: many}\n", []string{":2:", "cannot unmarshal"}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := loadIn(t, dir, tt.name, tt.content, nil)
			if err == nil {
				t.Fatal("Load succeeded")
			}
			mentions(t, err, tt.want...)
		})
	}
}

// TestChainSecretsX3: the keys the fallbacks name are the config's too.
func TestChainSecretsX3(t *testing.T) {
	cfg := Config{Provider: Provider{APIKeySecret: "A", Fallbacks: []Provider{{Name: "openai", APIKeySecret: "B"}}},
		Agents: map[string]Agent{"r": {Provider: Provider{Fallbacks: []Provider{{Name: "openai", APIKeySecret: "C"}}}}}}
	want := map[string]string{"A": "the config (provider.api_key_secret)", "B": "the config (provider[1].api_key_secret)",
		"C": "the config (agents.r.provider[1].api_key_secret)"}
	if got := cfg.Secrets(); !reflect.DeepEqual(got, want) {
		t.Errorf("Secrets() = %v, want %v", got, want)
	}
}
