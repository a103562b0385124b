// Package fakellm is an in-process, scripted LLM HTTP server for tests.
//
// It speaks the wire formats of the Anthropic Messages API (POST /v1/messages,
// as the Claude Code CLI calls it too), the OpenAI Chat Completions API
// (POST /v1/chat/completions) and the OpenAI Responses API
// (POST /v1/responses, the one the Codex CLI speaks), each non-streaming
// and streaming, so that code under test drives the real SDK clients and
// CLIs instead of a mock of them.
//
// Data flows one way: a test pushes Steps; every model call that reaches the
// server is recorded as a Request, checked the way the real API checks it
// (key, required fields, tool call/result pairing), and then answered with the
// next Step, shaped for the API that was called. A call with no Step left gets
// a 500 naming the request, which the SDKs are told not to retry.
//
// It serves the tests of A2 and A3.
package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jarvisbot/jarvisbot/internal/fakes/restapi"
)

// Step is one scripted answer of the model.
type Step struct {
	// Text is the assistant text; it may be empty when ToolCalls are given.
	// With Status set, a non-empty Text is the error message instead.
	Text string
	// ToolCalls become tool_use blocks (Anthropic), tool_calls (OpenAI) or
	// function_call output items (Responses).
	ToolCalls []ToolCall
	// Status, when non-zero, answers this HTTP status with the provider's
	// error body. 408, 409, 429 and 5xx carry "retry-after: 0", so SDK
	// retries are immediate.
	Status int
	// Delay waits before answering, or until the request context ends.
	Delay time.Duration
	// Hang never answers; the handler returns once the request context ends.
	Hang bool
	// Release, when not nil, holds the answer until it is closed (or the
	// request context ends): the test lets the model answer exactly when
	// it is ready, e.g. once a shutdown has begun, instead of guessing a
	// Delay long enough.
	Release <-chan struct{}
	// StopReason overrides the default ("end_turn"/"stop" for text,
	// "tool_use"/"tool_calls" for tool calls). The well-known values of
	// either provider are translated to the other's vocabulary, so
	// "max_tokens" and "length" both mean a truncated answer on both APIs.
	StopReason string
	// Usage is reported as given.
	Usage Usage
}

// ToolCall is one tool invocation the model asks for.
type ToolCall struct {
	// ID defaults to a generated "toolu_…" (Anthropic) or "call_…" (OpenAI,
	// Responses).
	ID string
	// Name is the tool's name as offered. A tool the Responses API request
	// offered inside a namespace (Codex offers each MCP server's tools as
	// namespace "mcp__SERVER") is named "NAMESPACE__TOOL", the name Claude
	// Code gives the same MCP tool, and answered as a function_call of TOOL
	// with "namespace":"NAMESPACE".
	Name string
	// Input is the raw JSON arguments; empty means "{}". It may be
	// deliberately malformed: OpenAI arguments and Anthropic streamed
	// partial_json carry it verbatim, and a non-streaming Anthropic answer,
	// whose input must be JSON, carries it as a JSON string.
	Input string
}

// Usage is the token counts a Step reports. OpenAI's prompt_tokens is their
// sum, with CacheReadTokens as prompt_tokens_details.cached_tokens.
type Usage struct {
	InputTokens, OutputTokens, CacheReadTokens, CacheCreationTokens int
}

// Request is one HTTP request the server received, parsed for assertions.
type Request struct {
	API    string // "anthropic", "openai" (Chat Completions) or "responses"
	Path   string
	Header http.Header
	Body   json.RawMessage // the exact request body bytes
	Model  string
	// System is the system prompt: Anthropic system blocks, OpenAI
	// system/developer messages, or the Responses API's instructions and
	// system/developer input messages, joined with "\n". System-role
	// messages are not repeated in Messages.
	System string
	// Messages is the conversation as the provider got it, one entry per
	// provider message. Responses API input items are recorded like Chat
	// Completions messages: the function_call items of one model turn are
	// one assistant message, each function_call_output a "tool" message.
	Messages []Message
	// Tools are the tool names offered, in order; a namespaced Responses
	// tool as "NAMESPACE__TOOL" (see ToolCall.Name), a hosted one (such as
	// web_search) by its type.
	Tools  []string
	Stream bool
	// CacheControl is true when the request, a system block, a tool or a
	// message block carried cache_control (Anthropic only).
	CacheControl bool
}

// Message is one provider message, normalised across both APIs.
type Message struct {
	Role          string   // "user", "assistant", or "tool" (OpenAI tool messages, Responses call outputs)
	Text          string   // text blocks/parts joined with "\n"
	ToolCallIDs   []string // tool_use ids / tool_calls ids the assistant made
	ToolResultIDs []string // tool_use_id / tool_call_id answered
	ToolResults   []string // text of each result, parallel to ToolResultIDs
	// Images are the images the message carries: Anthropic image blocks
	// with a base64 source, OpenAI image_url parts with a data URL.
	Images []Image
	// Documents are the files' texts it carries: Anthropic document
	// blocks with a text source (Name its title); OpenAI has none, a
	// file's text comes as a text part within Text.
	Documents []Document
}

