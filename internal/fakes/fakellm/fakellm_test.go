package fakellm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
)

func anthropicClient(s *fakellm.Server, retries int) *anthropic.Client {
	c := anthropic.NewClient(aoption.WithBaseURL(s.AnthropicURL()), aoption.WithAPIKey("test"), aoption.WithMaxRetries(retries))
	return &c
}

func openaiClient(s *fakellm.Server, retries int) *openai.Client {
	c := openai.NewClient(ooption.WithBaseURL(s.OpenAIURL()), ooption.WithAPIKey("test"), ooption.WithMaxRetries(retries))
	return &c
}

func anthropicParams(msgs ...anthropic.MessageParam) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 256,
		System:    []anthropic.TextBlockParam{{Text: "be brief"}},
		Messages:  msgs,
		Tools:     []anthropic.ToolUnionParam{anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{}, "get_weather")},
	}
}

func openaiParams(msgs ...openai.ChatCompletionMessageParamUnion) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    "gpt-test",
		Messages: append([]openai.ChatCompletionMessageParamUnion{openai.SystemMessage("be brief")}, msgs...),
		Tools:    []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "get_weather"})},
	}
}

func only(t *testing.T, s *fakellm.Server, n int) []fakellm.Request {
	t.Helper()
	reqs := s.Requests()
	if len(reqs) != n {
		t.Fatalf("server got %d requests, want %d: %+v", len(reqs), n, reqs)
	}
	return reqs
}

func TestAnthropicTextAnswer(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(fakellm.Step{Text: "Hello <there> & welcome", Usage: fakellm.Usage{InputTokens: 11, OutputTokens: 7, CacheReadTokens: 3, CacheCreationTokens: 2}})
	c := anthropicClient(s, 0)

	msg, err := c.Messages.New(context.Background(), anthropicParams(anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))))
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 1 || msg.Content[0].Type != "text" || msg.Content[0].Text != "Hello <there> & welcome" {
		t.Errorf("content = %+v", msg.Content)
	}
	if !strings.HasPrefix(msg.ID, "msg_") || msg.Model != "claude-test" || msg.StopReason != anthropic.StopReasonEndTurn {
		t.Errorf("id %q, model %q, stop %q", msg.ID, msg.Model, msg.StopReason)
	}
	if u := msg.Usage; u.InputTokens != 11 || u.OutputTokens != 7 || u.CacheReadInputTokens != 3 || u.CacheCreationInputTokens != 2 {
		t.Errorf("usage = %+v", u)
	}

	req := only(t, s, 1)[0]
	if req.API != "anthropic" || req.Path != "/v1/messages" || req.Model != "claude-test" || req.System != "be brief" || req.Stream || req.CacheControl {
		t.Errorf("request = %+v", req)
	}
	// SDK v2 sends WithAPIKey as "Authorization: Bearer", not x-api-key.
	if req.Header.Get("Authorization") != "Bearer test" || req.Header.Get("anthropic-version") == "" {
		t.Errorf("headers = %v", req.Header)
	}
	if len(req.Messages) != 1 || req.Messages[0].Role != "user" || req.Messages[0].Text != "hi" {
		t.Errorf("messages = %+v", req.Messages)
	}
	if !slices.Equal(req.Tools, []string{"get_weather"}) || !json.Valid(req.Body) {
		t.Errorf("tools = %v, body %s", req.Tools, req.Body)
	}
}

func TestOpenAITextAnswer(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(fakellm.Step{Text: "Hello", Usage: fakellm.Usage{InputTokens: 11, OutputTokens: 7, CacheReadTokens: 3}})
	c := openaiClient(s, 0)

	res, err := c.Chat.Completions.New(context.Background(), openaiParams(openai.UserMessage("hi")))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Choices) != 1 || res.Choices[0].Message.Content != "Hello" || res.Choices[0].FinishReason != "stop" {
		t.Errorf("choices = %+v", res.Choices)
	}
	if !strings.HasPrefix(res.ID, "chatcmpl-") || res.Model != "gpt-test" {
		t.Errorf("id %q, model %q", res.ID, res.Model)
	}
	if u := res.Usage; u.PromptTokens != 14 || u.CompletionTokens != 7 || u.TotalTokens != 21 || u.PromptTokensDetails.CachedTokens != 3 {
		t.Errorf("usage = %+v", u)
	}

	req := only(t, s, 1)[0]
	if req.API != "openai" || req.Path != "/v1/chat/completions" || req.Model != "gpt-test" || req.System != "be brief" || req.Stream {
		t.Errorf("request = %+v", req)
	}
	if req.Header.Get("Authorization") != "Bearer test" {
		t.Errorf("Authorization = %q", req.Header.Get("Authorization"))
	}
	if len(req.Messages) != 1 || req.Messages[0].Role != "user" || req.Messages[0].Text != "hi" {
		t.Errorf("messages = %+v", req.Messages)
	}
	if !slices.Equal(req.Tools, []string{"get_weather"}) {
		t.Errorf("tools = %v", req.Tools)
	}
}

