package backend_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/agents/jobs"
	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/mcp/backend"
	"github.com/jarvisbot/jarvisbot/mcp/surface"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

type fixture struct {
	db  *sqlstore.DB
	eng *approvals.Engine
	svc *backend.Service
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.CreateAgent(ctx, store.Agent{Name: store.DefaultAgent, Description: "the assistant"})
	c := catalog.New()
	for _, cp := range []catalog.Capability{
		{ID: "builtin:wiki", Connected: true, Tier: catalog.TierMonitor},
		{ID: "cli:gh", Connected: false, Tier: catalog.TierAsk},
	} {
		if err := c.Add(cp); err != nil {
			t.Fatal(err)
		}
	}
	eng := approvals.New(approvals.Options{Store: db, Approver: func(u string) bool { return strings.HasPrefix(u, "app:") }})
	t.Cleanup(eng.Close)
	q := jobs.New(jobs.Options{Store: db})
	return &fixture{db: db, eng: eng, svc: &backend.Service{Store: db, Catalog: c.View, Engine: eng, Focus: c.View(), Queue: backend.QueueJobs{Queue: q, Store: db}}}
}

// TestDiscoveryM4: status, agents (with focus chosen from the description),
// capabilities by kind with their state, the activity board by agent, and
// an agent's conversation with an app without tool traffic.
func TestDiscoveryM4(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, err := f.svc.CreateAgent(ctx, "notes", "keeps my notes in the wiki"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.CreateAgent(ctx, "notes", "again"); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT {
		t.Errorf("a second agent of the same name: %v", err)
	}
	st, err := f.svc.Status(ctx)
	if err != nil || st.Agents != 2 || st.Paused {
		t.Errorf("status %+v, %v", st, err)
	}
	caps, err := f.svc.Capabilities(ctx, "cli")
	if err != nil || len(caps) != 1 || caps[0].ID != "cli:gh" || caps[0].State != "not connected" || caps[0].Tier != "ask" {
		t.Errorf("capabilities of kind cli: %+v, %v", caps, err)
	}
	if _, err := f.svc.Capabilities(ctx, "widget"); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("an unknown kind: %v", err)
	}
	f.db.RecordActivity(ctx, store.Activity{Agent: "notes", Tool: "builtin:wiki", Outcome: "ok"})
	f.db.RecordActivity(ctx, store.Activity{Agent: "default", Tool: "cli:gh", Outcome: "denied"})
	if acts, err := f.svc.Activity(ctx, "notes", 10); err != nil || len(acts) != 1 || acts[0].Tool != "builtin:wiki" {
		t.Errorf("activity of notes: %+v, %v", acts, err)
	}
	for _, m := range []llm.Message{{Role: "user", Text: "hello from the editor"}, {Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "1", Name: "wiki"}}}, {Role: "assistant", Text: "Hi."}} {
		b, _ := json.Marshal(m)
		f.db.AppendMessage(ctx, store.Message{Chat: jobs.AppChat("cursor", "notes"), Agent: "notes", Role: m.Role, Content: b})
	}
	hist, err := f.svc.ChatHistory(ctx, "cursor", "notes", 10)
	if err != nil || len(hist) != 2 || hist[0].Text != "hello from the editor" || hist[1].Text != "Hi." {
		t.Errorf("chat history: %+v, %v", hist, err)
	}
	if hist, _ := f.svc.ChatHistory(ctx, "claude", "notes", 10); len(hist) != 0 {
		t.Errorf("another app sees cursor's conversation: %+v", hist)
	}
}

