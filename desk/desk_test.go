package desk

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/channels"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakellm"
	"github.com/jarvisbot/jarvisbot/internal/testwait"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// chatPlatform stands in for a messaging platform: it records what the
// desk sends, and can fail sends.
type chatPlatform struct {
	name string // "test" when empty
	mu   sync.Mutex
	sent []channels.Outgoing
	fail bool
	// onSend, when set, sees each message once it is sent, in the
	// sender's goroutine: what the owner does on reading it.
	onSend func(channels.Outgoing)
}

func (p *chatPlatform) Name() string {
	if p.name == "" {
		return "test"
	}
	return p.name
}
func (p *chatPlatform) Run(ctx context.Context, _ channels.Handler) error { <-ctx.Done(); return nil }
func (p *chatPlatform) Edit(context.Context, string, string, string, [][]channels.Button) error {
	return nil
}
func (p *chatPlatform) Send(_ context.Context, m channels.Outgoing) (string, error) {
	p.mu.Lock()
	if p.fail {
		p.mu.Unlock()
		return "", fmt.Errorf("platform down")
	}
	p.sent = append(p.sent, m)
	id, onSend := fmt.Sprint(len(p.sent)), p.onSend
	p.mu.Unlock()
	if onSend != nil {
		onSend(m)
	}
	return id, nil
}
func (p *chatPlatform) to(chat string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, m := range p.sent {
		if m.Chat == chat {
			out = append(out, m.Text)
		}
	}
	return out
}

// newRuntime opens a store in t.TempDir() holding the default agent, and a
// runtime over it whose model is a scripted server.
func newRuntime(t *testing.T) (*sqlstore.DB, *fakellm.Server, *agents.Runtime) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.CreateAgent(ctx, store.Agent{Name: "default", Description: "assistant"}); err != nil {
		t.Fatal(err)
	}
	f := fakellm.New(t)
	p, err := llm.New(llm.Config{Provider: "anthropic", Model: "m", APIKey: "k", BaseURL: f.AnthropicURL(), MaxRetries: 0, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	rt := &agents.Runtime{Catalog: catalog.New().View, Store: db, Model: func(string) (agents.Model, error) { return agents.Model{Provider: p}, nil }}
	return db, f, rt
}

func setup(t *testing.T, owners ...string) (*Desk, *chatPlatform, *fakellm.Server, *sqlstore.DB) {
	t.Helper()
	return setupWith(t, func(db *sqlstore.DB) Store { return db }, owners...)
}

// setupWith builds a desk on the store that wrap makes of the database.
func setupWith(t *testing.T, wrap func(*sqlstore.DB) Store, owners ...string) (*Desk, *chatPlatform, *fakellm.Server, *sqlstore.DB) {
	t.Helper()
	return setupOpts(t, wrap, func(*Options) {}, owners...)
}

// setupOpts is setupWith whose options mod changes before the desk is made.
func setupOpts(t *testing.T, wrap func(*sqlstore.DB) Store, mod func(*Options), owners ...string) (*Desk, *chatPlatform, *fakellm.Server, *sqlstore.DB) {
	t.Helper()
	db, f, rt := newRuntime(t)
	plat := &chatPlatform{}
	opt := Options{Runtime: rt, Approvals: approvals.New(approvals.Options{Store: db}), Store: wrap(db), Owners: owners}
	mod(&opt)
	d, err := New(context.Background(), opt, plat)
	if err != nil {
		t.Fatal(err)
	}
	return d, plat, f, db
}

// waitFor polls cond until it holds; after 10 s it fails the test,
// naming what it waited for and what cond last saw.
func waitFor(t *testing.T, what string, cond func() (ok bool, saw any)) {
	t.Helper()
	testwait.For(t, 10*time.Second, what, cond)
}