func TestAnthropicToolRoundTrip(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(
		fakellm.Step{Text: "Let me check.", ToolCalls: []fakellm.ToolCall{{ID: "toolu_1", Name: "get_weather", Input: `{"city":"Paris"}`}}},
		fakellm.Step{Text: "Sunny in Paris."},
	)
	c := anthropicClient(s, 0)
	ctx := context.Background()

	user := anthropic.NewUserMessage(anthropic.NewTextBlock("weather in Paris?"))
	first, err := c.Messages.New(ctx, anthropicParams(user))
	if err != nil {
		t.Fatal(err)
	}
	if first.StopReason != anthropic.StopReasonToolUse || len(first.Content) != 2 {
		t.Fatalf("first answer = %+v", first)
	}
	call := first.Content[1]
	if call.Type != "tool_use" || call.ID != "toolu_1" || call.Name != "get_weather" || string(call.Input) != `{"city":"Paris"}` {
		t.Fatalf("tool_use = %+v", call)
	}

	result := anthropic.NewUserMessage(anthropic.NewToolResultBlock(call.ID, "sunny, 21C", false))
	second, err := c.Messages.New(ctx, anthropicParams(user, first.ToParam(), result))
	if err != nil {
		t.Fatal(err)
	}
	if second.Content[0].Text != "Sunny in Paris." || second.StopReason != anthropic.StopReasonEndTurn {
		t.Errorf("second answer = %+v", second)
	}

	got := only(t, s, 2)[1].Messages
	want := []fakellm.Message{
		{Role: "user", Text: "weather in Paris?"},
		{Role: "assistant", Text: "Let me check.", ToolCallIDs: []string{"toolu_1"}},
		{Role: "user", ToolResultIDs: []string{"toolu_1"}, ToolResults: []string{"sunny, 21C"}},
	}
	assertMessages(t, got, want)
}

func TestOpenAIToolRoundTrip(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(
		fakellm.Step{ToolCalls: []fakellm.ToolCall{{Name: "get_weather", Input: `{"city":"Paris"}`}}},
		fakellm.Step{Text: "Sunny in Paris."},
	)
	c := openaiClient(s, 0)
	ctx := context.Background()

	user := openai.UserMessage("weather in Paris?")
	first, err := c.Chat.Completions.New(ctx, openaiParams(user))
	if err != nil {
		t.Fatal(err)
	}
	choice := first.Choices[0]
	if choice.FinishReason != "tool_calls" || len(choice.Message.ToolCalls) != 1 {
		t.Fatalf("first answer = %+v", choice)
	}
	call := choice.Message.ToolCalls[0]
	if !strings.HasPrefix(call.ID, "call_") || call.Function.Name != "get_weather" || call.Function.Arguments != `{"city":"Paris"}` {
		t.Fatalf("tool call = %+v", call)
	}

	second, err := c.Chat.Completions.New(ctx, openaiParams(user, choice.Message.ToParam(), openai.ToolMessage("sunny, 21C", call.ID)))
	if err != nil {
		t.Fatal(err)
	}
	if second.Choices[0].Message.Content != "Sunny in Paris." {
		t.Errorf("second answer = %+v", second.Choices[0])
	}

	got := only(t, s, 2)[1].Messages
	want := []fakellm.Message{
		{Role: "user", Text: "weather in Paris?"},
		{Role: "assistant", ToolCallIDs: []string{call.ID}},
		{Role: "tool", ToolResultIDs: []string{call.ID}, ToolResults: []string{"sunny, 21C"}},
	}
	assertMessages(t, got, want)
}

