package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/jarvisbot/jarvisbot/agents/llm"
	usagereport "github.com/jarvisbot/jarvisbot/agents/usage"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
)

// TestUsageRecordsWhatEachProviderReportedA5: each model call of a turn is
// recorded with the tokens its wire format reported (Anthropic's cache
// reads and writes beside the input, OpenAI's cached tokens inside its
// prompt tokens), priced from the table (the owner's entry over the
// shipped one), with the tools sent against what the agent could have been
// sent; `usage` reports them by model, and in JSON.
func TestUsageRecordsWhatEachProviderReportedA5(t *testing.T) {
	for _, tc := range []struct {
		provider, model            string
		in, out, cacheRead, cacheW int // the recorded sums
		price                      usagereport.Price
	}{
		// Two calls: 100+200 input, 10+20 output, 1000+2000 read, 50+0 written.
		{"anthropic", "claude-sonnet-4-5", 300, 30, 3000, 50, usagereport.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}},
		// OpenAI: prompt_tokens include the cached ones (the scripted model
		// counts the cache creation in them too); nothing is written.
		{"openai", "my-local-model", 3350, 30, 3000, 0, usagereport.Price{Input: 1, Output: 2, CacheRead: 0.5}},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			e := newTestEnv(t)
			f := withModel(t, e)
			e.vars["JARVIS_PROVIDER"], e.vars["JARVIS_MODEL"] = tc.provider, tc.model
			if tc.provider == "anthropic" {
				e.vars["ANTHROPIC_API_KEY"], e.vars["ANTHROPIC_BASE_URL"] = "test-key", f.AnthropicURL()
			} else {
				e.vars["OPENAI_API_KEY"], e.vars["OPENAI_BASE_URL"] = "test-key", f.OpenAIURL()
				e.writeConfig(t, "prices:\n  my-local-model: {input: 1, output: 2, cache_read: 0.5}\nbudgets:\n  monthly: $50\n")
			}
			if code, out, _ := e.jarvis(t, "", "usage"); code != 0 || !strings.Contains(out, "No model calls since") {
				t.Fatalf("usage before any call: exit %d: %s", code, out)
			}
			f.Push(
				fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: llm.WireName("builtin:wiki"), Input: `{"op":"list"}`}},
					Usage: fakellm.Usage{InputTokens: 100, OutputTokens: 10, CacheReadTokens: 1000, CacheCreationTokens: 50}},
				fakellm.Step{Text: "Your wiki is empty.", Usage: fakellm.Usage{InputTokens: 200, OutputTokens: 20, CacheReadTokens: 2000}},
			)
			e.mustJarvis(t, "", "chat", "-m", "what is in my wiki notes?")

			var rep usagereport.Report
			out := e.mustJarvis(t, "", "usage", "--by", "model", "--json")
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("usage --json: %v\n%s", err, out)
			}
			tot := rep.Total
			if tot.Calls != 2 || tot.Errors != 0 || tot.InputTokens != tc.in || tot.OutputTokens != tc.out || tot.CacheReadTokens != tc.cacheRead || tot.CacheWriteTokens != tc.cacheW {
				t.Errorf("recorded %+v, want 2 calls with input %d, output %d, cache read %d, cache write %d", tot, tc.in, tc.out, tc.cacheRead, tc.cacheW)
			}
			want := float64(tc.in)*tc.price.Input + float64(tc.out)*tc.price.Output + float64(tc.cacheRead)*tc.price.CacheRead + float64(tc.cacheW)*tc.price.CacheWrite
			if tc.provider == "openai" {
				want -= float64(tc.cacheRead) * tc.price.Input // cached tokens are billed at their own price only
			}
			if want /= 1e6; math.Abs(tot.Cost-want) > 1e-12 || tot.Unpriced != 0 {
				t.Errorf("cost %v (%d unpriced), want %v", tot.Cost, tot.Unpriced, want)
			}
			if len(rep.Rows) != 1 || rep.Rows[0].Key != tc.provider+" "+tc.model {
				t.Errorf("rows by model: %+v", rep.Rows)
			}
			if tot.ToolsSent == 0 || tot.ToolTokens == 0 || tot.CatalogTokens < tot.ToolTokens {
				t.Errorf("tool figures: %d sent, %d tokens, %d without the gate", tot.ToolsSent, tot.ToolTokens, tot.CatalogTokens)
			}
			text := e.mustJarvis(t, "", "usage", "--since", "today")
			if !strings.Contains(text, "total") || !strings.Contains(text, "default") || !strings.Contains(text, usagereport.Dollars(want)) {
				t.Errorf("usage:\n%s", text)
			}
			_, chat, _ := e.jarvis(t, "", "chat", "-m", "/usage")
			if !strings.Contains(chat, "Today: 2 model calls, ") || !strings.Contains(chat, "Agents this month: default ") {
				t.Errorf("/usage in chat:\n%s", chat)
			}
			// A budget that is set is said with what its period spent.
			if hasBudget := strings.Contains(chat, "Budgets: monthly for the whole installation "+usagereport.Dollars(want)+" of $50.00."); hasBudget != (tc.provider == "openai") {
				t.Errorf("/usage with budgets: %v in\n%s", hasBudget, chat)
			}
			if code, _, errOut := e.jarvis(t, "", "usage", "--by", "colour"); code != 2 || !strings.Contains(errOut, "agent, model, day, source") {
				t.Errorf("usage --by colour: exit %d, %s", code, errOut)
			}
			if code, _, errOut := e.jarvis(t, "", "usage", "--since", "yesterday"); code != 2 || !strings.Contains(errOut, "7d") {
				t.Errorf("usage --since yesterday: exit %d, %s", code, errOut)
			}
		})
	}
}