// Image is one image a message carried, decoded.
type Image struct {
	MediaType string
	Data      []byte
}

// Document is one document block's text.
type Document struct {
	Name, Text string
}

// imageTypes are the media types both APIs take for an image.
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL, e.g. http://127.0.0.1:PORT.
	URL string

	srv       *httptest.Server
	done      chan struct{} // closed by Close, to release hanging handlers
	closeOnce sync.Once
	seq       atomic.Int64 // for ids

	mu        sync.Mutex
	steps     []Step
	requests  []Request
	responder func(Request) Step
}

// Cleaner is what the server needs of whoever runs it: a *testing.T, or
// a program that serves it outside a test (scripts/footprint).
type Cleaner interface{ Cleanup(func()) }

// New starts a server; t.Cleanup closes it.
func New(t Cleaner) *Server {
	s := &Server{done: make(chan struct{})}
	s.srv = httptest.NewServer(s)
	s.URL = s.srv.URL
	t.Cleanup(s.Close)
	return s
}

// AnthropicURL is the base URL for the Anthropic SDK's option.WithBaseURL;
// the SDK appends "v1/messages".
func (s *Server) AnthropicURL() string { return s.URL }

// OpenAIURL is the base URL for the OpenAI SDK's option.WithBaseURL and a
// Codex model provider's base_url; they append "chat/completions" or
// "responses", so it ends in "/v1" like the real one.
func (s *Server) OpenAIURL() string { return s.URL + "/v1" }

// Push appends steps to the script.
func (s *Server) Push(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, steps...)
}

// Respond answers every request no pushed step is left for with f's
// step for it: a model that answers what it is asked, for load tests
// where the order requests arrive in is not known.
func (s *Server) Respond(f func(Request) Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responder = f
}

// LastUser is the text of the request's last user message.
func (r Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Text
		}
	}
	return ""
}

// Pending reports how many pushed steps no call has used yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps)
}

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []Request { return restapi.Copy(&s.mu, &s.requests) }

// Close releases hanging handlers and shuts the server down. It is
// idempotent.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.srv.Close()
	})
}

// dialect is one provider's wire format.
type dialect interface {
	name() string
	// check validates the headers, returning the status and message of the
	// provider's refusal, or 0.
	check(h http.Header) (int, string)
	// parse fills the parsed fields of req from body and validates it the way
	// the provider would; an error is answered with a 400.
	parse(body []byte, req *Request) error
	writeError(w http.ResponseWriter, status int, msg string, requestID string)
	writeMessage(w http.ResponseWriter, a answer)
	writeStream(w http.ResponseWriter, a answer, done <-chan struct{})
}

// answer is everything a dialect needs to render a Step.
type answer struct {
	step      Step
	req       *Request
	id        string
	requestID string
	toolIDs   []string // one per step.ToolCalls, defaults filled in
	body      []byte
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var d dialect
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		d = anthropicAPI{}
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		d = openaiAPI{}
	case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
		d = responsesAPI{}
	}
	requestID := s.newID("req_")
	if d == nil {
		msg := fmt.Sprintf("fakellm serves POST /v1/messages, /v1/chat/completions and /v1/responses, not %s %s", r.Method, r.URL.Path)
		if r.Header.Get("anthropic-version") != "" {
			anthropicAPI{}.writeError(w, http.StatusNotFound, msg, requestID)
		} else {
			openaiAPI{}.writeError(w, http.StatusNotFound, msg, requestID)
		}
		return
	}

	if d.name() == "anthropic" {
		w.Header().Set("request-id", requestID)
	} else {
		w.Header().Set("x-request-id", requestID)
	}

	body, err := io.ReadAll(r.Body)
	if err != nil {
		d.writeError(w, http.StatusBadRequest, "fakellm could not read the request body: "+err.Error(), requestID)
		return
	}
	req := Request{API: d.name(), Path: r.URL.Path, Header: r.Header.Clone(), Body: json.RawMessage(body)}
	parseErr := d.parse(body, &req)
	n := s.record(req)

	if status, msg := d.check(r.Header); status != 0 {
		d.writeError(w, status, msg, requestID)
		return
	}
	if parseErr != nil {
		d.writeError(w, http.StatusBadRequest, parseErr.Error(), requestID)
		return
	}
	step, ok := s.pop()
	if !ok {
		step, ok = s.respond(req)
	}
	if !ok {
		w.Header().Set("x-should-retry", "false")
		d.writeError(w, http.StatusInternalServerError, fmt.Sprintf(
			"fakellm: no scripted step left for request #%d (%s %s, model %q, last message %q); Push a Step before the model is called",
			n, d.name(), req.Path, req.Model, lastText(req.Messages)), requestID)
		return
	}
	if !s.wait(r, step) {
		return
	}
	if step.Status != 0 {
		msg := step.Text
		if msg == "" {
			msg = fmt.Sprintf("fakellm: scripted %d %s", step.Status, http.StatusText(step.Status))
		}
		if retryable(step.Status) {
			w.Header().Set("retry-after", "0")
		}
		d.writeError(w, step.Status, msg, requestID)
		return
	}

	a := answer{step: step, req: &req, requestID: requestID, body: body}
	switch d.name() {
	case "anthropic":
		a.id = s.newID("msg_")
	case "responses":
		a.id = s.newID("resp_")
	default:
		a.id = s.newID("chatcmpl-")
	}
	for _, tc := range step.ToolCalls {
		id := tc.ID
		if id == "" && d.name() == "anthropic" {
			id = s.newID("toolu_")
		} else if id == "" {
			id = s.newID("call_")
		}
		a.toolIDs = append(a.toolIDs, id)
	}
	if req.Stream {
		d.writeStream(w, a, s.done)
		return
	}
	d.writeMessage(w, a)
}

