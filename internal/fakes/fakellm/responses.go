package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/fakes/restapi"
)

// responsesAPI is the OpenAI Responses API wire format (POST /v1/responses),
// the only one the Codex CLI speaks.
type responsesAPI struct{}

func (responsesAPI) name() string { return "responses" }

func (responsesAPI) check(h http.Header) (int, string) { return openaiAPI{}.check(h) }

func (responsesAPI) writeError(w http.ResponseWriter, status int, msg string, requestID string) {
	openaiAPI{}.writeError(w, status, msg, requestID)
}

type responsesRequest struct {
	Model        string          `json:"model"`
	Instructions string          `json:"instructions"`
	Stream       bool            `json:"stream"`
	Input        json.RawMessage `json:"input"`
	Tools        []responsesTool `json:"tools"`
}

// responsesTool is a tool offered: a function, a custom (freeform) tool, a
// hosted tool such as web_search (which has only a type), or a namespace
// that groups tools, as Codex offers each MCP server's tools.
type responsesTool struct {
	Type  string          `json:"type"`
	Name  string          `json:"name"`
	Tools []responsesTool `json:"tools"`
}

// responsesItem is one input item: a message, a call the model made, or
// the output of one.
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Output    json.RawMessage `json:"output"`
}

// namespacedName is how a tool inside a namespace is recorded in
// Request.Tools and scripted in ToolCall.Name: Codex names an MCP tool
// "mcp__SERVER__TOOL" and offers it as tool TOOL of namespace
// "mcp__SERVER", so the one name scripts Claude Code and Codex alike.
func namespacedName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "__" + name
}

// responsesToolNames flattens the offered tools into their scripted names, mapping
// each namespaced name to its namespace.
func responsesToolNames(tools []responsesTool) (names []string, namespaces map[string]string) {
	namespaces = map[string]string{}
	for _, t := range tools {
		switch {
		case t.Type == "namespace":
			for _, inner := range t.Tools {
				full := namespacedName(t.Name, inner.Name)
				names = append(names, full)
				namespaces[full] = t.Name
			}
		case t.Name != "":
			names = append(names, t.Name)
		default:
			names = append(names, t.Type) // hosted tools (web_search) have no name
		}
	}
	return names, namespaces
}

func (responsesAPI) parse(body []byte, req *Request) error {
	var in responsesRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return fmt.Errorf("We could not parse the JSON body of your request: %w", err)
	}
	req.Model, req.Stream = in.Model, in.Stream
	req.Tools, _ = responsesToolNames(in.Tools)

	var system []string
	if in.Instructions != "" {
		system = append(system, in.Instructions)
	}
	var items []responsesItem
	if raw := bytes.TrimSpace(in.Input); len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("Invalid 'input': %w", err)
		}
		items = []responsesItem{{Type: "message", Role: "user", Content: raw}}
	} else if present(raw) {
		if err := json.Unmarshal(raw, &items); err != nil {
			return fmt.Errorf("Invalid type for 'input': expected a string or an array of input items: %w", err)
		}
	}
	for i, it := range items {
		switch it.Type {
		case "message", "":
			text, err := textOf(it.Content, "input_text", "output_text", "text")
			if err != nil {
				return fmt.Errorf("Invalid type for 'input[%d].content': expected a string or an array of content parts: %w", i, err)
			}
			if it.Role == "system" || it.Role == "developer" {
				system = append(system, text)
				continue
			}
			req.Messages = append(req.Messages, Message{Role: it.Role, Text: text})
		case "function_call", "custom_tool_call":
			// The calls of one model turn follow its message, if any: they
			// are one assistant message, as the other APIs record them.
			n := len(req.Messages)
			if n == 0 || req.Messages[n-1].Role != "assistant" {
				req.Messages = append(req.Messages, Message{Role: "assistant"})
				n++
			}
			req.Messages[n-1].ToolCallIDs = append(req.Messages[n-1].ToolCallIDs, it.CallID)
		case "function_call_output", "custom_tool_call_output":
			text, err := textOf(it.Output, "input_text", "output_text", "text")
			if err != nil {
				return fmt.Errorf("Invalid type for 'input[%d].output': expected a string or an array of content parts: %w", i, err)
			}
			req.Messages = append(req.Messages, Message{Role: "tool", ToolResultIDs: []string{it.CallID}, ToolResults: []string{text}})
		}
	}
	req.System = strings.Join(system, "\n")

	switch {
	case in.Model == "":
		return fmt.Errorf("Missing required parameter: 'model'.")
	case len(items) == 0:
		return fmt.Errorf("Missing required parameter: 'input'.")
	}
	return checkResponsesPairing(req.Messages)
}