func assertMessages(t *testing.T, got, want []fakellm.Message) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("messages = %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Role != w.Role || g.Text != w.Text || !slices.Equal(g.ToolCallIDs, w.ToolCallIDs) ||
			!slices.Equal(g.ToolResultIDs, w.ToolResultIDs) || !slices.Equal(g.ToolResults, w.ToolResults) {
			t.Errorf("message %d = %+v, want %+v", i, g, w)
		}
	}
}

var streamSteps = []struct {
	name string
	step fakellm.Step
}{
	{"text", fakellm.Step{Text: "The quick brown fox jumps.", Usage: fakellm.Usage{InputTokens: 5, OutputTokens: 9}}},
	{"tool calls", fakellm.Step{Text: "Checking both.", ToolCalls: []fakellm.ToolCall{
		{ID: "t1", Name: "get_weather", Input: `{"city":"Paris"}`},
		{ID: "t2", Name: "get_time", Input: `{"tz":"Europe/Paris","fmt":"24h"}`},
	}, Usage: fakellm.Usage{InputTokens: 5, OutputTokens: 9}}},
}

// eachStreamStep checks, in parallel, a fresh server scripted with each
// of streamSteps.
func eachStreamStep(t *testing.T, check func(t *testing.T, s *fakellm.Server, step fakellm.Step)) {
	t.Parallel()
	for _, tt := range streamSteps {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := fakellm.New(t)
			s.Push(tt.step)
			check(t, s, tt.step)
		})
	}
}

func TestAnthropicStreamingAccumulates(t *testing.T) {
	eachStreamStep(t, func(t *testing.T, s *fakellm.Server, step fakellm.Step) {
		c := anthropicClient(s, 0)

		stream := c.Messages.NewStreaming(context.Background(), anthropicParams(anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))))
		var msg anthropic.Message
		var types []string
		for stream.Next() {
			ev := stream.Current()
			types = append(types, ev.Type)
			if err := msg.Accumulate(ev); err != nil {
				t.Fatal(err)
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		if types[0] != "message_start" || types[len(types)-1] != "message_stop" || !slices.Contains(types, "content_block_delta") {
			t.Errorf("events = %v", types)
		}
		if msg.Content[0].Text != step.Text {
			t.Errorf("text = %q, want %q", msg.Content[0].Text, step.Text)
		}
		for i, tc := range step.ToolCalls {
			b := msg.Content[i+1]
			if b.Type != "tool_use" || b.ID != tc.ID || b.Name != tc.Name || string(b.Input) != tc.Input {
				t.Errorf("block %d = %+v, want %+v", i+1, b, tc)
			}
		}
		wantStop := anthropic.StopReasonEndTurn
		if len(step.ToolCalls) > 0 {
			wantStop = anthropic.StopReasonToolUse
		}
		if msg.StopReason != wantStop || msg.Usage.InputTokens != 5 || msg.Usage.OutputTokens != 9 || !strings.HasPrefix(msg.ID, "msg_") {
			t.Errorf("stop %q, usage %+v, id %q", msg.StopReason, msg.Usage, msg.ID)
		}
		if !only(t, s, 1)[0].Stream {
			t.Error("request not recorded as streaming")
		}
	})
}

