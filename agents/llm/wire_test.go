package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
)

// wireProvider is a provider of kind p on fake, as the service builds it.
func wireProvider(t *testing.T, p string, fake *fakellm.Server) Provider {
	t.Helper()
	cfg := Config{Provider: p, Model: "model-x", APIKey: "key-x", BaseURL: fake.AnthropicURL()}
	if p == "openai" {
		cfg.BaseURL = fake.OpenAIURL()
	}
	prov, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return prov
}

// wireRequest is a turn's second step: a system prompt in two parts,
// three tools of which two are the cached prefix, and a tool call answered
// once with a result and once with an error.
func wireRequest() Request {
	return Request{
		System:      "stable instructions",
		SystemExtra: "this turn's skill",
		Tools: []Tool{
			{Name: "wiki", Description: "notes", Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","maxLength":64}},"required":["name",7],"additionalProperties":false}`)},
			{Name: "clock", Description: "the time"},
			{Name: "mail", Schema: json.RawMessage(`{"properties":{}}`)},
		},
		CachedTools: 2,
		MaxTokens:   512,
		Messages: []Message{
			{Role: RoleUser, Text: "what is in my notes?"},
			{Role: RoleAssistant, Text: "looking", ToolCalls: []ToolCall{
				{ID: "call_1", Name: "wiki", Input: json.RawMessage(`{"name":"garden"}`)},
				{ID: "call_2", Name: "clock", Input: json.RawMessage(`{"broken":`)},
			}},
			{Role: RoleUser, ToolResults: []ToolResult{
				{CallID: "call_1", Content: "tomatoes"},
				{CallID: "call_2", Content: "arguments are not JSON", IsError: true},
			}},
		},
	}
}

// TestWireTranslationA3: both adapters send the request in their API's
// shape (headers, system, tools with their schemas, calls and results,
// the cache marks on Anthropic's stable prefix) and read tool calls, stop
// reason and usage back.
func TestWireTranslationA3(t *testing.T) {
	for _, tc := range []struct {
		provider string
		header   map[string]string
		body     string // the request as the API gets it, re-encoded
		stop     string
		usage    Usage
	}{
		{"anthropic", map[string]string{"X-Api-Key": "key-x", "Anthropic-Version": "2023-06-01", "Content-Type": "application/json"},
			`{"max_tokens":512,"messages":[` +
				`{"content":[{"text":"what is in my notes?","type":"text"}],"role":"user"},` +
				`{"content":[{"text":"looking","type":"text"},{"id":"call_1","input":{"name":"garden"},"name":"wiki","type":"tool_use"},{"id":"call_2","input":{},"name":"clock","type":"tool_use"}],"role":"assistant"},` +
				`{"content":[{"content":"tomatoes","tool_use_id":"call_1","type":"tool_result"},{"content":"arguments are not JSON","is_error":true,"tool_use_id":"call_2","type":"tool_result"}],"role":"user"}],` +
				`"model":"model-x",` +
				`"system":[{"cache_control":{"type":"ephemeral"},"text":"stable instructions","type":"text"},{"text":"this turn's skill","type":"text"}],` +
				`"tools":[{"description":"notes","input_schema":{"additionalProperties":false,"properties":{"name":{"maxLength":64,"type":"string"}},"required":["name"],"type":"object"},"name":"wiki"},` +
				`{"cache_control":{"type":"ephemeral"},"description":"the time","input_schema":{"type":"object"},"name":"clock"},` +
				`{"input_schema":{"properties":{},"type":"object"},"name":"mail"}]}`,
			"tool_use", Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 900, CacheWriteTokens: 50}},
		{"openai", map[string]string{"Authorization": "Bearer key-x", "Content-Type": "application/json"},
			`{"max_completion_tokens":512,"messages":[` +
				`{"content":"stable instructions","role":"system"},{"content":"this turn's skill","role":"system"},` +
				`{"content":"what is in my notes?","role":"user"},` +
				`{"content":"looking","role":"assistant","tool_calls":[{"function":{"arguments":"{\"name\":\"garden\"}","name":"wiki"},"id":"call_1","type":"function"},{"function":{"arguments":"{\"broken\":","name":"clock"},"id":"call_2","type":"function"}]},` +
				`{"content":"tomatoes","role":"tool","tool_call_id":"call_1"},{"content":"error: arguments are not JSON","role":"tool","tool_call_id":"call_2"}],` +
				`"model":"model-x",` +
				`"tools":[{"function":{"description":"notes","name":"wiki","parameters":{"additionalProperties":false,"properties":{"name":{"maxLength":64,"type":"string"}},"required":["name",7],"type":"object"}},"type":"function"},` +
				`{"function":{"description":"the time","name":"clock","parameters":{"type":"object"}},"type":"function"},` +
				`{"function":{"name":"mail","parameters":{"properties":{}}},"type":"function"}]}`,
			// OpenAI's prompt_tokens is the sum, cached included; no cache writes.
			"tool_calls", Usage{InputTokens: 1050, OutputTokens: 20, CacheReadTokens: 900}},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			fake := fakellm.New(t)
			fake.Push(fakellm.Step{
				Text:      "I will check both",
				ToolCalls: []fakellm.ToolCall{{ID: "call_3", Name: "wiki", Input: `{"name":"herbs"}`}, {ID: "call_4", Name: "mail", Input: `{}`}},
				Usage:     fakellm.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 900, CacheCreationTokens: 50},
			})
			res, err := wireProvider(t, tc.provider, fake).Complete(context.Background(), wireRequest())
			if err != nil {
				t.Fatal(err)
			}
			want := []ToolCall{{ID: "call_3", Name: "wiki", Input: json.RawMessage(`{"name":"herbs"}`)}, {ID: "call_4", Name: "mail", Input: json.RawMessage(`{}`)}}
			if len(res.ToolCalls) != len(want) {
				t.Fatalf("tool calls %+v, want %+v", res.ToolCalls, want)
			}
			for i, c := range res.ToolCalls {
				if c.ID != want[i].ID || c.Name != want[i].Name || string(c.Input) != string(want[i].Input) {
					t.Errorf("tool call %d = %s %s %s, want %s %s %s", i, c.ID, c.Name, c.Input, want[i].ID, want[i].Name, want[i].Input)
				}
			}
			if res.Text != "I will check both" || res.StopReason != tc.stop || res.Usage != tc.usage {
				t.Errorf("answer %q, stop %q, usage %+v; want the text, %q, %+v", res.Text, res.StopReason, res.Usage, tc.stop, tc.usage)
			}
			reqs := fake.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			for k, v := range tc.header {
				if got := reqs[0].Header.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
			var got any
			if err := json.Unmarshal(reqs[0].Body, &got); err != nil {
				t.Fatal(err)
			}
			sent, _ := json.Marshal(got)
			if string(sent) != tc.body {
				t.Errorf("the API got\n%s\nwant\n%s", sent, tc.body)
			}
		})
	}
}

