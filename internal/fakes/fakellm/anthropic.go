package fakellm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/jarvisbot/jarvisbot/internal/fakes/restapi"
)

// anthropicAPI is the Messages API wire format.
type anthropicAPI struct{}

func (anthropicAPI) name() string { return "anthropic" }

func (anthropicAPI) check(h http.Header) (int, string) {
	if h.Get("x-api-key") == "" && bearerToken(h) == "" {
		return http.StatusUnauthorized, "x-api-key header is required"
	}
	if h.Get("anthropic-version") == "" {
		return http.StatusBadRequest, "anthropic-version: header is required"
	}
	return 0, ""
}

type anthropicRequest struct {
	Model        string          `json:"model"`
	MaxTokens    *int            `json:"max_tokens"`
	System       json.RawMessage `json:"system"`
	Stream       bool            `json:"stream"`
	CacheControl json.RawMessage `json:"cache_control"`
	Messages     []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name         string          `json:"name"`
		CacheControl json.RawMessage `json:"cache_control"`
	} `json:"tools"`
}

type anthropicBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text"`
	ID           string          `json:"id"`
	ToolUseID    string          `json:"tool_use_id"`
	Content      json.RawMessage `json:"content"`
	CacheControl json.RawMessage `json:"cache_control"`
	Title        string          `json:"title"`
	Source       *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

// anthropicBlocks reads message content, which is a string or an array of
// blocks.
func anthropicBlocks(raw json.RawMessage) ([]anthropicBlock, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return []anthropicBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []anthropicBlock
	err := json.Unmarshal(raw, &blocks)
	return blocks, err
}

func (anthropicAPI) parse(body []byte, req *Request) error {
	var in anthropicRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return fmt.Errorf("invalid JSON body: %w", err)
	}
	req.Model, req.Stream = in.Model, in.Stream
	req.CacheControl = present(in.CacheControl)
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, t.Name)
		req.CacheControl = req.CacheControl || present(t.CacheControl)
	}

	var system []string
	if present(in.System) {
		blocks, err := anthropicBlocks(in.System)
		if err != nil {
			return fmt.Errorf("system: must be a string or a list of text blocks: %w", err)
		}
		for _, b := range blocks {
			system = append(system, b.Text)
			req.CacheControl = req.CacheControl || present(b.CacheControl)
		}
	}
	for i, m := range in.Messages {
		blocks, err := anthropicBlocks(m.Content)
		if err != nil {
			return fmt.Errorf("messages.%d.content: must be a string or a list of blocks: %w", i, err)
		}
		msg := Message{Role: m.Role}
		var texts []string
		for _, b := range blocks {
			req.CacheControl = req.CacheControl || present(b.CacheControl)
			switch b.Type {
			case "text":
				texts = append(texts, b.Text)
			case "tool_use":
				msg.ToolCallIDs = append(msg.ToolCallIDs, b.ID)
			case "tool_result":
				result, err := textOf(b.Content)
				if err != nil {
					return fmt.Errorf("messages.%d: tool_result content must be a string or a list of blocks: %w", i, err)
				}
				msg.ToolResultIDs = append(msg.ToolResultIDs, b.ToolUseID)
				msg.ToolResults = append(msg.ToolResults, result)
				req.CacheControl = req.CacheControl || nestedCacheControl(b.Content)
			case "image":
				if b.Source == nil || b.Source.Type != "base64" || !imageTypes[b.Source.MediaType] {
					return fmt.Errorf("messages.%d.content: an image needs a source of type base64 with media_type image/jpeg, image/png, image/gif or image/webp", i)
				}
				data, err := base64.StdEncoding.DecodeString(b.Source.Data)
				if err != nil {
					return fmt.Errorf("messages.%d.content: the image's data is not base64: %w", i, err)
				}
				msg.Images = append(msg.Images, Image{MediaType: b.Source.MediaType, Data: data})
			case "document":
				if b.Source == nil || b.Source.Type != "text" || b.Source.MediaType != "text/plain" {
					return fmt.Errorf("messages.%d.content: the fake takes a document with a text source (media_type text/plain) only", i)
				}
				msg.Documents = append(msg.Documents, Document{Name: b.Title, Text: b.Source.Data})
			}
		}
		msg.Text = strings.Join(texts, "\n")
		if m.Role == "system" {
			system = append(system, msg.Text)
			continue
		}
		req.Messages = append(req.Messages, msg)
	}
	req.System = strings.Join(system, "\n")

	switch {
	case in.Model == "":
		return fmt.Errorf("model: Field required")
	case in.MaxTokens == nil:
		return fmt.Errorf("max_tokens: Field required")
	case *in.MaxTokens < 1:
		return fmt.Errorf("max_tokens: must be greater than or equal to 1")
	case len(in.Messages) == 0:
		return fmt.Errorf("messages: at least one message is required")
	}
	return checkAnthropicPairing(req.Messages)
}

// nestedCacheControl reports cache_control on the blocks of a tool_result.
func nestedCacheControl(raw json.RawMessage) bool {
	var blocks []anthropicBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return false
	}
	for _, b := range blocks {
		if present(b.CacheControl) {
			return true
		}
	}
	return false
}

