package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropicBase is the Messages API's root when no BaseURL is set.
const anthropicBase = "https://api.anthropic.com"

type anthropicProvider struct {
	cfg    Config
	hc     *http.Client
	url    string
	header http.Header
}

func newAnthropic(cfg Config) *anthropicProvider {
	base := cfg.BaseURL
	if base == "" {
		base = anthropicBase
	}
	return &anthropicProvider{cfg: cfg, hc: newHTTPClient(cfg.HTTPClient, cfg.MaxRetries, cfg.clock, cfg.maxWait),
		url: strings.TrimSuffix(base, "/") + "/v1/messages",
		header: http.Header{
			"X-Api-Key":         {cfg.APIKey},
			"Anthropic-Version": {"2023-06-01"},
		}}
}

func (p *anthropicProvider) Name() string { return "anthropic " + p.cfg.Model }

// Who says which provider and model answer, as Response does.
func (p *anthropicProvider) Who() (provider, model string) { return "anthropic", p.cfg.Model }

// The Messages API's request and answer, as far as jarvisbot uses them.
type (
	anthropicRequest struct {
		Model     string             `json:"model"`
		MaxTokens int                `json:"max_tokens"`
		System    []anthropicBlock   `json:"system,omitempty"`
		Tools     []anthropicTool    `json:"tools,omitempty"`
		Messages  []anthropicMessage `json:"messages"`
	}
	anthropicTool struct {
		Name         string                     `json:"name"`
		Description  string                     `json:"description,omitempty"`
		InputSchema  map[string]json.RawMessage `json:"input_schema"`
		CacheControl *cacheControl              `json:"cache_control,omitempty"`
	}
	anthropicMessage struct {
		Role    string           `json:"role"`
		Content []anthropicBlock `json:"content"`
	}
	// anthropicBlock is a text, tool_use or tool_result block; each type
	// sets its own fields.
	anthropicBlock struct {
		Type         string          `json:"type"`
		Text         string          `json:"text,omitempty"`
		ID           string          `json:"id,omitempty"`
		Name         string          `json:"name,omitempty"`
		Input        json.RawMessage `json:"input,omitempty"`
		ToolUseID    string          `json:"tool_use_id,omitempty"`
		Content      string          `json:"content,omitempty"`
		IsError      bool            `json:"is_error,omitempty"`
		CacheControl *cacheControl   `json:"cache_control,omitempty"`
		// Source and Title are an image's or a document's.
		Source *anthropicSource `json:"source,omitempty"`
		Title  string           `json:"title,omitempty"`
	}
	// anthropicSource is an image (base64) or a document's text (text).
	anthropicSource struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	}
	cacheControl struct {
		Type string `json:"type"`
	}
	anthropicAnswer struct {
		Content    []anthropicBlock `json:"content"`
		StopReason string           `json:"stop_reason"`
		Usage      struct {
			InputTokens              int `json:"input_tokens"`
			OutputTokens             int `json:"output_tokens"`
			CacheReadInputTokens     int `json:"cache_read_input_tokens"`
			CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	}
)

// Complete sends one Messages call. The system prompt and the last tool of
// the cached prefix carry cache_control, so the stable part of every turn
// is read from Anthropic's prompt cache.
func (p *anthropicProvider) Complete(ctx context.Context, req Request) (Response, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	body, err := anthropicBody(p.cfg.Model, req)
	if err != nil {
		return Response{}, err
	}
	var msg anthropicAnswer
	if err := postJSON(ctx, p.hc, p.url, p.header, body, &msg); err != nil {
		return Response{}, failed(p.cfg.Provider, p.Name(), err)
	}
	var out Response
	var text []string
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Input: b.Input})
		}
	}
	out.Text = strings.Join(text, "\n")
	out.StopReason = msg.StopReason
	out.Usage = Usage{InputTokens: msg.Usage.InputTokens, OutputTokens: msg.Usage.OutputTokens,
		CacheReadTokens: msg.Usage.CacheReadInputTokens, CacheWriteTokens: msg.Usage.CacheCreationInputTokens}
	out.Provider, out.Model = p.Who()
	return out, nil
}

// anthropicBody translates req into the Messages API's request.
func anthropicBody(model string, req Request) (anthropicRequest, error) {
	ephemeral := &cacheControl{Type: "ephemeral"}
	body := anthropicRequest{Model: model, MaxTokens: max(req.MaxTokens, 1), Messages: []anthropicMessage{}}
	if req.System != "" {
		body.System = append(body.System, anthropicBlock{Type: "text", Text: req.System, CacheControl: ephemeral})
	}
	if req.SystemExtra != "" {
		body.System = append(body.System, anthropicBlock{Type: "text", Text: req.SystemExtra})
	}
	for i, t := range req.Tools {
		schema, err := anthropicSchema(t.Schema)
		if err != nil {
			return anthropicRequest{}, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		tool := anthropicTool{Name: t.Name, Description: t.Description, InputSchema: schema}
		if i == req.CachedTools-1 {
			tool.CacheControl = ephemeral
		}
		body.Tools = append(body.Tools, tool)
	}
	for _, m := range req.Messages {
		var blocks []anthropicBlock
		for _, r := range m.ToolResults {
			blocks = append(blocks, anthropicBlock{Type: "tool_result", ToolUseID: r.CallID, Content: r.Content, IsError: r.IsError})
		}
		// Files first: Anthropic reads a question best after what it asks about.
		for _, a := range m.Attachments {
			blocks = append(blocks, anthropicAttachment(a))
		}
		if m.Text != "" {
			blocks = append(blocks, anthropicBlock{Type: "text", Text: m.Text})
		}
		for _, c := range m.ToolCalls {
			input := c.Input
			var obj map[string]json.RawMessage
			if json.Unmarshal(c.Input, &obj) != nil || obj == nil {
				input = json.RawMessage(`{}`) // the model's broken input was answered with an error
			}
			blocks = append(blocks, anthropicBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: input})
		}
		if len(blocks) == 0 {
			continue
		}
		role := RoleUser
		if m.Role == RoleAssistant {
			role = RoleAssistant
		}
		body.Messages = append(body.Messages, anthropicMessage{Role: role, Content: blocks})
	}
	return body, nil
}

// anthropicAttachment is an image block with its bytes in base64, or a
// document block holding the text read from the file, titled with its name.
func anthropicAttachment(a Attachment) anthropicBlock {
	if a.Kind == AttachImage {
		return anthropicBlock{Type: "image", Source: &anthropicSource{Type: "base64", MediaType: a.MIME, Data: base64.StdEncoding.EncodeToString(a.Data)}}
	}
	return anthropicBlock{Type: "document", Title: a.Name, Source: &anthropicSource{Type: "text", MediaType: "text/plain", Data: a.Text}}
}

// anthropicSchema is a tool's schema as the Messages API takes it: always
// "type": "object", only the string entries of "required", every other
// member as the tool gave it.
func anthropicSchema(raw json.RawMessage) (map[string]json.RawMessage, error) {
	m, err := schemaObject(raw)
	if err != nil {
		return nil, err
	}
	m["type"] = json.RawMessage(`"object"`)
	if req, ok := m["required"]; ok {
		var list []any
		_ = json.Unmarshal(req, &list) // not a list: no names
		var names []string
		for _, r := range list {
			if s, ok := r.(string); ok {
				names = append(names, s)
			}
		}
		delete(m, "required")
		if len(names) > 0 {
			m["required"], _ = json.Marshal(names) // strings always marshal
		}
	}
	return m, nil
}
