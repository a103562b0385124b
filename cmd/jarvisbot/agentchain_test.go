package main

import (
	"strings"
	"testing"
)

// TestAgentsShowNamesTheFallbacksA5: `agents show` says the model an agent
// runs on and, for a chain, the fallbacks in the order they take over.
func TestAgentsShowNamesTheFallbacksA5(t *testing.T) {
	e := newTestEnv(t)
	e.vars["ANTHROPIC_API_KEY"], e.vars["OPENAI_API_KEY"] = "k1", "k2"
	e.writeConfig(t, `provider:
  - {name: anthropic, model: claude-sonnet-4-5}
  - {name: openai, model: gpt-4.1}
  - {name: openai, base_url: "http://localhost:11434/v1", model: llama3.1}
`)
	out := e.mustJarvis(t, "", "agents", "show", "default")
	if !strings.Contains(out, "model: anthropic claude-sonnet-4-5, then openai gpt-4.1, then openai llama3.1 if it fails") {
		t.Errorf("agents show:\n%s", out)
	}
	e.writeConfig(t, "provider: {name: openai, model: gpt-4.1}\n")
	if out := e.mustJarvis(t, "", "agents", "show", "default"); !strings.Contains(out, "model: openai gpt-4.1\n") {
		t.Errorf("agents show, one provider:\n%s", out)
	}
}
