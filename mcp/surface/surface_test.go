package surface

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/jarvisbot/jarvisbot"
)

// The tools by the scope that first allows them (issue 17; approvals_list
// is a read tool: "read sees", and status already counts the approvals).
var (
	readTools = []string{"status", "agents_list", "agent_get", "capabilities_list", "skills_list",
		"activity_list", "schedule_list", "chat_history", "approvals_list"}
	workTools = []string{"agent_chat", "agent_message", "agent_create", "job_post", "jobs_list", "job_get",
		"job_cancel", "job_retry", "schedule_run", "notify_owner"}
	fullTools = []string{"approval_resolve", "pause_all", "resume_all", "export", "import"}
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

func post(t *testing.T, url, authorization string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(initialize))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func TestEveryRequestNeedsAValidKeyBeforeAnyMCP_M4(t *testing.T) {
	f := newFixture(t)
	f.keys.revoke(workKey)
	var bodies []string
	for _, tc := range []struct{ name, authorization string }{
		{"no key", ""},
		{"not a bearer key", "Basic " + readKey},
		{"empty bearer", "Bearer "},
		{"wrong key", "Bearer not-a-key"},
		{"revoked key", "Bearer " + workKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, f.url, tc.authorization)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", resp.StatusCode)
			}
			if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
				t.Errorf("WWW-Authenticate %q, want Bearer", got)
			}
			if resp.Header.Get("Mcp-Session-Id") != "" {
				t.Errorf("a refused request got an MCP session")
			}
			b, _ := io.ReadAll(resp.Body)
			bodies = append(bodies, string(b))
		})
	}
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Errorf("refusals differ, telling a guesser which keys exist: %q vs %q", b, bodies[0])
		}
	}
	if got := f.b.Asked(); len(got) != 0 {
		t.Errorf("the backend was asked %v for refused requests", got)
	}
	if resp := post(t, f.url, "Bearer "+readKey); resp.StatusCode != http.StatusOK {
		t.Errorf("a valid key: status %d, want 200", resp.StatusCode)
	}
}

func TestRateLimitedKeyGets429WithRetryAfter_M4(t *testing.T) {
	f := newFixture(t)
	f.keys.limited[readKey] = 1500 * time.Millisecond
	resp := post(t, f.url, "Bearer "+readKey)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429", resp.StatusCode)
	}
	if got := resp.Header.Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After %q, want 2 (1.5 s rounded up)", got)
	}
}

func TestRevokedKeyStopsAtItsNextRequest_M4(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, workKey)
	if res := call(t, c, "status", nil); res.IsError {
		t.Fatalf("status before revoking: %s", text(res))
	}
	f.keys.revoke(workKey)
	req := callRequest("status", nil)
	_, err := c.CallTool(t.Context(), req)
	if !errors.Is(err, transport.ErrAuthorizationRequired) {
		t.Fatalf("a call after revoking: err %v, want the 401 of a refused key", err)
	}
}

func TestToolsListedAreThoseOfTheKeysScope_M4(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		key  string
		want []string
	}{
		{readKey, readTools},
		{workKey, slices.Concat(readTools, workTools)},
		{fullKey, slices.Concat(readTools, workTools, fullTools)},
	} {
		got := toolNames(t, f.connect(t, tc.key))
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tc.want))
		if !slices.Equal(got, want) {
			t.Errorf("key %s lists %v, want %v", tc.key, got, want)
		}
	}
	if n := len(readTools) + len(workTools) + len(fullTools); n != 24 {
		t.Errorf("the surface has %d tools, the issue names 24", n)
	}
}

func TestToolsHaveDescribedSchemasAndAnnotations(t *testing.T) {
	f := newFixture(t)
	res, err := f.connect(t, fullKey).ListTools(t.Context(), listRequest())
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Description == "" {
			t.Errorf("%s has no description", tl.Name)
		}
		for p, s := range tl.InputSchema.Properties {
			if m, _ := s.(map[string]any); m["description"] == nil {
				t.Errorf("%s: parameter %s has no description", tl.Name, p)
			}
		}
		ro := tl.Annotations.ReadOnlyHint != nil && *tl.Annotations.ReadOnlyHint
		if slices.Contains(readTools, tl.Name) && !ro {
			t.Errorf("%s is discovery but not marked readOnlyHint", tl.Name)
		}
		if (tl.Name == "job_cancel") != (tl.Annotations.DestructiveHint != nil && *tl.Annotations.DestructiveHint) {
			t.Errorf("%s: destructiveHint %v", tl.Name, *tl.Annotations.DestructiveHint)
		}
	}
}