// checkResponsesPairing rejects what the real API rejects when nothing is
// stored server-side (Codex sends store:false): every call's output must
// answer a call earlier in the input, and every call must be answered.
func checkResponsesPairing(msgs []Message) error {
	called, answered := map[string]bool{}, map[string]bool{}
	for _, m := range msgs {
		for _, id := range m.ToolResultIDs {
			if !called[id] {
				return fmt.Errorf("No tool call found for function call output with call_id %s.", id)
			}
			answered[id] = true
		}
		for _, id := range m.ToolCallIDs {
			called[id] = true
		}
	}
	for _, m := range msgs {
		for _, id := range m.ToolCallIDs {
			if !answered[id] {
				return fmt.Errorf("No tool output found for function call %s.", id)
			}
		}
	}
	return nil
}

type responsesUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

// responsesUsageOf counts input like Chat Completions' prompt_tokens: the
// sum, with CacheReadTokens as the cached part.
func responsesUsageOf(u Usage) *responsesUsage {
	var out responsesUsage
	out.InputTokens = u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens
	out.InputTokensDetails.CachedTokens = u.CacheReadTokens
	out.OutputTokens = u.OutputTokens
	out.TotalTokens = out.InputTokens + out.OutputTokens
	return &out
}

// responsesStatus is the response's status and, when it is "incomplete",
// the reason, from the Step's stop reason in either provider's vocabulary.
func responsesStatus(s Step) (status, reason string) {
	switch s.StopReason {
	case "max_tokens", "length", "max_output_tokens":
		return "incomplete", "max_output_tokens"
	case "refusal", "content_filter":
		return "incomplete", "content_filter"
	}
	return "completed", ""
}

type responsesContent struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
}

// responsesOutput is one output item: an assistant message or a
// function call.
type responsesOutput struct {
	ID        string             `json:"id"`
	Type      string             `json:"type"`
	Status    string             `json:"status"`
	Role      string             `json:"role,omitempty"`
	Content   []responsesContent `json:"content,omitzero"` // an empty list stays: Codex needs it to parse the item
	CallID    string             `json:"call_id,omitempty"`
	Name      string             `json:"name,omitempty"`
	Namespace string             `json:"namespace,omitempty"`
	Arguments *string            `json:"arguments,omitempty"`
}