// record appends req and returns its 1-based number.
func (s *Server) record(req Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	return len(s.requests)
}

func (s *Server) pop() (Step, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.steps) == 0 {
		return Step{}, false
	}
	step := s.steps[0]
	s.steps = s.steps[1:]
	return step, true
}

func (s *Server) respond(req Request) (Step, bool) {
	s.mu.Lock()
	f := s.responder
	s.mu.Unlock()
	if f == nil {
		return Step{}, false
	}
	return f(req), true
}

// wait applies the step's Hang, Release or Delay; false means the
// request ended first and nothing should be written.
func (s *Server) wait(r *http.Request, step Step) bool {
	var timeout <-chan time.Time
	switch {
	case step.Hang:
		step.Release = nil
	case step.Release != nil:
	case step.Delay > 0:
		t := time.NewTimer(step.Delay)
		defer t.Stop()
		timeout = t.C
	default:
		return true
	}
	select {
	case <-timeout:
		return true
	case <-step.Release:
		return true
	case <-r.Context().Done():
		return false
	case <-s.done:
		// Returning would send an empty 200; drop the connection instead, so
		// a client still waiting sees the server go away.
		panic(http.ErrAbortHandler)
	}
}

func (s *Server) newID(prefix string) string {
	return fmt.Sprintf("%sfakellm%013d", prefix, s.seq.Add(1))
}

// bearerToken is the token of an "Authorization: Bearer" header; an SDK given
// an empty key may still send the bare word "Bearer".
func bearerToken(h http.Header) string {
	scheme, token, _ := strings.Cut(strings.TrimSpace(h.Get("Authorization")), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

func retryable(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

func lastText(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if t := msgs[i].Text; t != "" {
			if len(t) > 60 {
				t = t[:60] + "…"
			}
			return t
		}
	}
	return ""
}

// sse writes one server-sent event; an empty event name writes a bare data
// line, as OpenAI does. It reports false once the client or server is gone.
func sse(w http.ResponseWriter, event string, data []byte, done <-chan struct{}) bool {
	select {
	case <-done:
		return false
	default:
	}
	var b bytes.Buffer
	if event != "" {
		b.WriteString("event: " + event + "\n")
	}
	b.WriteString("data: ")
	b.Write(data)
	b.WriteString("\n\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return false
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	return true
}

func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

func mustJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("fakellm: marshal %T: %v", v, err)) // our own types always marshal
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// textChunks splits s into word-sized deltas, so accumulators see several.
func textChunks(s string) []string {
	if s == "" {
		return nil
	}
	return strings.SplitAfter(s, " ")
}

// thirds splits s into up to three pieces on rune boundaries, so streamed
// tool input arrives in fragments that are not JSON on their own.
func thirds(s string) []string {
	runes := []rune(s)
	if len(runes) < 3 {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	a, b := len(runes)/3, 2*len(runes)/3
	return []string{string(runes[:a]), string(runes[a:b]), string(runes[b:])}
}

// textOf reads content that is either a JSON string or an array of blocks
// whose type is one of types ("text" when none is given), joining the
// texts with "\n".
func textOf(raw json.RawMessage, types ...string) (string, error) {
	if len(types) == 0 {
		types = []string{"text"}
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", err
	}
	var texts []string
	for _, p := range parts {
		if slices.Contains(types, p.Type) {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

func present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}