func TestCallOutsideTheScopeIsRefusedAsAToolError_M4(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, readKey)
	for _, name := range []string{"agent_chat", "job_post", "approval_resolve", "pause_all", "import"} {
		res := call(t, c, name, map[string]any{"agent": "default", "text": "hi", "id": "a1", "decision": "approve", "data": map[string]any{}})
		if !res.IsError || !strings.Contains(text(res), "needs a key with scope") {
			t.Errorf("%s with a read key: %q (isError %v), want a refusal naming the scope", name, text(res), res.IsError)
		}
	}
	if got := f.b.Asked(); len(got) != 0 {
		t.Errorf("the backend was asked %v for refused calls", got)
	}
	// The session survives the refusals.
	if res := call(t, c, "status", nil); res.IsError {
		t.Errorf("status after refusals: %s", text(res))
	}
	if rs := f.b.Records(); len(rs) == 0 || !strings.HasPrefix(rs[0].Outcome, "refused") || rs[0].App != "reader" {
		t.Errorf("records %v, want the refusals recorded under app reader", rs)
	}
}

func TestNoAppResolvesAnApprovalItsOwnRequestRaised_C2(t *testing.T) {
	f := newFixture(t)
	f.b.approvals["own"] = Approval{ID: "own", Tool: "mcp:github/merge_pull_request", App: "owner-desktop", State: "pending"}
	f.b.approvals["other"] = Approval{ID: "other", Tool: "mcp:github/merge_pull_request", App: "worker", State: "pending"}
	f.b.approvals["chat"] = Approval{ID: "chat", Tool: "builtin:gmail/send", State: "pending"}
	// Raised in the owner's chat, in a turn that read a note this app left
	// (X5): the app's too.
	f.b.approvals["noted"] = Approval{ID: "noted", Tool: "builtin:gmail/send", Apps: []string{"worker", "owner-desktop"}, State: "pending"}
	c := f.connect(t, fullKey)

	for _, id := range []string{"own", "noted"} {
		res := call(t, c, "approval_resolve", map[string]any{"id": id, "decision": "approve"})
		if !res.IsError || !strings.Contains(text(res), "no app resolves an approval its own request raised") || !strings.Contains(text(res), string(jarvisbot.EFORBIDDEN)) {
			t.Errorf("self-approval of %s: %q (isError %v), want refused", id, text(res), res.IsError)
		}
	}
	for _, id := range []string{"other", "chat"} {
		if res := call(t, c, "approval_resolve", map[string]any{"id": id, "decision": "deny"}); res.IsError {
			t.Errorf("approval %s raised by someone else: %s", id, text(res))
		}
	}
	var resolved []string
	for _, a := range f.b.Asked() {
		if strings.HasPrefix(a, "ResolveApproval") {
			resolved = append(resolved, a)
		}
	}
	want := []string{"ResolveApproval owner-desktop other false", "ResolveApproval owner-desktop chat false"}
	if !slices.Equal(resolved, want) {
		t.Errorf("resolved %v, want %v", resolved, want)
	}
}

func TestEveryCallIsRecordedUnderTheAppsName_M4(t *testing.T) {
	f := newFixture(t)
	call(t, f.connect(t, workKey), "agent_chat", map[string]any{"agent": "default", "text": "hello"})
	call(t, f.connect(t, readKey), "agents_list", nil)
	call(t, f.connect(t, workKey), "job_post", map[string]any{"text": "summarize the open issues"})
	want := []record{
		{"worker", "agent_chat", ChatAnswered},
		{"reader", "agents_list", "ok"},
		{"worker", "job_post", "job j1 queued"},
	}
	if got := f.b.Records(); !slices.Equal(got, want) {
		t.Errorf("records %v, want %v", got, want)
	}
	asked := f.b.Asked()
	if !slices.Contains(asked, "Chat worker default hello 1m0s") || !slices.Contains(asked, "PostJob worker  summarize the open issues") {
		t.Errorf("backend asked %v, want the chat and the job under app worker with the default timeout", asked)
	}
}