type responsesResponse struct {
	ID                string            `json:"id"`
	Object            string            `json:"object"`
	CreatedAt         int64             `json:"created_at"`
	Status            string            `json:"status"`
	Model             string            `json:"model"`
	Output            []responsesOutput `json:"output"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error             any             `json:"error"`
	ParallelToolCalls bool            `json:"parallel_tool_calls"`
	ToolChoice        string          `json:"tool_choice"`
	Tools             []any           `json:"tools"`
	Usage             *responsesUsage `json:"usage,omitempty"`
}

// output renders the Step as output items: the message first, then one
// function_call per tool call, named inside its namespace when the
// request offered it in one.
func (r responsesAPI) output(a answer) []responsesOutput {
	var in responsesRequest
	_ = json.Unmarshal(a.body, &in) // parse already accepted the body
	_, namespaces := responsesToolNames(in.Tools)
	var out []responsesOutput
	if a.step.Text != "" || len(a.step.ToolCalls) == 0 {
		out = append(out, responsesOutput{
			ID: "msg_" + a.id, Type: "message", Status: "completed", Role: "assistant",
			Content: []responsesContent{{Type: "output_text", Text: a.step.Text, Annotations: []any{}}},
		})
	}
	for i, tc := range a.step.ToolCalls {
		name, ns := tc.Name, namespaces[tc.Name]
		if ns != "" {
			name = strings.TrimPrefix(tc.Name, ns+"__")
		}
		args := openaiArguments(tc)
		out = append(out, responsesOutput{
			ID: fmt.Sprintf("fc_%s_%d", a.id, i), Type: "function_call", Status: "completed",
			CallID: a.toolIDs[i], Name: name, Namespace: ns, Arguments: &args,
		})
	}
	return out
}

func (r responsesAPI) response(a answer, created int64, output []responsesOutput, final bool) responsesResponse {
	resp := responsesResponse{
		ID: a.id, Object: "response", CreatedAt: created, Status: "in_progress", Model: a.req.Model,
		Output: []responsesOutput{}, ParallelToolCalls: true, ToolChoice: "auto", Tools: []any{},
	}
	if !final {
		return resp
	}
	status, reason := responsesStatus(a.step)
	resp.Status, resp.Output, resp.Usage = status, output, responsesUsageOf(a.step.Usage)
	if reason != "" {
		resp.IncompleteDetails = &struct {
			Reason string `json:"reason"`
		}{reason}
	}
	return resp
}

func (r responsesAPI) writeMessage(w http.ResponseWriter, a answer) {
	restapi.JSON(w, http.StatusOK, r.response(a, time.Now().Unix(), r.output(a), true))
}

// writeStream sends the events of the real API, each with its type as the
// event name and a sequence_number: response.created, response.in_progress;
// per message output_item.added, content_part.added, output_text.delta…,
// output_text.done, content_part.done, output_item.done; per function call
// output_item.added, function_call_arguments.delta…,
// function_call_arguments.done, output_item.done; and response.completed
// (response.incomplete for a truncated answer) with the whole output and
// the usage.
func (r responsesAPI) writeStream(w http.ResponseWriter, a answer, done <-chan struct{}) {
	created := time.Now().Unix()
	output := r.output(a)
	startSSE(w)
	seq := 0
	send := func(typ string, fields map[string]any) bool {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		return sse(w, typ, mustJSON(fields), done)
	}
	if !send("response.created", map[string]any{"response": r.response(a, created, nil, false)}) ||
		!send("response.in_progress", map[string]any{"response": r.response(a, created, nil, false)}) {
		return
	}
	for i, item := range output {
		started := item
		started.Status = "in_progress"
		if item.Type == "message" {
			started.Content = []responsesContent{}
		} else {
			empty := ""
			started.Arguments = &empty
		}
		if !send("response.output_item.added", map[string]any{"output_index": i, "item": started}) {
			return
		}
		if item.Type == "message" {
			text := item.Content[0].Text
			part := func(text string) responsesContent {
				return responsesContent{Type: "output_text", Text: text, Annotations: []any{}}
			}
			at := map[string]any{"item_id": item.ID, "output_index": i, "content_index": 0}
			with := func(k string, v any) map[string]any {
				m := map[string]any{k: v}
				for key, val := range at {
					m[key] = val
				}
				return m
			}
			if !send("response.content_part.added", with("part", part(""))) {
				return
			}
			for _, c := range textChunks(text) {
				if !send("response.output_text.delta", with("delta", c)) {
					return
				}
			}
			if !send("response.output_text.done", with("text", text)) ||
				!send("response.content_part.done", with("part", part(text))) {
				return
			}
		} else {
			for _, c := range thirds(*item.Arguments) {
				if !send("response.function_call_arguments.delta", map[string]any{"item_id": item.ID, "output_index": i, "delta": c}) {
					return
				}
			}
			if !send("response.function_call_arguments.done", map[string]any{"item_id": item.ID, "output_index": i, "arguments": *item.Arguments}) {
				return
			}
		}
		if !send("response.output_item.done", map[string]any{"output_index": i, "item": item}) {
			return
		}
	}
	final := r.response(a, created, output, true)
	event := "response.completed"
	if final.Status == "incomplete" {
		event = "response.incomplete"
	}
	send(event, map[string]any{"response": final})
}