func TestOpenAIStreamingAccumulates(t *testing.T) {
	eachStreamStep(t, func(t *testing.T, s *fakellm.Server, step fakellm.Step) {
		c := openaiClient(s, 0)

		params := openaiParams(openai.UserMessage("hi"))
		params.StreamOptions.IncludeUsage = openai.Bool(true)
		stream := c.Chat.Completions.NewStreaming(context.Background(), params)
		var acc openai.ChatCompletionAccumulator
		var finished []string
		for stream.Next() {
			if !acc.AddChunk(stream.Current()) {
				t.Fatalf("accumulator rejected chunk %s", stream.Current().RawJSON())
			}
			if tc, ok := acc.JustFinishedToolCall(); ok {
				finished = append(finished, tc.Name)
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		choice := acc.Choices[0]
		if choice.Message.Content != step.Text {
			t.Errorf("content = %q, want %q", choice.Message.Content, step.Text)
		}
		if len(choice.Message.ToolCalls) != len(step.ToolCalls) {
			t.Fatalf("tool calls = %+v", choice.Message.ToolCalls)
		}
		for i, tc := range step.ToolCalls {
			got := choice.Message.ToolCalls[i]
			if got.ID != tc.ID || got.Function.Name != tc.Name || got.Function.Arguments != tc.Input {
				t.Errorf("tool call %d = %+v, want %+v", i, got, tc)
			}
		}
		var names []string
		for _, tc := range step.ToolCalls {
			names = append(names, tc.Name)
		}
		if !slices.Equal(finished, names) {
			// The last call finishes on the finish_reason chunk.
			t.Errorf("JustFinishedToolCall reported %v, want %v", finished, names)
		}
		wantFinish := "stop"
		if len(step.ToolCalls) > 0 {
			wantFinish = "tool_calls"
		}
		if choice.FinishReason != wantFinish || acc.Usage.PromptTokens != 5 || acc.Usage.CompletionTokens != 9 || acc.Model != "gpt-test" {
			t.Errorf("finish %q, usage %+v, model %q", choice.FinishReason, acc.Usage, acc.Model)
		}
	})
}

func TestOpenAIStreamingSendsUsageOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(fakellm.Step{Text: "hi", Usage: fakellm.Usage{InputTokens: 5, OutputTokens: 9}})
	c := openaiClient(s, 0)
	stream := c.Chat.Completions.NewStreaming(context.Background(), openaiParams(openai.UserMessage("hi")))
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if acc.Usage.TotalTokens != 0 || acc.Choices[0].Message.Content != "hi" {
		t.Errorf("usage %+v, content %q", acc.Usage, acc.Choices[0].Message.Content)
	}
}

func TestSDKRetriesScriptedErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		api    string
		status int
	}{
		{"anthropic", http.StatusTooManyRequests},
		{"anthropic", 529},
		{"openai", http.StatusTooManyRequests},
		{"openai", http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.api+"/"+http.StatusText(tt.status), func(t *testing.T) {
			t.Parallel()
			s := fakellm.New(t)
			s.Push(fakellm.Step{Status: tt.status}, fakellm.Step{Text: "ok"})
			var text string
			if tt.api == "anthropic" {
				msg, err := anthropicClient(s, 2).Messages.New(context.Background(), anthropicParams(anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))))
				if err != nil {
					t.Fatal(err)
				}
				text = msg.Content[0].Text
			} else {
				res, err := openaiClient(s, 2).Chat.Completions.New(context.Background(), openaiParams(openai.UserMessage("hi")))
				if err != nil {
					t.Fatal(err)
				}
				text = res.Choices[0].Message.Content
			}
			if text != "ok" {
				t.Errorf("text = %q", text)
			}
			reqs := only(t, s, 2)
			if got := reqs[1].Header.Get("X-Stainless-Retry-Count"); got != "1" {
				t.Errorf("second attempt X-Stainless-Retry-Count = %q, want 1", got)
			}
		})
	}
}

func TestScriptedErrorShapes(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(fakellm.Step{Status: 529, Text: "Overloaded"}, fakellm.Step{Status: http.StatusTooManyRequests})

	_, err := anthropicClient(s, 0).Messages.New(context.Background(), anthropicParams(anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))))
	var aerr *anthropic.Error
	if !errors.As(err, &aerr) || aerr.StatusCode != 529 || aerr.Type() != "overloaded_error" || aerr.Message != "Overloaded" || aerr.RequestID == "" {
		t.Errorf("anthropic error = %v", err)
	}
	_, err = openaiClient(s, 0).Chat.Completions.New(context.Background(), openaiParams(openai.UserMessage("hi")))
	var oerr *openai.Error
	if !errors.As(err, &oerr) || oerr.StatusCode != 429 || oerr.Code != "rate_limit_exceeded" || oerr.Response.Header.Get("retry-after") != "0" {
		t.Errorf("openai error = %v", err)
	}
}