func TestBackendErrorBecomesAToolErrorWithItsMessage(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, workKey)
	f.b.fail = jarvisbot.Errorf(jarvisbot.ENOTFOUND, "agent nobody does not exist; agents_list names them")
	res := call(t, c, "agent_get", map[string]any{"agent": "nobody"})
	if !res.IsError || !strings.Contains(text(res), "agent nobody does not exist") || !strings.Contains(text(res), string(jarvisbot.ENOTFOUND)) {
		t.Errorf("got %q (isError %v), want the backend's message and code", text(res), res.IsError)
	}
	var sc map[string]string
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &sc); err != nil || sc["code"] != string(jarvisbot.ENOTFOUND) {
		t.Errorf("structured content %s, want the code", raw)
	}
	f.b.fail = nil
	if res := call(t, c, "agent_get", map[string]any{"agent": "default"}); res.IsError {
		t.Errorf("the session did not survive a tool error: %s", text(res))
	}
	if rs := f.b.Records(); len(rs) != 2 || !strings.HasPrefix(rs[0].Outcome, "error: agent nobody") {
		t.Errorf("records %v, want the error recorded", rs)
	}
}

func TestBackendPanicBecomesAToolError(t *testing.T) {
	b := newTestBackend()
	s := newServer(t, panicky{b}, newTestKeys(testCallers()), Options{})
	c, err := client.NewInProcessClient(s.MCPServer())
	if err != nil {
		t.Fatal(err)
	}
	ctx := ContextWithCaller(t.Context(), Caller{App: "worker", Scope: ScopeWork})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, callRequest("status", nil))
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "failed inside jarvisbot") {
		t.Errorf("got %q (isError %v), want a tool error", text(res), res.IsError)
	}
}

type panicky struct{ *testBackend }

func (panicky) Status(context.Context) (Status, error) { panic("boom") }

func TestAgentChatTimeoutDefaultsAndBounds(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, workKey)
	for _, tc := range []struct {
		timeout any
		want    string // the timeout the backend got, "" for a refusal
	}{
		{nil, "1m0s"},
		{5, "5s"},
		{600, "10m0s"},
		{601, ""},
		{0, "1m0s"},
		{-3, ""},
	} {
		args := map[string]any{"agent": "default", "text": "hi"}
		if tc.timeout != nil {
			args["timeout_seconds"] = tc.timeout
		}
		before := len(f.b.Asked())
		res := call(t, c, "agent_chat", args)
		asked := f.b.Asked()[before:]
		if tc.want == "" {
			if !res.IsError || len(asked) != 0 {
				t.Errorf("timeout %v: %q, asked %v; want refused before the backend", tc.timeout, text(res), asked)
			}
			continue
		}
		if res.IsError || len(asked) != 1 || !strings.HasSuffix(asked[0], " "+tc.want) {
			t.Errorf("timeout %v: %q, asked %v; want the backend to wait %s", tc.timeout, text(res), asked, tc.want)
		}
	}
}

func TestMissingArgumentsAreRefusedWithTheirName(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, workKey)
	res := call(t, c, "job_post", map[string]any{"title": "x", "text": "  "})
	if !res.IsError || !strings.Contains(text(res), "text is missing") || !strings.Contains(text(res), string(jarvisbot.EINVALID)) {
		t.Errorf("got %q, want text named as missing", text(res))
	}
}

