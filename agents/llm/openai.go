package llm

import (
	"context"
	"fmt"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

type openAIProvider struct {
	// client is built by the first call: a service that is never asked
	// anything builds no SDK client.
	client func() openai.ChatCompletionService
	model  string
	cfg    Config
}

func newOpenAI(cfg Config) *openAIProvider {
	return &openAIProvider{client: sync.OnceValue(func() openai.ChatCompletionService {
		opts := []option.RequestOption{option.WithAPIKey(cfg.APIKey), option.WithMaxRetries(cfg.MaxRetries)}
		if cfg.BaseURL != "" {
			opts = append(opts, option.WithBaseURL(cfg.BaseURL))
		}
		if cfg.HTTPClient != nil {
			opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
		}
		// Only the Chat Completions service: a whole client builds every
		// service of the API (~400 allocations) for one that is used.
		return openai.NewChatCompletionService(append(openai.DefaultClientOptions(), opts...)...)
	}), model: cfg.Model, cfg: cfg}
}

func (p *openAIProvider) Name() string { return "openai-compatible " + p.model }

// Complete sends one Chat Completions call. OpenAI caches a long identical
// prefix by itself; keeping the system prompt and the prefix tools first
// and byte-identical across turns is what lets it.
func (p *openAIProvider) Complete(ctx context.Context, req Request) (Response, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	params := openai.ChatCompletionNewParams{Model: shared.ChatModel(p.model)}
	if req.MaxTokens > 0 {
		params.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	}
	if req.System != "" {
		params.Messages = append(params.Messages, openai.SystemMessage(req.System))
	}
	if req.SystemExtra != "" {
		params.Messages = append(params.Messages, openai.SystemMessage(req.SystemExtra))
	}
	for _, t := range req.Tools {
		schema, err := schemaMap(t.Schema)
		if err != nil {
			return Response{}, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(schema)}
		if t.Description != "" {
			fd.Description = openai.String(t.Description)
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(fd))
	}
	for _, m := range req.Messages {
		for _, r := range m.ToolResults {
			content := r.Content
			if r.IsError {
				content = "error: " + content
			}
			params.Messages = append(params.Messages, openai.ToolMessage(content, r.CallID))
		}
		switch {
		case m.Role == RoleAssistant && len(m.ToolCalls) > 0:
			am := openai.ChatCompletionAssistantMessageParam{}
			if m.Text != "" {
				am.Content.OfString = openai.String(m.Text)
			}
			for _, c := range m.ToolCalls {
				am.ToolCalls = append(am.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: c.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: string(c.Input)}},
				})
			}
			params.Messages = append(params.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &am})
		case m.Role == RoleAssistant && m.Text != "":
			params.Messages = append(params.Messages, openai.AssistantMessage(m.Text))
		case m.Text != "":
			params.Messages = append(params.Messages, openai.UserMessage(m.Text))
		}
	}
	c := p.client()
	res, err := c.New(ctx, params)
	if err != nil {
		return Response{}, unreachable(p.Name(), err)
	}
	var out Response
	if len(res.Choices) > 0 {
		ch := res.Choices[0]
		out.Text = ch.Message.Content
		out.StopReason = string(ch.FinishReason)
		for _, tc := range ch.Message.ToolCalls {
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Input: []byte(tc.Function.Arguments)})
		}
	}
	out.Usage = Usage{InputTokens: int(res.Usage.PromptTokens), OutputTokens: int(res.Usage.CompletionTokens),
		CacheReadTokens: int(res.Usage.PromptTokensDetails.CachedTokens)}
	return out, nil
}