func TestHangEndsWithTheContext(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"anthropic", "openai"} {
		t.Run(api, func(t *testing.T) {
			t.Parallel()
			s := fakellm.New(t)
			s.Push(fakellm.Step{Hang: true})
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			var err error
			if api == "anthropic" {
				_, err = anthropicClient(s, 0).Messages.New(ctx, anthropicParams(anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))))
			} else {
				_, err = openaiClient(s, 0).Chat.Completions.New(ctx, openaiParams(openai.UserMessage("hi")))
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want context.DeadlineExceeded", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestDelayAnswersLate(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(fakellm.Step{Text: "late", Delay: 50 * time.Millisecond})
	start := time.Now()
	res, err := openaiClient(s, 0).Chat.Completions.New(context.Background(), openaiParams(openai.UserMessage("hi")))
	if err != nil || res.Choices[0].Message.Content != "late" {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("answered after %v", d)
	}
}

// TestReleaseHoldsTheAnswer: a step with Release answers only once it is
// closed; until then the call waits like a hung one.
func TestReleaseHoldsTheAnswer(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	release := make(chan struct{})
	s.Push(fakellm.Step{Text: "held", Release: release}, fakellm.Step{Text: "released", Release: release})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := openaiClient(s, 0).Chat.Completions.New(ctx, openaiParams(openai.UserMessage("hi"))); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("before the release: err = %v, want context.DeadlineExceeded", err)
	}
	close(release)
	res, err := anthropicClient(s, 0).Messages.New(context.Background(), anthropicParams(anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))))
	if err != nil || len(res.Content) == 0 || res.Content[0].Text != "released" {
		t.Fatalf("after the release: %+v, %v", res, err)
	}
}

func TestMalformedToolInputPassesThrough(t *testing.T) {
	t.Parallel()
	const bad = `{"city": "Par`
	step := fakellm.Step{ToolCalls: []fakellm.ToolCall{{ID: "t1", Name: "get_weather", Input: bad}}}
	ctx := context.Background()

	t.Run("openai", func(t *testing.T) {
		t.Parallel()
		s := fakellm.New(t)
		s.Push(step, step)
		c := openaiClient(s, 0)
		res, err := c.Chat.Completions.New(ctx, openaiParams(openai.UserMessage("hi")))
		if err != nil || res.Choices[0].Message.ToolCalls[0].Function.Arguments != bad {
			t.Errorf("res %+v, err %v", res, err)
		}
		stream := c.Chat.Completions.NewStreaming(ctx, openaiParams(openai.UserMessage("hi")))
		var acc openai.ChatCompletionAccumulator
		for stream.Next() {
			acc.AddChunk(stream.Current())
		}
		if err := stream.Err(); err != nil || acc.Choices[0].Message.ToolCalls[0].Function.Arguments != bad {
			t.Errorf("streamed %+v, err %v", acc.Choices, err)
		}
	})
	t.Run("anthropic", func(t *testing.T) {
		t.Parallel()
		s := fakellm.New(t)
		s.Push(step, step)
		c := anthropicClient(s, 0)
		params := anthropicParams(anthropic.NewUserMessage(anthropic.NewTextBlock("hi")))

		// A whole message must be JSON, so the input arrives as a JSON string.
		msg, err := c.Messages.New(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		var input string
		if err := json.Unmarshal(msg.Content[0].Input, &input); err != nil || input != bad {
			t.Errorf("input = %s (%v)", msg.Content[0].Input, err)
		}

		// Streamed, the partial_json deltas carry it verbatim.
		stream := c.Messages.NewStreaming(ctx, params)
		var partial strings.Builder
		for stream.Next() {
			if ev := stream.Current(); ev.Type == "content_block_delta" {
				partial.WriteString(ev.Delta.PartialJSON)
			}
		}
		if err := stream.Err(); err != nil || partial.String() != bad {
			t.Errorf("partial_json = %q, err %v", partial.String(), err)
		}
	})
}

func TestCacheControlDetected(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(fakellm.Step{Text: "a"}, fakellm.Step{Text: "b"})
	c := anthropicClient(s, 0)
	ctx := context.Background()

	plain := anthropicParams(anthropic.NewUserMessage(anthropic.NewTextBlock("hi")))
	if _, err := c.Messages.New(ctx, plain); err != nil {
		t.Fatal(err)
	}
	cached := plain
	cached.System = []anthropic.TextBlockParam{{Text: "be brief", CacheControl: anthropic.NewCacheControlEphemeralParam()}}
	if _, err := c.Messages.New(ctx, cached); err != nil {
		t.Fatal(err)
	}
	reqs := only(t, s, 2)
	if reqs[0].CacheControl || !reqs[1].CacheControl {
		t.Errorf("CacheControl = %v, %v; want false, true", reqs[0].CacheControl, reqs[1].CacheControl)
	}
}

func TestMissingKeyIsRejected(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(fakellm.Step{Text: "never"})

	keyless := openai.NewClient(ooption.WithBaseURL(s.OpenAIURL()), ooption.WithAPIKey(""), ooption.WithMaxRetries(0))
	_, err := keyless.Chat.Completions.New(context.Background(), openaiParams(openai.UserMessage("hi")))
	var oerr *openai.Error
	if !errors.As(err, &oerr) || oerr.StatusCode != http.StatusUnauthorized || oerr.Type != "invalid_request_error" {
		t.Errorf("openai err = %v", err)
	}

	// Given an empty key, the Anthropic SDK still sends "Authorization: Bearer".
	keylessA := anthropic.NewClient(aoption.WithBaseURL(s.AnthropicURL()), aoption.WithAPIKey(""), aoption.WithMaxRetries(0))
	_, err = keylessA.Messages.New(context.Background(), anthropicParams(anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))))
	var aerr *anthropic.Error
	if !errors.As(err, &aerr) || aerr.StatusCode != http.StatusUnauthorized || aerr.Type() != "authentication_error" {
		t.Errorf("anthropic err = %v", err)
	}
	if s.Pending() != 1 || len(s.Requests()) != 2 {
		t.Errorf("pending %d, requests %d: a refused request must not use a step", s.Pending(), len(s.Requests()))
	}
}

