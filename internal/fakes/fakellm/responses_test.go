package fakellm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
)

// responsesParams is a Responses API request as Codex shapes it: the
// instructions, a function tool, and one MCP server's tools as a namespace.
func responsesParams(input ...responses.ResponseInputItemUnionParam) responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model:        "gpt-test",
		Instructions: openai.String("be brief"),
		Input:        responses.ResponseNewParamsInputUnion{OfInputItemList: input},
		Tools: []responses.ToolUnionParam{
			responses.ToolParamOfFunction("get_weather", map[string]any{"type": "object"}, false),
			{OfNamespace: &responses.NamespaceToolParam{
				Name:        "mcp__jb",
				Description: "Tools of the jb MCP server.",
				Tools: []responses.NamespaceToolToolUnionParam{
					{OfFunction: &responses.NamespaceToolToolFunctionParam{Name: "echo"}},
				},
			}},
		},
	}
}

func userInput(text string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleUser)
}

func callOutput(callID, output string) responses.ResponseInputItemUnionParam {
	item := responses.ResponseInputItemParamOfFunctionCallOutput(output)
	item.OfFunctionCallOutput.CallID = openai.String(callID)
	return item
}

func TestResponsesTextAnswer(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(fakellm.Step{Text: "Hello there.", Usage: fakellm.Usage{InputTokens: 7, OutputTokens: 3, CacheReadTokens: 2}})
	res, err := openaiClient(s, 0).Responses.New(context.Background(), responsesParams(userInput("hi")))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != responses.ResponseStatusCompleted || res.OutputText() != "Hello there." || !strings.HasPrefix(res.ID, "resp_") {
		t.Errorf("response = %s", res.RawJSON())
	}
	if res.Usage.InputTokens != 9 || res.Usage.InputTokensDetails.CachedTokens != 2 || res.Usage.OutputTokens != 3 || res.Usage.TotalTokens != 12 {
		t.Errorf("usage = %+v", res.Usage)
	}
	req := only(t, s, 1)[0]
	if req.API != "responses" || req.Path != "/v1/responses" || req.Model != "gpt-test" || req.System != "be brief" || req.Stream {
		t.Errorf("request = %+v", req)
	}
	if want := []string{"get_weather", "mcp__jb__echo"}; !slices.Equal(req.Tools, want) {
		t.Errorf("tools = %q, want %q: a namespaced tool is recorded as NAMESPACE__TOOL", req.Tools, want)
	}
	assertMessages(t, req.Messages, []fakellm.Message{{Role: "user", Text: "hi"}})
}

// Codex offers each MCP server's tools as a namespace and only runs a call
// that names it: the script says "mcp__jb__echo", as for Claude Code, and
// the answer is function "echo" of namespace "mcp__jb".
func TestResponsesToolRoundTripWithNamespace(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(
		fakellm.Step{ToolCalls: []fakellm.ToolCall{
			{Name: "mcp__jb__echo", Input: `{"text":"hi"}`},
			{Name: "get_weather", Input: `{"city":"Paris"}`},
		}},
		fakellm.Step{Text: "Done."},
	)
	c := openaiClient(s, 0)
	ctx := context.Background()

	first, err := c.Responses.New(ctx, responsesParams(userInput("echo hi and the weather")))
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Output) != 2 {
		t.Fatalf("output = %s", first.RawJSON())
	}
	echo, weather := first.Output[0].AsFunctionCall(), first.Output[1].AsFunctionCall()
	if first.Output[0].Type != "function_call" || echo.Name != "echo" || echo.Namespace != "mcp__jb" || echo.Arguments != `{"text":"hi"}` || !strings.HasPrefix(echo.CallID, "call_") {
		t.Errorf("first call = %s", first.Output[0].RawJSON())
	}
	if weather.Name != "get_weather" || weather.Namespace != "" || weather.Arguments != `{"city":"Paris"}` {
		t.Errorf("second call = %s", first.Output[1].RawJSON())
	}

	in := []responses.ResponseInputItemUnionParam{userInput("echo hi and the weather")}
	for _, o := range first.Output {
		in = append(in, responses.ResponseInputItemUnionParam{OfFunctionCall: new(o.AsFunctionCall().ToParam())})
	}
	in = append(in, callOutput(echo.CallID, "echo: hi"), callOutput(weather.CallID, "sunny"))
	second, err := c.Responses.New(ctx, responsesParams(in...))
	if err != nil {
		t.Fatal(err)
	}
	if second.OutputText() != "Done." {
		t.Errorf("second = %s", second.RawJSON())
	}
	assertMessages(t, only(t, s, 2)[1].Messages, []fakellm.Message{
		{Role: "user", Text: "echo hi and the weather"},
		{Role: "assistant", ToolCallIDs: []string{echo.CallID, weather.CallID}},
		{Role: "tool", ToolResultIDs: []string{echo.CallID}, ToolResults: []string{"echo: hi"}},
		{Role: "tool", ToolResultIDs: []string{weather.CallID}, ToolResults: []string{"sunny"}},
	})
}