// checkAnthropicPairing rejects what the real API rejects: every tool_use
// must be answered by a tool_result in the very next message, and every
// tool_result must answer a tool_use of the message before it.
func checkAnthropicPairing(msgs []Message) error {
	for i, m := range msgs {
		var asked map[string]bool
		if i > 0 {
			asked = set(msgs[i-1].ToolCallIDs)
		}
		for _, id := range m.ToolResultIDs {
			if !asked[id] {
				return fmt.Errorf("messages.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, id)
			}
		}
		if len(m.ToolCallIDs) == 0 {
			continue
		}
		var answered map[string]bool
		if i+1 < len(msgs) {
			answered = set(msgs[i+1].ToolResultIDs)
		}
		var missing []string
		for _, id := range m.ToolCallIDs {
			if !answered[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, strings.Join(missing, ", "))
		}
	}
	return nil
}

func set(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

func (anthropicAPI) writeError(w http.ResponseWriter, status int, msg string, requestID string) {
	type detail struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	restapi.JSON(w, status, struct {
		Type      string `json:"type"`
		Error     detail `json:"error"`
		RequestID string `json:"request_id"`
	}{"error", detail{anthropicErrorType(status), msg}, requestID})
}

func anthropicErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 402:
		return "billing_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 408, 504:
		return "timeout_error"
	case 409:
		return "conflict_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

func anthropicStopReason(s Step) string {
	switch s.StopReason {
	case "":
		if len(s.ToolCalls) > 0 {
			return "tool_use"
		}
		return "end_turn"
	case "stop":
		return "end_turn"
	case "tool_calls":
		return "tool_use"
	case "length":
		return "max_tokens"
	case "content_filter":
		return "refusal"
	}
	return s.StopReason
}

type anthropicUsage struct {
	InputTokens              int    `json:"input_tokens"`
	OutputTokens             int    `json:"output_tokens"`
	CacheCreationInputTokens int    `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int    `json:"cache_read_input_tokens"`
	ServiceTier              string `json:"service_tier,omitempty"`
}

func anthropicUsageOf(u Usage) anthropicUsage {
	return anthropicUsage{
		InputTokens:              u.InputTokens,
		OutputTokens:             u.OutputTokens,
		CacheCreationInputTokens: u.CacheCreationTokens,
		CacheReadInputTokens:     u.CacheReadTokens,
		ServiceTier:              "standard",
	}
}

type anthropicMessage struct {
	ID           string           `json:"id"`
	Type         string           `json:"type"`
	Role         string           `json:"role"`
	Model        string           `json:"model"`
	Content      []map[string]any `json:"content"`
	StopReason   *string          `json:"stop_reason"`
	StopSequence *string          `json:"stop_sequence"`
	Usage        anthropicUsage   `json:"usage"`
}

func (anthropicAPI) writeMessage(w http.ResponseWriter, a answer) {
	content := []map[string]any{}
	if a.step.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": a.step.Text})
	}
	for i, tc := range a.step.ToolCalls {
		// The input of a whole message must be JSON, so malformed input goes
		// as a JSON string: the caller still sees input that is no object.
		var input any = json.RawMessage(tc.Input)
		if tc.Input == "" {
			input = json.RawMessage("{}")
		} else if !json.Valid([]byte(tc.Input)) {
			input = tc.Input
		}
		content = append(content, map[string]any{"type": "tool_use", "id": a.toolIDs[i], "name": tc.Name, "input": input})
	}
	stop := anthropicStopReason(a.step)
	restapi.JSON(w, http.StatusOK, anthropicMessage{
		ID: a.id, Type: "message", Role: "assistant", Model: a.req.Model,
		Content: content, StopReason: &stop, Usage: anthropicUsageOf(a.step.Usage),
	})
}

// writeStream sends the event sequence of the real API: message_start, ping,
// a start/delta…/stop triple per content block, message_delta, message_stop.
func (anthropicAPI) writeStream(w http.ResponseWriter, a answer, done <-chan struct{}) {
	startSSE(w)
	send := func(event string, v any) bool { return sse(w, event, mustJSON(v), done) }

	startUsage := anthropicUsageOf(a.step.Usage)
	startUsage.OutputTokens = min(1, a.step.Usage.OutputTokens)
	ok := send("message_start", map[string]any{"type": "message_start", "message": anthropicMessage{
		ID: a.id, Type: "message", Role: "assistant", Model: a.req.Model,
		Content: []map[string]any{}, Usage: startUsage,
	}}) && send("ping", map[string]any{"type": "ping"})

	index := 0
	block := func(start map[string]any, deltas []map[string]any) bool {
		if !send("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": start}) {
			return false
		}
		for _, d := range deltas {
			if !send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": d}) {
				return false
			}
		}
		ok := send("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
		return ok
	}
	if ok && a.step.Text != "" {
		var deltas []map[string]any
		for _, c := range textChunks(a.step.Text) {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": c})
		}
		ok = block(map[string]any{"type": "text", "text": ""}, deltas)
	}
	for i, tc := range a.step.ToolCalls {
		if !ok {
			return
		}
		var deltas []map[string]any
		for _, c := range thirds(tc.Input) {
			deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": c})
		}
		ok = block(map[string]any{"type": "tool_use", "id": a.toolIDs[i], "name": tc.Name, "input": map[string]any{}}, deltas)
	}
	if !ok {
		return
	}
	usage := anthropicUsageOf(a.step.Usage)
	usage.ServiceTier = ""
	_ = send("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": anthropicStopReason(a.step), "stop_sequence": nil},
		"usage": usage,
	}) && send("message_stop", map[string]any{"type": "message_stop"})
}
