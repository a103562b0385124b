package signin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/fakes/fakeoauth"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// stateRefused is the real store refusing every plugin state, as a full
// disk or a locked file would.
type stateRefused struct {
	*sqlstore.DB
}

func (stateRefused) SetPluginState(context.Context, string, store.PluginState) error {
	return errors.New("disk I/O error")
}

// TestPluginStateFollowsItsServerP4X4 pins the host's OnState callback:
// a plugin's server coming up records the plugin connected, a sign-in that
// needs attention records that and warns once; and when the store refuses
// the write, the log says so with the plugin, the server and the state, in
// place of a state left silently wrong for catalog list and route.
func TestPluginStateFollowsItsServerP4X4(t *testing.T) {
	attention := fmt.Errorf("server acme: %w", signin.ErrNeedsAttention)
	srv := mcphost.Server{Name: "acme", Plugin: "acme"}
	cases := []struct {
		name    string
		refuse  bool
		st      mcphost.State
		err     error
		want    store.PluginState
		wantLog []string
	}{
		{name: "up", st: mcphost.StateUp, want: store.PluginConnected},
		{name: "needs attention", st: mcphost.StateDown, err: attention, want: store.PluginNeedsAttention,
			wantLog: []string{"level=WARN", "needs attention", "plugin=acme"}},
		{name: "up, not recorded", refuse: true, st: mcphost.StateUp, want: store.PluginInstalled,
			wantLog: []string{"level=ERROR", "could not be recorded", "plugin=acme", "server=acme", "state=connected", "disk I/O error"}},
		{name: "needs attention, not recorded", refuse: true, st: mcphost.StateDown, err: attention, want: store.PluginInstalled,
			wantLog: []string{"level=ERROR", "could not be recorded", "plugin=acme", "state=needs-attention", "still show it as connected", "disk I/O error", "level=WARN"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			db, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "j.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.InstallPlugin(ctx, "acme", store.PluginInstalled); err != nil {
				t.Fatal(err)
			}
			var states signin.States = db
			if c.refuse {
				states = stateRefused{db}
			}
			var logs bytes.Buffer
			onState := signin.Recorder(states, slog.New(slog.NewTextHandler(&logs, nil)))
			onState(srv, c.st, c.err)
			p, err := db.InstalledPlugin(ctx, "acme")
			if err != nil || p.State != c.want {
				t.Errorf("plugin %+v, %v; want state %s", p, err, c.want)
			}
			for _, w := range c.wantLog {
				if !strings.Contains(logs.String(), w) {
					t.Errorf("log %q lacks %q", logs.String(), w)
				}
			}
			if len(c.wantLog) == 0 && logs.Len() > 0 {
				t.Errorf("log %q, want none", logs.String())
			}
		})
	}
}

// openStore is a store with the plugin installed.
func openStore(t *testing.T) *sqlstore.DB {
	t.Helper()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.InstallPlugin(ctx, plugin, store.PluginConnected); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestDialThroughSignInP3P4 pins how a command reaches a plugin's server:
// through its sign-in; a token the server no longer takes is renewed once
// and the dial tried again; a revoked sign-in is recorded as needing
// attention and the error says how to renew it, and when the store refuses
// that record, the error says so too.
func TestDialThroughSignInP3P4(t *testing.T) {
	ctx := context.Background()
	hs := mcphost.Server{Name: "gh", Plugin: plugin, URL: "", Transport: mcphost.StreamableHTTP}
	opt := mcphost.DialOptions{InitTimeout: 10 * time.Second}
	whoami := func(t *testing.T, cn *mcphost.Conn) string {
		t.Helper()
		defer cn.Close()
		res, err := cn.Call(ctx, "whoami", json.RawMessage("{}"), 0)
		if err != nil {
			t.Fatal(err)
		}
		return res.Text
	}
	state := func(t *testing.T, db *sqlstore.DB) store.PluginState {
		t.Helper()
		p, err := db.InstalledPlugin(ctx, plugin)
		if err != nil {
			t.Fatal(err)
		}
		return p.State
	}

	t.Run("signed in", func(t *testing.T) {
		e := newEnv(t, setup{})
		e.signIn()
		db := openStore(t)
		hs := hs
		hs.URL = e.mcp.URL
		cn, err := e.m.Dial(ctx, db, hs, opt)
		if err != nil {
			e.record(err.Error())
			t.Fatal(err)
		}
		if got := whoami(t, cn); !strings.Contains(got, fakeoauth.Subject) {
			t.Errorf("whoami = %q, want the signed-in subject", got)
		}
	})

	t.Run("refused token renewed once", func(t *testing.T) {
		e := newEnv(t, setup{})
		e.signIn()
		db := openStore(t)
		e.as.Revoke(e.mustToken()) // the access token only: the sign-in stays
		hs := hs
		hs.URL = e.mcp.URL
		cn, err := e.m.Dial(ctx, db, hs, opt)
		if err != nil {
			e.record(err.Error())
			t.Fatalf("dial after the token was refused: %v", err)
		}
		if got := whoami(t, cn); !strings.Contains(got, fakeoauth.Subject) {
			t.Errorf("whoami = %q", got)
		}
		if n := e.refreshes(); n != 1 {
			t.Errorf("%d refreshes, want 1", n)
		}
		if st := state(t, db); st != store.PluginConnected {
			t.Errorf("state %s, want connected", st)
		}
	})

	for _, refuse := range []bool{false, true} {
		t.Run(fmt.Sprintf("revoked, store refuses=%v", refuse), func(t *testing.T) {
			e := newEnv(t, setup{})
			e.signIn()
			db := openStore(t)
			e.as.Revoke(e.grant().Token.RefreshToken)
			e.as.Revoke(e.mustToken())
			hs := hs
			hs.URL = e.mcp.URL
			var states signin.States = db
			if refuse {
				states = stateRefused{db}
			}
			cn, err := e.m.Dial(ctx, states, hs, opt)
			if err == nil {
				cn.Close()
				t.Fatal("dial with a revoked sign-in succeeded")
			}
			e.record(err.Error())
			want := []string{"jarvisbot plugins signin " + plugin}
			wantState := store.PluginNeedsAttention
			if refuse {
				want = append(want, "could not be recorded", "disk I/O error")
				wantState = store.PluginConnected
			}
			if !errors.Is(err, signin.ErrNeedsAttention) {
				t.Errorf("error %v is not ErrNeedsAttention", err)
			}
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if st := state(t, db); st != wantState {
				t.Errorf("state %s, want %s", st, wantState)
			}
		})
	}
}
