package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// openAIBase is OpenAI's API root when no BaseURL is set; an
// OpenAI-compatible server's root ends in /v1 the same way.
const openAIBase = "https://api.openai.com/v1"

type openAIProvider struct {
	cfg    Config
	hc     *http.Client
	url    string
	header http.Header
}

func newOpenAI(cfg Config) *openAIProvider {
	base := cfg.BaseURL
	if base == "" {
		base = openAIBase
	}
	return &openAIProvider{cfg: cfg, hc: newHTTPClient(cfg.HTTPClient, cfg.MaxRetries, cfg.clock, cfg.maxWait),
		url:    strings.TrimSuffix(base, "/") + "/chat/completions",
		header: http.Header{"Authorization": {"Bearer " + cfg.APIKey}}}
}

func (p *openAIProvider) Name() string { return "openai-compatible " + p.cfg.Model }

// Who says which provider and model answer, as Response does.
func (p *openAIProvider) Who() (provider, model string) { return "openai", p.cfg.Model }

// The Chat Completions request and answer, as far as jarvisbot uses them.
type (
	openAIRequest struct {
		Model               string          `json:"model"`
		Messages            []openAIMessage `json:"messages"`
		Tools               []openAITool    `json:"tools,omitempty"`
		MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	}
	openAIMessage struct {
		Role string `json:"role"`
		// Content is nil only for an assistant message that only calls
		// tools; a tool's empty result is still "".
		Content    *string          `json:"-"`
		Parts      []openAIPart     `json:"-"` // a user message with files: content as parts
		ToolCalls  []openAIToolCall `json:"tool_calls,omitempty"`
		ToolCallID string           `json:"tool_call_id,omitempty"`
	}
	// openAIPart is a text or image_url content part.
	openAIPart struct {
		Type     string       `json:"type"`
		Text     string       `json:"text,omitempty"`
		ImageURL *openAIImage `json:"image_url,omitempty"`
	}
	openAIImage struct {
		URL string `json:"url"`
	}
	openAIToolCall struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	openAITool struct {
		Type     string             `json:"type"`
		Function openAIFunctionDecl `json:"function"`
	}
	openAIFunctionDecl struct {
		Name        string                     `json:"name"`
		Description string                     `json:"description,omitempty"`
		Parameters  map[string]json.RawMessage `json:"parameters"`
	}
	openAIAnswer struct {
		Choices []struct {
			Message struct {
				Content   string           `json:"content"`
				ToolCalls []openAIToolCall `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens        int `json:"prompt_tokens"`
			CompletionTokens    int `json:"completion_tokens"`
			PromptTokensDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
)

// Complete sends one Chat Completions call. OpenAI caches a long identical
// prefix by itself; keeping the system prompt and the prefix tools first
// and byte-identical across turns is what lets it.
func (p *openAIProvider) Complete(ctx context.Context, req Request) (Response, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	body, err := openAIBody(p.cfg.Model, req)
	if err != nil {
		return Response{}, err
	}
	var res openAIAnswer
	if err := postJSON(ctx, p.hc, p.url, p.header, body, &res); err != nil {
		return Response{}, failed(p.cfg.Provider, p.Name(), err)
	}
	var out Response
	if len(res.Choices) > 0 {
		ch := res.Choices[0]
		out.Text = ch.Message.Content
		out.StopReason = ch.FinishReason
		for _, tc := range ch.Message.ToolCalls {
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Input: []byte(tc.Function.Arguments)})
		}
	}
	out.Usage = Usage{InputTokens: res.Usage.PromptTokens, OutputTokens: res.Usage.CompletionTokens,
		CacheReadTokens: res.Usage.PromptTokensDetails.CachedTokens}
	out.Provider, out.Model = p.Who()
	return out, nil
}

// openAIBody translates req into a Chat Completions request.
func openAIBody(model string, req Request) (openAIRequest, error) {
	body := openAIRequest{Model: model, MaxCompletionTokens: max(req.MaxTokens, 0)}
	text := func(role, s string) openAIMessage { return openAIMessage{Role: role, Content: &s} }
	if req.System != "" {
		body.Messages = append(body.Messages, text("system", req.System))
	}
	if req.SystemExtra != "" {
		body.Messages = append(body.Messages, text("system", req.SystemExtra))
	}
	for _, t := range req.Tools {
		schema, err := schemaObject(t.Schema)
		if err != nil {
			return openAIRequest{}, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		body.Tools = append(body.Tools, openAITool{Type: "function",
			Function: openAIFunctionDecl{Name: t.Name, Description: t.Description, Parameters: schema}})
	}
	for _, m := range req.Messages {
		for _, r := range m.ToolResults {
			content := r.Content
			if r.IsError {
				content = "error: " + content
			}
			tm := text("tool", content)
			tm.ToolCallID = r.CallID
			body.Messages = append(body.Messages, tm)
		}
		switch {
		case m.Role == RoleAssistant && len(m.ToolCalls) > 0:
			am := openAIMessage{Role: RoleAssistant}
			if m.Text != "" {
				am.Content = &m.Text
			}
			for _, c := range m.ToolCalls {
				tc := openAIToolCall{ID: c.ID, Type: "function"}
				tc.Function.Name, tc.Function.Arguments = c.Name, string(c.Input)
				am.ToolCalls = append(am.ToolCalls, tc)
			}
			body.Messages = append(body.Messages, am)
		case m.Role == RoleAssistant && m.Text != "":
			body.Messages = append(body.Messages, text(RoleAssistant, m.Text))
		case len(m.Attachments) > 0:
			body.Messages = append(body.Messages, openAIMessage{Role: RoleUser, Parts: openAIParts(m)})
		case m.Text != "":
			body.Messages = append(body.Messages, text(RoleUser, m.Text))
		}
	}
	return body, nil
}

// MarshalJSON writes content as a string, as parts, or not at all (an
// assistant message that only calls tools).
func (m openAIMessage) MarshalJSON() ([]byte, error) {
	type plain openAIMessage // without this method
	var content any
	switch {
	case m.Parts != nil:
		content = m.Parts
	case m.Content != nil:
		content = *m.Content
	}
	return json.Marshal(struct {
		plain
		Content any `json:"content,omitempty"`
	}{plain(m), content})
}

// openAIParts is a user message with files: each image as a data URL, each
// document's text as a text part headed by the file's name, then the
// message's own text.
func openAIParts(m Message) []openAIPart {
	var parts []openAIPart
	for _, a := range m.Attachments {
		if a.Kind == AttachImage {
			parts = append(parts, openAIPart{Type: "image_url", ImageURL: &openAIImage{URL: "data:" + a.MIME + ";base64," + base64.StdEncoding.EncodeToString(a.Data)}})
			continue
		}
		parts = append(parts, openAIPart{Type: "text", Text: "<file name=\"" + a.Name + "\">\n" + a.Text + "\n</file>"})
	}
	if m.Text != "" {
		parts = append(parts, openAIPart{Type: "text", Text: m.Text})
	}
	return parts
}