// TestBaseURLA3: BaseURL is the API's root, with or without a final
// slash, as the SDKs took it; "" is the provider's public API.
func TestBaseURLA3(t *testing.T) {
	fake := fakellm.New(t)
	for _, cfg := range []Config{
		{Provider: "anthropic", BaseURL: fake.AnthropicURL() + "/"},
		{Provider: "openai", BaseURL: fake.OpenAIURL() + "/"},
		{Provider: "openai", BaseURL: fake.OpenAIURL()},
	} {
		cfg.Model, cfg.APIKey = "m", "k"
		fake.Push(fakellm.Step{Text: "here"})
		p, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := p.Complete(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}}); err != nil || res.Text != "here" {
			t.Errorf("%s at %s: %q, %v", cfg.Provider, cfg.BaseURL, res.Text, err)
		}
	}
	a, _ := New(Config{Provider: "anthropic", Model: "m", APIKey: "k"})
	o, _ := New(Config{Provider: "openai", Model: "m", APIKey: "k"})
	if u := a.(*anthropicProvider).url; u != "https://api.anthropic.com/v1/messages" {
		t.Errorf("Anthropic's default endpoint %s", u)
	}
	if u := o.(*openAIProvider).url; u != "https://api.openai.com/v1/chat/completions" {
		t.Errorf("OpenAI's default endpoint %s", u)
	}
}