// The stream carries every event the real API sends, in order and
// numbered, and the pieces add up to the finished items.
func TestResponsesStreamingAccumulates(t *testing.T) {
	eachStreamStep(t, func(t *testing.T, s *fakellm.Server, step fakellm.Step) {
		stream := openaiClient(s, 0).Responses.NewStreaming(context.Background(), responsesParams(userInput("hi")))
		var (
			types []string
			seq   []int64
			text  strings.Builder
			args  = map[string]*strings.Builder{} // item id → arguments
			added = map[string]bool{}             // item ids opened by output_item.added
			final responses.Response
		)
		for stream.Next() {
			ev := stream.Current()
			types = append(types, ev.Type)
			seq = append(seq, ev.SequenceNumber)
			switch ev.Type {
			case "response.output_item.added":
				added[ev.Item.ID] = true
				// Codex drops an item it cannot parse, and then every
				// text delta of it: a message needs its content list,
				// empty as it is.
				var fields map[string]json.RawMessage
				if err := json.Unmarshal([]byte(ev.Item.RawJSON()), &fields); err != nil || (ev.Item.Type == "message" && string(fields["content"]) != "[]") {
					t.Errorf("added item = %s, want a message's empty content list", ev.Item.RawJSON())
				}
			case "response.output_text.delta":
				if !added[ev.ItemID] {
					t.Errorf("text delta for item %q before its output_item.added", ev.ItemID)
				}
				text.WriteString(ev.Delta)
			case "response.function_call_arguments.delta":
				if args[ev.ItemID] == nil {
					args[ev.ItemID] = &strings.Builder{}
				}
				args[ev.ItemID].WriteString(ev.Delta)
			case "response.completed":
				final = ev.Response
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		if types[0] != "response.created" || types[len(types)-1] != "response.completed" {
			t.Errorf("events = %v", types)
		}
		for i := range seq {
			if seq[i] != int64(i) {
				t.Fatalf("sequence numbers = %v", seq)
			}
		}
		if text.String() != step.Text || final.OutputText() != step.Text {
			t.Errorf("text deltas %q, final %q, want %q", text.String(), final.OutputText(), step.Text)
		}
		var calls []responses.ResponseFunctionToolCall
		for _, o := range final.Output {
			if o.Type == "function_call" {
				calls = append(calls, o.AsFunctionCall())
			}
		}
		if len(calls) != len(step.ToolCalls) {
			t.Fatalf("calls = %+v", calls)
		}
		for i, tc := range step.ToolCalls {
			got := calls[i]
			if got.CallID != tc.ID || got.Name != tc.Name || got.Arguments != tc.Input || args[got.ID].String() != tc.Input {
				t.Errorf("call %d = %+v (streamed arguments %q), want %+v", i, got, args[got.ID], tc)
			}
		}
		if final.Status != responses.ResponseStatusCompleted || final.Usage.InputTokens != 5 || final.Usage.OutputTokens != 9 {
			t.Errorf("final status %q, usage %+v", final.Status, final.Usage)
		}
		if !only(t, s, 1)[0].Stream {
			t.Errorf("the request was not recorded as streaming")
		}
	})
}

func TestResponsesTruncatedAnswerIsIncomplete(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(fakellm.Step{Text: "cut", StopReason: "max_tokens"})
	res, err := openaiClient(s, 0).Responses.New(context.Background(), responsesParams(userInput("hi")))
	if err != nil || res.Status != responses.ResponseStatusIncomplete || res.IncompleteDetails.Reason != "max_output_tokens" {
		t.Errorf("response = %+v, %v", res, err)
	}
}

func TestResponsesRejectsWhatTheAPIRejects(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(fakellm.Step{Text: "never"})
	ctx := context.Background()
	tests := []struct {
		name   string
		client *openai.Client
		params responses.ResponseNewParams
		status int
		msg    string
	}{
		{"an output with no call", openaiClient(s, 0), responsesParams(userInput("hi"), callOutput("call_9", "orphan")), 400, "call_9"},
		{"a call with no output", openaiClient(s, 0), responsesParams(userInput("hi"),
			responses.ResponseInputItemParamOfFunctionCall("{}", "call_8", "get_weather")), 400, "call_8"},
		{"no key", func() *openai.Client {
			c := openai.NewClient(ooption.WithBaseURL(s.OpenAIURL()), ooption.WithAPIKey(""), ooption.WithMaxRetries(0))
			return &c
		}(), responsesParams(userInput("hi")), http.StatusUnauthorized, "API key"},
	}
	for _, tt := range tests {
		_, err := tt.client.Responses.New(ctx, tt.params)
		var oerr *openai.Error
		if !errors.As(err, &oerr) || oerr.StatusCode != tt.status || !strings.Contains(oerr.Message, tt.msg) {
			t.Errorf("%s: err = %v, want %d naming %q", tt.name, err, tt.status, tt.msg)
		}
	}
	if s.Pending() != 1 {
		t.Errorf("a rejected request used a step")
	}
}

// Codex sends the input as typed items with content part lists, and its
// system prompt as developer messages.
func TestResponsesReadsCodexShapedInput(t *testing.T) {
	t.Parallel()
	s := fakellm.New(t)
	s.Push(fakellm.Step{Text: "ok"})
	body := `{"model":"gpt-test","stream":false,"store":false,"input":[
		{"type":"message","role":"developer","content":[{"type":"input_text","text":"You are Codex."}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"first"},{"type":"input_text","text":"second"}]},
		{"type":"reasoning","summary":[],"encrypted_content":"x"},
		{"type":"function_call","namespace":"mcp__jb","name":"echo","arguments":"{}","call_id":"call_1"},
		{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"echo: hi"}]}
	],"tools":[{"type":"web_search","external_web_access":false}]}`
	resp, err := http.Post(s.OpenAIURL()+"/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status = %d, want 401 without a key", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodPost, s.OpenAIURL()+"/responses", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer k")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Status string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK || out.Status != "completed" {
		t.Fatalf("status %d, body %+v, %v", resp.StatusCode, out, err)
	}
	got := s.Requests()[1]
	if got.System != "You are Codex." || !slices.Equal(got.Tools, []string{"web_search"}) {
		t.Errorf("system %q, tools %q", got.System, got.Tools)
	}
	assertMessages(t, got.Messages, []fakellm.Message{
		{Role: "user", Text: "first\nsecond"},
		{Role: "assistant", ToolCallIDs: []string{"call_1"}},
		{Role: "tool", ToolResultIDs: []string{"call_1"}, ToolResults: []string{"echo: hi"}},
	})
}