func TestEmptyScriptNamesTheRequest(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	_, err := anthropicClient(s, 2).Messages.New(context.Background(), anthropicParams(anthropic.NewUserMessage(anthropic.NewTextBlock("what now?"))))
	var aerr *anthropic.Error
	if !errors.As(err, &aerr) || aerr.StatusCode != 500 || !strings.Contains(aerr.Message, "request #1") || !strings.Contains(aerr.Message, "what now?") {
		t.Errorf("err = %v", err)
	}
	only(t, s, 1) // not retried
}

func TestUnansweredToolCallsAreRejected(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(fakellm.Step{Text: "never"})
	ctx := context.Background()

	_, err := anthropicClient(s, 0).Messages.New(ctx, anthropicParams(
		anthropic.NewUserMessage(anthropic.NewTextBlock("hi")),
		anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("toolu_9", map[string]any{}, "get_weather")),
		anthropic.NewUserMessage(anthropic.NewTextBlock("forgot the result")),
	))
	var aerr *anthropic.Error
	if !errors.As(err, &aerr) || aerr.StatusCode != 400 || !strings.Contains(aerr.Message, "toolu_9") {
		t.Errorf("anthropic err = %v", err)
	}

	_, err = openaiClient(s, 0).Chat.Completions.New(ctx, openaiParams(
		openai.UserMessage("hi"),
		openai.ToolMessage("orphan", "call_9"),
	))
	var oerr *openai.Error
	if !errors.As(err, &oerr) || oerr.StatusCode != 400 {
		t.Errorf("openai err = %v", err)
	}
	if s.Pending() != 1 {
		t.Errorf("a rejected request used a step")
	}
}

func TestStopReasonTranslates(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(fakellm.Step{Text: "cut", StopReason: "max_tokens"}, fakellm.Step{Text: "cut", StopReason: "length"})
	res, err := openaiClient(s, 0).Chat.Completions.New(context.Background(), openaiParams(openai.UserMessage("hi")))
	if err != nil || res.Choices[0].FinishReason != "length" {
		t.Errorf("openai finish = %+v, %v", res, err)
	}
	msg, err := anthropicClient(s, 0).Messages.New(context.Background(), anthropicParams(anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))))
	if err != nil || msg.StopReason != anthropic.StopReasonMaxTokens {
		t.Errorf("anthropic stop = %+v, %v", msg, err)
	}
}

func TestCloseReleasesAHangingCall(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(fakellm.Step{Hang: true})
	errc := make(chan error, 1)
	go func() {
		_, err := openaiClient(s, 0).Chat.Completions.New(context.Background(), openaiParams(openai.UserMessage("hi")))
		errc <- err
	}()
	testwait.For(t, 5*time.Second, "the hanging call to reach the server", func() (bool, any) {
		n := len(s.Requests())
		return n > 0, fmt.Sprintf("%d requests", n)
	})
	s.Close()
	select {
	case err := <-errc:
		if err == nil {
			t.Error("a call the server dropped succeeded")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close left the call hanging")
	}
}