// TestLocalServerWithoutKeyA3: an OpenAI-compatible server set without a
// key (Ollama) gets the bearer "none", which such servers ignore.
func TestLocalServerWithoutKeyA3(t *testing.T) {
	fake := fakellm.New(t)
	fake.Push(fakellm.Step{Text: "local"})
	p, err := New(Config{Provider: "openai", Model: "llama", BaseURL: fake.OpenAIURL()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Complete(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	if h := fake.Requests()[0].Header.Get("Authorization"); h != "Bearer none" {
		t.Errorf("Authorization %q, want Bearer none", h)
	}
}

// TestModelErrorsA3: what is the owner's to fix (the key, the request or
// the model's name) says so at once; what may pass (busy, overloaded,
// server errors) is sent again up to MaxRetries times and then says the
// model cannot be reached; the API's own words are kept, except a refused
// key's, which may repeat part of the key.
func TestModelErrorsA3(t *testing.T) {
	for _, provider := range []string{"anthropic", "openai"} {
		for _, tc := range []struct {
			name      string
			steps     []fakellm.Step
			wantText  string // "" = an error
			code      jarvisbot.Code
			mentions  []string
			avoids    []string
			wantCalls int
		}{
			{"key refused", []fakellm.Step{{Status: 401, Text: "invalid key sk-ab***yz"}}, "", jarvisbot.EINVALID,
				[]string{"refused its API key", "401 Unauthorized", "jarvisbot secrets set", "_API_KEY"}, []string{"sk-ab", "cannot be reached"}, 1},
			{"key not allowed", []fakellm.Step{{Status: 403, Text: "model not allowed for this key"}}, "", jarvisbot.EFORBIDDEN,
				[]string{"403 Forbidden", "model not allowed for this key", "provider.model"}, []string{"cannot be reached"}, 1},
			{"bad request", []fakellm.Step{{Status: 400, Text: "model: claude-nope is not a model"}}, "", jarvisbot.EINVALID,
				[]string{"refused the request", "400 Bad Request", "claude-nope is not a model", "provider.model"}, []string{"cannot be reached"}, 1},
			{"no such model", []fakellm.Step{{Status: 404, Text: "model not found"}}, "", jarvisbot.EINVALID,
				[]string{"404 Not Found", "model not found", "provider.base_url"}, []string{"cannot be reached"}, 1},
			{"busy then answered", []fakellm.Step{{Status: 429}, {Text: "after the wait"}}, "after the wait", "", nil, nil, 2},
			{"overloaded then answered", []fakellm.Step{{Status: 529, Text: "Overloaded"}, {Text: "after the load"}}, "after the load", "", nil, nil, 2},
			{"busy throughout", []fakellm.Step{{Status: 429, Text: "rate limited"}, {Status: 429}, {Status: 429}}, "", jarvisbot.EUNAVAILABLE,
				[]string{"busy or over its quota", "429 Too Many Requests"}, nil, 3},
			{"down throughout", []fakellm.Step{{Status: 500}, {Status: 502}, {Status: 503, Text: "upstream gone"}}, "", jarvisbot.EUNAVAILABLE,
				[]string{"cannot be reached", "503 Service Unavailable", "upstream gone"}, nil, 3},
		} {
			t.Run(provider+"/"+tc.name, func(t *testing.T) {
				fake := fakellm.New(t)
				fake.Push(tc.steps...)
				res, err := wireProvider(t, provider, fake).Complete(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
				if n := len(fake.Requests()); n != tc.wantCalls {
					t.Errorf("%d calls, want %d", n, tc.wantCalls)
				}
				if tc.wantText != "" {
					if err != nil || res.Text != tc.wantText {
						t.Fatalf("Complete = %q, %v; want %q", res.Text, err, tc.wantText)
					}
					return
				}
				if err == nil {
					t.Fatalf("Complete succeeded with %q", res.Text)
				}
				if got := jarvisbot.ErrorCode(err); got != tc.code {
					t.Errorf("code %s, want %s: %v", got, tc.code, err)
				}
				for _, m := range tc.mentions {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("error %q does not say %q", err, m)
					}
				}
				for _, m := range tc.avoids {
					if strings.Contains(err.Error(), m) {
						t.Errorf("error %q says %q", err, m)
					}
				}
				var se *StatusError
				if !errors.As(err, &se) || se.StatusCode != tc.steps[len(tc.steps)-1].Status {
					t.Errorf("error %v does not carry the last status as a *StatusError", err)
				}
			})
		}
	}
}

// TestModelDeadlineA3: a model that does not answer within Timeout ends
// the call with words for the owner; the caller's own cancel stays its own.
func TestModelDeadlineA3(t *testing.T) {
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) {
			fake := fakellm.New(t)
			fake.Push(fakellm.Step{Hang: true})
			cfg := Config{Provider: provider, Model: "m", APIKey: "k", BaseURL: fake.AnthropicURL(), Timeout: 200 * time.Millisecond}
			if provider == "openai" {
				cfg.BaseURL = fake.OpenAIURL()
			}
			p, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			msgs := Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}}
			_, err = p.Complete(context.Background(), msgs)
			if err == nil || !strings.Contains(err.Error(), "did not answer in time") || jarvisbot.ErrorCode(err) != jarvisbot.EUNAVAILABLE {
				t.Errorf("a hung model: %v", err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := p.Complete(ctx, msgs); !errors.Is(err, context.Canceled) {
				t.Errorf("a cancelled call: %v, want context.Canceled", err)
			}
		})
	}
}

// TestUnreachableModelRetriedOnItsClockA3: a refused connection is tried
// MaxRetries more times, each after the backoff's wait on the pinned
// clock, and then said to be unreachable with the cause.
func TestUnreachableModelRetriedOnItsClockA3(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p, err := New(Config{Provider: "anthropic", Model: "m", APIKey: "k", BaseURL: closed.URL, clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := p.Complete(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}})
		done <- err
	}()
	for i := range 2 { // MaxRetries' default
		testwait.For(t, 10*time.Second, "a wait before sending again", func() (bool, any) {
			return clk.Pending() == 1, i
		})
		clk.Advance(10 * time.Second)
	}
	err = <-done
	if err == nil || !strings.Contains(err.Error(), "cannot be reached") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("an unreachable model: %v", err)
	}
}
