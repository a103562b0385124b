package surface

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/jarvisbot/jarvisbot"
)

// testBackend is a Backend that answers from its fields and remembers
// what it was asked. The real one is the running service (the lead's
// end-to-end tests run it).
type testBackend struct {
	mu        sync.Mutex
	asked     []string // "Chat app agent text 1m0s"
	records   []record
	recorded  chan record // each Record, when not nil
	approvals map[string]Approval
	jobs      map[string]Job
	fail      error // returned by every call but Record when set
	imported  json.RawMessage
	exported  json.RawMessage
}

type record struct {
	App, Tool, Outcome string
}

func newTestBackend() *testBackend {
	return &testBackend{
		approvals: map[string]Approval{},
		jobs:      map[string]Job{},
		recorded:  make(chan record, 100),
	}
}

func (b *testBackend) ask(format string, args ...any) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.asked = append(b.asked, fmt.Sprintf(format, args...))
	return b.fail
}

func (b *testBackend) Asked() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.asked...)
}

func (b *testBackend) Records() []record {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]record(nil), b.records...)
}

func (b *testBackend) Status(ctx context.Context) (Status, error) {
	return Status{Agents: 2, PendingApprovals: len(b.approvals)}, b.ask("Status")
}
func (b *testBackend) Agents(ctx context.Context) ([]Agent, error) {
	return []Agent{{Name: "default", Description: "anything"}}, b.ask("Agents")
}
func (b *testBackend) Agent(ctx context.Context, name string) (Agent, error) {
	return Agent{Name: name}, b.ask("Agent %s", name)
}
func (b *testBackend) Capabilities(ctx context.Context, kind string) ([]Capability, error) {
	return []Capability{{ID: "builtin:time", Kind: "builtin", Tier: "safe", State: "connected"}}, b.ask("Capabilities %s", kind)
}
func (b *testBackend) Skills(ctx context.Context) ([]Skill, error) { return nil, b.ask("Skills") }
func (b *testBackend) Activity(ctx context.Context, agent string, limit int) ([]Activity, error) {
	return nil, b.ask("Activity %s %d", agent, limit)
}
func (b *testBackend) Schedule(ctx context.Context) ([]ScheduleEntry, error) {
	return nil, b.ask("Schedule")
}
func (b *testBackend) ChatHistory(ctx context.Context, app, agent string, limit int) ([]ChatMessage, error) {
	return nil, b.ask("ChatHistory %s %s %d", app, agent, limit)
}
func (b *testBackend) Chat(ctx context.Context, app, agent, text string, timeout time.Duration) (ChatResult, error) {
	return ChatResult{Status: ChatAnswered, Reply: "hello " + app}, b.ask("Chat %s %s %s %s", app, agent, text, timeout)
}
func (b *testBackend) Message(ctx context.Context, app, agent, text string) error {
	return b.ask("Message %s %s %s", app, agent, text)
}
func (b *testBackend) CreateAgent(ctx context.Context, name, description string) (Agent, error) {
	return Agent{Name: name, Description: description}, b.ask("CreateAgent %s %s", name, description)
}
func (b *testBackend) PostJob(ctx context.Context, app, title, text string) (Job, error) {
	return Job{ID: "j1", App: app, Title: title, Text: text, State: "queued", Agent: "default", Why: "no agent fits better"}, b.ask("PostJob %s %s %s", app, title, text)
}
func (b *testBackend) Jobs(ctx context.Context, app string, limit int) ([]Job, error) {
	return nil, b.ask("Jobs %s %d", app, limit)
}
func (b *testBackend) Job(ctx context.Context, id string) (Job, error) {
	if err := b.ask("Job %s", id); err != nil {
		return Job{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	j, ok := b.jobs[id]
	if !ok {
		return Job{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "job %s does not exist", id)
	}
	return j, nil
}
func (b *testBackend) CancelJob(ctx context.Context, id string) (Job, error) {
	return Job{ID: id, State: "cancelled"}, b.ask("CancelJob %s", id)
}
func (b *testBackend) RetryJob(ctx context.Context, id string) (Job, error) {
	return Job{ID: id, State: "queued"}, b.ask("RetryJob %s", id)
}
func (b *testBackend) RunSchedule(ctx context.Context, skill string) (string, error) {
	return "ok, report sent", b.ask("RunSchedule %s", skill)
}
func (b *testBackend) NotifyOwner(ctx context.Context, app, text string) error {
	return b.ask("NotifyOwner %s %s", app, text)
}
func (b *testBackend) Approvals(ctx context.Context) ([]Approval, error) {
	return nil, b.ask("Approvals")
}
func (b *testBackend) Approval(ctx context.Context, id string) (Approval, error) {
	if err := b.ask("Approval %s", id); err != nil {
		return Approval{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.approvals[id]
	if !ok {
		return Approval{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "approval %s does not exist", id)
	}
	return a, nil
}
func (b *testBackend) ResolveApproval(ctx context.Context, app, id string, approve bool) (Approval, error) {
	a := b.approvals[id]
	a.State = map[bool]string{true: "approved", false: "denied"}[approve]
	return a, b.ask("ResolveApproval %s %s %v", app, id, approve)
}
func (b *testBackend) Pause(ctx context.Context, app string) error  { return b.ask("Pause %s", app) }
func (b *testBackend) Resume(ctx context.Context, app string) error { return b.ask("Resume %s", app) }
func (b *testBackend) Export(ctx context.Context) (json.RawMessage, error) {
	return b.exported, b.ask("Export")
}
func (b *testBackend) Import(ctx context.Context, data json.RawMessage, dryRun bool) (ImportReport, error) {
	b.mu.Lock()
	b.imported = data
	b.mu.Unlock()
	return ImportReport{Added: []string{"agent reviewer"}}, b.ask("Import %v", dryRun)
}
func (b *testBackend) Record(ctx context.Context, app, tool, outcome string, took time.Duration) {
	r := record{app, tool, outcome}
	b.mu.Lock()
	b.records = append(b.records, r)
	b.mu.Unlock()
	if b.recorded != nil {
		select {
		case b.recorded <- r:
		default:
		}
	}
}

// testKeys accepts the keys it holds; a revoked key is refused as Keys
// refuses one (EFORBIDDEN), a limited one as rate-limited (EUNAVAILABLE).
type testKeys struct {
	mu      sync.Mutex
	callers map[string]Caller
	revoked map[string]bool
	limited map[string]time.Duration
	checked []string // the app of every key checked
}

func newTestKeys(callers map[string]Caller) *testKeys {
	return &testKeys{callers: callers, revoked: map[string]bool{}, limited: map[string]time.Duration{}}
}

type limitedErr struct {
	error
	after time.Duration
}

func (e limitedErr) RetryAfter() time.Duration { return e.after }
func (e limitedErr) Unwrap() error             { return e.error }

func (k *testKeys) Check(ctx context.Context, key string) (Caller, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	c, ok := k.callers[key]
	k.checked = append(k.checked, c.App)
	switch {
	case !ok || k.revoked[key]:
		return Caller{}, jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "unknown or revoked key")
	case k.limited[key] > 0:
		return Caller{}, limitedErr{jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "app %s asked too often; try again in %s", c.App, k.limited[key]), k.limited[key]}
	}
	return c, nil
}

func (k *testKeys) revoke(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.revoked[key] = true
}

// The keys of the test apps, one per scope.
const (
	readKey = "key-read-0123456789"
	workKey = "key-work-0123456789"
	fullKey = "key-full-0123456789"
)

func testCallers() map[string]Caller {
	return map[string]Caller{
		readKey: {App: "reader", Scope: ScopeRead},
		workKey: {App: "worker", Scope: ScopeWork},
		fullKey: {App: "owner-desktop", Scope: ScopeFull},
	}
}

// fixture is a surface served on httptest.
type fixture struct {
	b    *testBackend
	keys *testKeys
	srv  *httptest.Server
	url  string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	b := newTestBackend()
	keys := newTestKeys(testCallers())
	srv := httptest.NewServer(newServer(t, b, keys, Options{Version: "test"}).Handler())
	t.Cleanup(srv.Close)
	return &fixture{b: b, keys: keys, srv: srv, url: srv.URL + Path}
}

// connect is an initialized mcp-go client sending key.
func (f *fixture) connect(t *testing.T, key string) *client.Client {
	t.Helper()
	c, err := connectClient(t.Context(), f.url, key)
	if err != nil {
		t.Fatalf("connect with key %q: %v", key, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func connectClient(ctx context.Context, url, key string) (*client.Client, error) {
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}))
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "surface-test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

func toolNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func callRequest(name string, args map[string]any) mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	if args != nil {
		req.Params.Arguments = args
	}
	return req
}

func listRequest() mcp.ListToolsRequest { return mcp.ListToolsRequest{} }

func call(t *testing.T, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := c.CallTool(t.Context(), callRequest(name, args))
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

// newServer is New, shut down at cleanup, after the test servers using it
// (cleanups run last first).
func newServer(t *testing.T, b Backend, keys Keys, opt Options) *Server {
	t.Helper()
	s := New(b, keys, opt)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return s
}
