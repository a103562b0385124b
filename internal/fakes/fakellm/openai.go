package fakellm

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/fakes/restapi"
)

// openaiAPI is the Chat Completions wire format.
type openaiAPI struct{}

func (openaiAPI) name() string { return "openai" }

func (openaiAPI) check(h http.Header) (int, string) {
	if bearerToken(h) == "" {
		return http.StatusUnauthorized, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
	}
	return 0, ""
}

type openaiRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
		Custom struct {
			Name string `json:"name"`
		} `json:"custom"`
	} `json:"tools"`
}

func (openaiAPI) parse(body []byte, req *Request) error {
	var in openaiRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return fmt.Errorf("We could not parse the JSON body of your request: %w", err)
	}
	req.Model, req.Stream = in.Model, in.Stream
	for _, t := range in.Tools {
		if t.Type == "custom" {
			req.Tools = append(req.Tools, t.Custom.Name)
		} else {
			req.Tools = append(req.Tools, t.Function.Name)
		}
	}
	var system []string
	for i, m := range in.Messages {
		text, err := textOf(m.Content)
		if err != nil {
			return fmt.Errorf("Invalid type for 'messages[%d].content': expected a string or an array of content parts: %w", i, err)
		}
		images, err := openaiImages(m.Content)
		if err != nil {
			return fmt.Errorf("Invalid 'messages[%d].content': %w", i, err)
		}
		switch m.Role {
		case "system", "developer":
			system = append(system, text)
			continue
		}
		msg := Message{Role: m.Role, Text: text, Images: images}
		for _, tc := range m.ToolCalls {
			msg.ToolCallIDs = append(msg.ToolCallIDs, tc.ID)
		}
		if m.Role == "tool" {
			msg.Text = ""
			msg.ToolResultIDs = []string{m.ToolCallID}
			msg.ToolResults = []string{text}
		}
		req.Messages = append(req.Messages, msg)
	}
	req.System = strings.Join(system, "\n")

	switch {
	case in.Model == "":
		return fmt.Errorf("you must provide a model parameter")
	case len(in.Messages) == 0:
		return fmt.Errorf("[] is too short - 'messages'")
	}
	return checkOpenAIPairing(req.Messages)
}

// checkOpenAIPairing rejects what the real API rejects: an assistant message
// with tool_calls must be followed by one tool message per call id, and a
// tool message must answer such a call.
func checkOpenAIPairing(msgs []Message) error {
	var pending map[string]bool // calls of the last assistant message not yet answered
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		var missing []string
		for id := range pending {
			missing = append(missing, id)
		}
		return fmt.Errorf("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(missing, ", "))
	}
	var open bool // the previous messages are an assistant's tool_calls and their answers
	for i, m := range msgs {
		if m.Role == "tool" {
			if !open || len(m.ToolResultIDs) == 0 {
				return fmt.Errorf("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")
			}
			id := m.ToolResultIDs[0]
			if !pending[id] {
				return fmt.Errorf("Invalid parameter: 'tool_call_id' of '%s' not found in 'tool_calls' of previous message (messages[%d]).", id, i)
			}
			delete(pending, id)
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		open = len(m.ToolCallIDs) > 0
		pending = set(m.ToolCallIDs)
	}
	return flush()
}

func (openaiAPI) writeError(w http.ResponseWriter, status int, msg string, requestID string) {
	typ, code := "invalid_request_error", any(nil)
	switch {
	case status == http.StatusUnauthorized && strings.HasPrefix(msg, "You didn't provide"):
	case status == http.StatusUnauthorized:
		code = "invalid_api_key"
	case status == http.StatusNotFound:
		code = "unknown_url"
	case status == http.StatusTooManyRequests:
		typ, code = "requests", "rate_limit_exceeded"
	case status >= 500:
		typ = "server_error"
	}
	type detail struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Param   any    `json:"param"`
		Code    any    `json:"code"`
	}
	restapi.JSON(w, status, struct {
		Error detail `json:"error"`
	}{detail{msg, typ, nil, code}})
}

func openaiFinishReason(s Step) string {
	switch s.StopReason {
	case "":
		if len(s.ToolCalls) > 0 {
			return "tool_calls"
		}
		return "stop"
	case "end_turn", "stop_sequence":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens":
		return "length"
	case "refusal":
		return "content_filter"
	}
	return s.StopReason
}

type openaiUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
		AudioTokens  int `json:"audio_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens          int `json:"reasoning_tokens"`
		AudioTokens              int `json:"audio_tokens"`
		AcceptedPredictionTokens int `json:"accepted_prediction_tokens"`
		RejectedPredictionTokens int `json:"rejected_prediction_tokens"`
	} `json:"completion_tokens_details"`
}

func openaiUsageOf(u Usage) *openaiUsage {
	var out openaiUsage
	out.PromptTokens = u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens
	out.CompletionTokens = u.OutputTokens
	out.TotalTokens = out.PromptTokens + out.CompletionTokens
	out.PromptTokensDetails.CachedTokens = u.CacheReadTokens
	return &out
}

type openaiFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type openaiToolCall struct {
	Index    *int           `json:"index,omitempty"` // chunks only
	ID       string         `json:"id,omitempty"`
	Type     string         `json:"type,omitempty"`
	Function openaiFunction `json:"function"`
}

type openaiMessage struct {
	Role        string           `json:"role,omitempty"`
	Content     *string          `json:"content,omitempty"`
	Refusal     *string          `json:"refusal,omitempty"`
	ToolCalls   []openaiToolCall `json:"tool_calls,omitempty"`
	Annotations []any            `json:"annotations,omitempty"`
}

type openaiChoice struct {
	Index        int            `json:"index"`
	Message      *openaiMessage `json:"message,omitempty"`
	Delta        *openaiMessage `json:"delta,omitempty"`
	Logprobs     any            `json:"logprobs"`
	FinishReason *string        `json:"finish_reason"`
}

type openaiCompletion struct {
	ID                string         `json:"id"`
	Object            string         `json:"object"`
	Created           int64          `json:"created"`
	Model             string         `json:"model"`
	Choices           []openaiChoice `json:"choices"`
	Usage             *openaiUsage   `json:"usage,omitempty"`
	ServiceTier       string         `json:"service_tier"`
	SystemFingerprint string         `json:"system_fingerprint"`
}

func openaiArguments(tc ToolCall) string {
	if tc.Input == "" {
		return "{}"
	}
	return tc.Input
}

func (openaiAPI) writeMessage(w http.ResponseWriter, a answer) {
	msg := &openaiMessage{Role: "assistant", Annotations: []any{}}
	if a.step.Text != "" || len(a.step.ToolCalls) == 0 {
		msg.Content = &a.step.Text
	}
	for i, tc := range a.step.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, openaiToolCall{
			ID: a.toolIDs[i], Type: "function",
			Function: openaiFunction{Name: tc.Name, Arguments: openaiArguments(tc)},
		})
	}
	finish := openaiFinishReason(a.step)
	restapi.JSON(w, http.StatusOK, openaiCompletion{
		ID: a.id, Object: "chat.completion", Created: time.Now().Unix(), Model: a.req.Model,
		Choices: []openaiChoice{{Message: msg, FinishReason: &finish}},
		Usage:   openaiUsageOf(a.step.Usage), ServiceTier: "default", SystemFingerprint: "fp_fakellm",
	})
}

// writeStream sends "data: {chunk}" lines: a role chunk, content deltas, per
// tool call a chunk with id and name then argument fragments, a chunk with
// the finish_reason, the usage chunk (only when stream_options.include_usage
// asks for it, as the real API does), and "data: [DONE]".
func (openaiAPI) writeStream(w http.ResponseWriter, a answer, done <-chan struct{}) {
	var in openaiRequest
	_ = json.Unmarshal(a.body, &in) // parse already accepted the body
	created := time.Now().Unix()
	startSSE(w)
	send := func(delta *openaiMessage, finish *string) bool {
		return sse(w, "", mustJSON(openaiCompletion{
			ID: a.id, Object: "chat.completion.chunk", Created: created, Model: a.req.Model,
			Choices:     []openaiChoice{{Delta: delta, FinishReason: finish}},
			ServiceTier: "default", SystemFingerprint: "fp_fakellm",
		}), done)
	}
	empty := ""
	first := &openaiMessage{Role: "assistant", Content: &empty}
	if !send(first, nil) {
		return
	}
	for _, c := range textChunks(a.step.Text) {
		if !send(&openaiMessage{Content: &c}, nil) {
			return
		}
	}
	for i, tc := range a.step.ToolCalls {
		index := i
		head := openaiToolCall{Index: &index, ID: a.toolIDs[i], Type: "function", Function: openaiFunction{Name: tc.Name}}
		if !send(&openaiMessage{ToolCalls: []openaiToolCall{head}}, nil) {
			return
		}
		for _, c := range thirds(openaiArguments(tc)) {
			frag := openaiToolCall{Index: &index, Function: openaiFunction{Arguments: c}}
			if !send(&openaiMessage{ToolCalls: []openaiToolCall{frag}}, nil) {
				return
			}
		}
	}
	finish := openaiFinishReason(a.step)
	if !send(&openaiMessage{}, &finish) {
		return
	}
	if in.StreamOptions.IncludeUsage {
		if !sse(w, "", mustJSON(openaiCompletion{
			ID: a.id, Object: "chat.completion.chunk", Created: created, Model: a.req.Model,
			Choices: []openaiChoice{}, Usage: openaiUsageOf(a.step.Usage),
			ServiceTier: "default", SystemFingerprint: "fp_fakellm",
		}), done) {
			return
		}
	}
	sse(w, "", []byte("[DONE]"), done)
}

// openaiImages reads the image_url parts of content given as parts; each
// must be a base64 data URL of an image type the API takes (the fake
// fetches no links).
func openaiImages(raw json.RawMessage) ([]Image, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil, nil
	}
	var parts []struct {
		Type     string `json:"type"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, err
	}
	var out []Image
	for _, p := range parts {
		if p.Type != "image_url" {
			continue
		}
		if p.ImageURL == nil {
			return nil, fmt.Errorf("an image_url part needs image_url.url")
		}
		meta, data, ok := strings.Cut(strings.TrimPrefix(p.ImageURL.URL, "data:"), ",")
		mt, isBase64 := strings.CutSuffix(meta, ";base64")
		if !ok || !isBase64 || !strings.HasPrefix(p.ImageURL.URL, "data:") || !imageTypes[mt] {
			return nil, fmt.Errorf("the fake takes images as base64 data URLs of image/jpeg, image/png, image/gif or image/webp only")
		}
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return nil, fmt.Errorf("the image's data URL is not base64: %w", err)
		}
		out = append(out, Image{MediaType: mt, Data: b})
	}
	return out, nil
}
