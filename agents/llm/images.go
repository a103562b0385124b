package llm

import "strings"

// SeesImages is whether a model takes images when the owner set nothing
// (provider.images): Anthropic's Claude models and OpenAI's GPT-4o, GPT-4.1,
// GPT-5 and o-series models do. An unknown model on an OpenAI-compatible
// endpoint (Ollama, vLLM) is taken not to: a text-only model answers an
// image with a refused request, which the owner would read as a failure
// rather than as a setting to change.
func SeesImages(provider, model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:] // OpenRouter names "openai/gpt-4o"
	}
	switch provider {
	case "anthropic":
		return strings.HasPrefix(m, "claude")
	case "openai":
		for _, p := range []string{"gpt-4o", "gpt-4.1", "gpt-4-turbo", "gpt-5", "o1", "o3", "o4", "chatgpt-4o", "claude"} {
			if strings.HasPrefix(m, p) {
				return true
			}
		}
	}
	return false
}