func TestImportLeavesOutWhatNoAppMayAdd_C4(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, fullKey)
	data := map[string]any{
		"version":     1,
		"agents":      []any{map[string]any{"name": "reviewer", "description": "reviews pull requests"}},
		"skills":      []any{},
		"schedules":   []any{},
		"mcp_servers": []any{map[string]any{"name": "evil", "command": "curl"}},
		"plugins":     []any{"spotify"},
		"tiers":       map[string]any{"mcp:github/merge_pull_request": "safe"},
		"keyring":     map[string]any{"TOKEN": "x"},
	}
	res := call(t, c, "import", map[string]any{"data": data, "dry_run": true})
	if res.IsError {
		t.Fatalf("import: %s", text(res))
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(f.b.imported, &got); err != nil {
		t.Fatal(err)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range got {
			if !yield(k) {
				return
			}
		}
	})
	if want := []string{"agents", "schedules", "skills", "version"}; !slices.Equal(keys, want) {
		t.Errorf("the backend got sections %v, want %v", keys, want)
	}
	var rep ImportReport
	if err := json.Unmarshal([]byte(text(res)), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.DryRun || len(rep.Skipped) != 4 {
		t.Errorf("report %+v, want a dry run skipping 4 sections with reasons", rep)
	}
	for _, s := range rep.Skipped {
		if !strings.Contains(s, "not imported: ") {
			t.Errorf("skipped %q gives no reason", s)
		}
	}
	if !slices.Contains(f.b.Asked(), "Import true") {
		t.Errorf("backend asked %v, want a dry run", f.b.Asked())
	}
}

func TestAnAppSeesAndChangesOnlyItsOwnJobs(t *testing.T) {
	f := newFixture(t)
	f.b.jobs["mine"] = Job{ID: "mine", App: "worker", State: "running"}
	f.b.jobs["theirs"] = Job{ID: "theirs", App: "someone", State: "running"}
	w := f.connect(t, workKey)
	if res := call(t, w, "job_cancel", map[string]any{"id": "mine"}); res.IsError {
		t.Errorf("cancel own job: %s", text(res))
	}
	for _, name := range []string{"job_get", "job_cancel", "job_retry"} {
		if res := call(t, w, name, map[string]any{"id": "theirs"}); !res.IsError || !strings.Contains(text(res), "posted no job theirs") {
			t.Errorf("%s on another app's job: %q, want not found", name, text(res))
		}
	}
	if slices.Contains(f.b.Asked(), "CancelJob theirs") || slices.Contains(f.b.Asked(), "RetryJob theirs") {
		t.Errorf("backend asked %v: another app's job was changed", f.b.Asked())
	}
	if res := call(t, f.connect(t, fullKey), "job_retry", map[string]any{"id": "theirs"}); res.IsError {
		t.Errorf("a full key retries any job: %s", text(res))
	}
}

// TestNothingIsBuiltUntilAnAppWithAKeyCalls: serve turns the endpoint on
// by default; until an app with a valid key calls, the surface holds no
// MCP server, tools or transport, and a refused request builds none. A
// surface stopped before any call has nothing to stop, and refuses what
// comes after.
func TestNothingIsBuiltUntilAnAppWithAKeyCalls(t *testing.T) {
	s := New(newTestBackend(), newTestKeys(testCallers()), Options{Version: "test"})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	if isBuiltNow(s) {
		t.Fatal("New built the MCP server before any request")
	}
	if resp := post(t, srv.URL+Path, "Bearer not-a-key"); resp.StatusCode != http.StatusUnauthorized || isBuiltNow(s) {
		t.Fatalf("a refused request: status %d, built %v; want 401 and nothing built", resp.StatusCode, isBuiltNow(s))
	}
	if resp := post(t, srv.URL+Path, "Bearer "+readKey); resp.StatusCode != http.StatusOK || !isBuiltNow(s) {
		t.Fatalf("a request with a key: status %d, built %v; want 200 and the server built", resp.StatusCode, isBuiltNow(s))
	}
	if err := s.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}

	idle := New(newTestBackend(), newTestKeys(testCallers()), Options{Version: "test"})
	if err := idle.Shutdown(t.Context()); err != nil {
		t.Fatalf("Shutdown of a surface no app called: %v", err)
	}
	stopped := httptest.NewServer(idle.Handler())
	t.Cleanup(stopped.Close)
	if resp := post(t, stopped.URL+Path, "Bearer "+readKey); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a request after Shutdown: status %d, want 503", resp.StatusCode)
	}
	if isBuiltNow(idle) {
		t.Error("a request after Shutdown built the MCP server")
	}
	if ms := idle.MCPServer(); ms != nil {
		t.Error("MCPServer after Shutdown built an MCP server")
	}
}

func isBuiltNow(s *Server) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bt != nil
}