// TestApprovalsAndPauseM4: a request raised in an app's conversation names
// that app; resolving decides once through the engine; pause is recorded
// and the service hears of it.
func TestApprovalsAndPauseM4(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	a, err := f.eng.Ask(ctx, approvals.Request{Tool: "cli:gh", Summary: "run gh", Agent: "default", Chat: jobs.AppChat("cursor", "default")})
	if err != nil {
		t.Fatal(err)
	}
	list, err := f.svc.Approvals(ctx)
	if err != nil || len(list) != 1 || list[0].App != "cursor" {
		t.Fatalf("approvals: %+v, %v", list, err)
	}
	got, err := f.svc.ResolveApproval(ctx, "ops", a.ID, true)
	if err != nil || got.State != string(store.ApprovalApproved) {
		t.Fatalf("resolve: %+v, %v", got, err)
	}
	if _, err := f.svc.ResolveApproval(ctx, "ops", a.ID, false); jarvisbot.ErrorCode(err) != jarvisbot.ECONFLICT || !strings.Contains(err.Error(), "already decided") {
		t.Errorf("a second decision: %v", err)
	}
	var heard []bool
	f.svc.Paused = func(p bool) { heard = append(heard, p) }
	if err := f.svc.Pause(ctx, "ops"); err != nil {
		t.Fatal(err)
	}
	if st, _ := f.svc.Status(ctx); !st.Paused || st.PausedBy != "app ops" {
		t.Errorf("status after pause: %+v", st)
	}
	if err := f.svc.Resume(ctx, "ops"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(heard, []bool{true, false}) {
		t.Errorf("the service heard %v", heard)
	}
}

// TestExportHasNoSecretsAndImportAddsNoServersM4C4: export keeps ${NAME}
// references and withholds literal values; import adds missing agents,
// never MCP servers, and a dry run writes nothing.
func TestExportHasNoSecretsAndImportAddsNoServersM4C4(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.db.AddMCPServer(ctx, store.MCPServer{Name: "tracker", Transport: "streamable-http", URL: "https://tracker.example/mcp", Enabled: true,
		Headers: map[string]string{"Authorization": "Bearer ${TRACKER_TOKEN}", "X-Api-Key": "sk-literal-123456"}})
	f.svc.CreateAgent(ctx, "reviewer", "reviews pull requests")
	raw, err := f.svc.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "sk-literal-123456") || !strings.Contains(string(raw), "Bearer ${TRACKER_TOKEN}") || !strings.Contains(string(raw), `"reviewer"`) {
		t.Fatalf("export: %s", raw)
	}

	other := newFixture(t)
	rep, err := other.svc.Import(ctx, raw, true)
	if err != nil || !slices.Contains(rep.Added, "agent reviewer") {
		t.Fatalf("dry run: %+v, %v", rep, err)
	}
	if _, err := other.db.Agent(ctx, "reviewer"); jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		t.Fatal("a dry run added an agent")
	}
	rep, err = other.svc.Import(ctx, raw, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.db.Agent(ctx, "reviewer"); err != nil {
		t.Errorf("the import did not add the agent: %+v", rep)
	}
	if servers, _ := other.db.MCPServers(ctx); len(servers) != 0 || !slices.ContainsFunc(rep.Skipped, func(s string) bool { return strings.Contains(s, "mcp server tracker") }) {
		t.Errorf("the import added MCP servers or did not say it skipped them: %+v", rep)
	}
	if _, err := other.svc.Import(ctx, json.RawMessage(`{"format":"other"}`), false); jarvisbot.ErrorCode(err) != jarvisbot.EINVALID {
		t.Errorf("a foreign file: %v", err)
	}
	var _ surface.Backend = f.svc
}

// TestExportWithholdsEveryLiteralX3: a literal credential in a stdio
// server's arguments (a URL's password, a connection string's password)
// or any env value that is not a reference leaves as "[withheld]", and the
// export lists what it withheld; references and plain arguments stay.
func TestExportWithholdsEveryLiteralX3(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	// As an older jarvisbot (or a hand edit) stored it.
	f.db.AddMCPServer(ctx, store.MCPServer{Name: "pg", Transport: "stdio", Command: "pg-mcp", Enabled: true,
		Args: []string{"--read-only", "postgresql://me:pw-in-url-123@db.example/app", "host=db password=pw-in-dsn-456", "--token=${PG_TOKEN}"},
		Env:  map[string]string{"PGPASSWORD": "pw-in-env-789", "PGUSER": "${PG_USER}"}})
	raw, err := f.svc.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"pw-in-url-123", "pw-in-dsn-456", "pw-in-env-789"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("export holds %s: %s", secret, raw)
		}
	}
	var ex struct {
		MCPServers []struct {
			Args []string          `json:"args"`
			Env  map[string]string `json:"env"`
		} `json:"mcp_servers"`
		Withheld []string `json:"withheld"`
	}
	if err := json.Unmarshal(raw, &ex); err != nil || len(ex.MCPServers) != 1 {
		t.Fatalf("export %s: %v", raw, err)
	}
	wantArgs := []string{"--read-only", "postgresql://me:[withheld]@db.example/app", "host=db password=[withheld]", "--token=${PG_TOKEN}"}
	if got := ex.MCPServers[0].Args; !slices.Equal(got, wantArgs) {
		t.Errorf("args %q, want %q", got, wantArgs)
	}
	if env := ex.MCPServers[0].Env; env["PGPASSWORD"] != "[withheld]" || env["PGUSER"] != "${PG_USER}" {
		t.Errorf("env %v", env)
	}
	want := []string{"mcp server pg: argument 2 (password)", "mcp server pg: argument 3 (password)", "mcp server pg: env PGPASSWORD"}
	if !slices.Equal(ex.Withheld, want) {
		t.Errorf("withheld %q, want %q", ex.Withheld, want)
	}
}

// TestCancelledJobClosesItsApprovalM4: cancelling a job whose turn waits
// for the owner denies the request, so its buttons close.
func TestCancelledJobClosesItsApprovalM4(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	j, err := f.db.AddJob(ctx, store.Job{App: "ci", Text: "run echo", Agent: "default"})
	if err != nil {
		t.Fatal(err)
	}
	// The job's turn raised it, so it is app ci's, which cannot decide it,
	// but cancelling the job withdraws it all the same.
	a, err := f.eng.Ask(ctx, approvals.Request{Tool: "cli:gh", Summary: "run gh", Agent: "default", Chat: j.Chat, Apps: []string{"ci"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.UpdateJob(ctx, j.ID, func(j *store.Job) error {
		j.State, j.Approval = store.JobWaitingApproval, a.ID
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got, err := f.svc.CancelJob(ctx, j.ID)
	if err != nil || got.State != string(store.JobCancelled) {
		t.Fatalf("cancel: %+v, %v", got, err)
	}
	if after, _ := f.db.Approval(ctx, a.ID); after.State != store.ApprovalDenied {
		t.Errorf("the request of the cancelled job is %s, want denied", after.State)
	}
}

// TestAppWordsX5: a note over the cap is refused with the cap said (and
// the surface's schema says the same cap); a request raised in a turn that
// read an app's note is listed as that app's, refused to it and decided by
// another app under its name; an app's chat shows its own words, without
// the mark the model sees.
func TestAppWordsX5(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if surface.MaxNoteLen != store.MaxNoteLen {
		t.Errorf("the surface says notes hold %d characters, the backend takes %d", surface.MaxNoteLen, store.MaxNoteLen)
	}
	err := f.svc.Message(ctx, "ops", "default", strings.Repeat("é", store.MaxNoteLen+1))
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "at most 4000") {
		t.Errorf("a note over the cap: %v", err)
	}
	if err := f.svc.Message(ctx, "ops", "default", strings.Repeat("é", store.MaxNoteLen)); err != nil {
		t.Errorf("a note at the cap: %v", err)
	}

	a, err := f.eng.Ask(ctx, approvals.Request{Tool: "cli:gh", Summary: "run gh", Agent: "default", Chat: "telegram:42", Apps: []string{"ops"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := f.svc.Approval(ctx, a.ID); !slices.Equal(got.Apps, []string{"ops"}) || got.App != "" {
		t.Errorf("approval %+v, want it counted as app ops's", got)
	}
	if _, err := f.svc.ResolveApproval(ctx, "ops", a.ID, true); jarvisbot.ErrorCode(err) != jarvisbot.EFORBIDDEN {
		t.Errorf("ops resolving a request its note's turn raised: %v, want refused", err)
	}
	got, err := f.svc.ResolveApproval(ctx, "auditor", a.ID, false)
	if err != nil || got.State != string(store.ApprovalDenied) || got.DecidedBy != "app auditor" {
		t.Errorf("auditor denying: %+v, %v", got, err)
	}

	content, _ := json.Marshal(llm.Message{Role: llm.RoleUser, Text: agents.FromApp("ops", "hi\nthere")})
	if _, err := f.db.AppendMessage(ctx, store.Message{Chat: jobs.AppChat("ops", "default"), Agent: "default", Role: llm.RoleUser, Content: content}); err != nil {
		t.Fatal(err)
	}
	if ms, err := f.svc.ChatHistory(ctx, "ops", "default", 10); err != nil || len(ms) != 1 || ms[0].Text != "hi\nthere" {
		t.Errorf("chat history %+v, %v; want the app's own words", ms, err)
	}
}

// TestNoticeIsBoundedAndMarkedX5: a notice up to NoticeMax characters is
// one marked message; a longer one is one marked file with a marked
// caption, and, for a chat without files, a marked start not much longer
// than NoticeMax; past NoticeFileMax it is refused.
func TestNoticeIsBoundedAndMarkedX5(t *testing.T) {
	var got backend.Notice
	svc := &backend.Service{Notify: func(_ context.Context, n backend.Notice) error { got = n; return nil }}
	units := func(s string) int { return len(utf16.Encode([]rune(s))) }
	for _, tc := range []struct {
		name string
		text string
		file bool
	}{
		{"short", "build green", false},
		{"at the bound", strings.Repeat("a", surface.NoticeMax), false},
		{"one past", strings.Repeat("a", surface.NoticeMax+1), true},
		{"escapes count", strings.Repeat("\u202E", surface.NoticeMax/6+1), true},
		{"emoji count twice", strings.Repeat("🙂", surface.NoticeMax/2+1), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got = backend.Notice{}
			if err := svc.NotifyOwner(t.Context(), "ops", tc.text); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got.Text, "From app ops") || (got.File != nil) != tc.file {
				t.Fatalf("text %.40q, file %v", got.Text, got.File != nil)
			}
			if units(got.Text) > surface.NoticeMax+200 {
				t.Errorf("the message is %d characters", units(got.Text))
			}
			if tc.file && (!strings.HasPrefix(string(got.File), "From app ops:\n") || !strings.HasPrefix(got.Caption, "From app ops:") || got.FileName != "from-app-ops.txt") {
				t.Errorf("file %.40q, caption %q, name %q", got.File, got.Caption, got.FileName)
			}
		})
	}
	err := svc.NotifyOwner(t.Context(), "ops", strings.Repeat("a", surface.NoticeFileMax+1))
	if jarvisbot.ErrorCode(err) != jarvisbot.EINVALID || !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("past the bound: %v", err)
	}
}
