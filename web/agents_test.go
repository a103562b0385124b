package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// wordFocus gives an agent the capability of each service its
// description names: a stand-in for the catalog's focus (C6).
type wordFocus map[string]string

func (f wordFocus) Focus(name, description string) []string {
	var out []string
	for word, id := range f {
		if strings.Contains(strings.ToLower(name+" "+description), word) {
			out = append(out, id)
		}
	}
	return out
}

// agentsOver is the Agents tab over the agents package and a real store.
type agentsOver struct {
	db    *sqlstore.DB
	focus agents.Focuser
}

func agentOf(a store.Agent) Agent {
	return Agent{Name: a.Name, Description: a.Description, Focus: a.Focus, Allow: a.Allow, Block: a.Block, Provider: a.Provider, Default: a.Name == store.DefaultAgent}
}

func (o agentsOver) Agents(ctx context.Context) ([]Agent, error) {
	list, err := o.db.Agents(ctx)
	var out []Agent
	for _, a := range list {
		out = append(out, agentOf(a))
	}
	return out, err
}

func (o agentsOver) Agent(ctx context.Context, name string) (AgentPage, error) {
	a, err := o.db.Agent(ctx, name)
	if err != nil {
		return AgentPage{}, err
	}
	es, err := o.db.ActivityBoard(ctx, store.ActivityFilter{Agent: name}, 10)
	return AgentPage{Agent: agentOf(a), Recent: rowsOf(es), Providers: agents.Providers}, err
}

func (o agentsOver) SwitchChat(ctx context.Context, chat, agent string) (string, error) {
	return "switched " + chat + " to " + agent, o.db.SetChatAgent(ctx, chat, agent, time.Now())
}

func (o agentsOver) AddAgent(ctx context.Context, name, description string) (string, error) {
	a, err := agents.Add(ctx, o.db, o.focus, name, agents.Spec{Description: description})
	return "Added agent " + a.Name + ", focus: " + strings.Join(a.Focus, ", "), err
}

func (o agentsOver) EditAgent(ctx context.Context, name string, e AgentEdit) (string, error) {
	a, err := agents.Edit(ctx, o.db, o.focus, name, agents.Spec(e))
	return "Saved " + a.Name, err
}

func (o agentsOver) RemoveAgent(ctx context.Context, name string) (string, error) {
	return "Removed agent " + name + ".", agents.Remove(ctx, o.db, name)
}

// TestAgentsAddEditRemoveA1C6: the list shows each agent's description,
// focus, lists and model; the add form adds with a name and a description
// and opens the agent's page with the focus it got; the edit form sets
// the description and the lists (an emptied list clears it); an agent is
// removed, the default one never; errors read as the CLI words them.
func TestAgentsAddEditRemoveA1C6(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	if err := db.CreateAgent(ctx, store.Agent{Name: store.DefaultAgent, Description: "Your general assistant."}); err != nil {
		t.Fatal(err)
	}
	d, sess, csrf := dashboardSignedIn(t, Options{Agents: agentsOver{db, wordFocus{"inbox": "plugin:gmail", "calendar": "plugin:google-calendar"}}})

	res := d.post(t, "/agents", url.Values{"csrf": {csrf}, "name": {"mailer"}, "description": {"keeps my inbox tidy"}}, sess, "")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/agents/mailer" || noteOf(res) != "Added agent mailer, focus: plugin:gmail" {
		t.Fatalf("add: %s to %q, note %q", res.Status, res.Header.Get("Location"), noteOf(res))
	}
	_, body := d.get(t, "/agents", sess)
	wantIn(t, "the list", body, `href="/agents/mailer"`, "keeps my inbox tidy", "plugin:gmail", `id="agent-add"`, `name="name"`, `name="description"`, `action="/agents"`)
	record(t, db, "mailer", "plugin:gmail", "ok")
	_, body = d.get(t, "/agents/mailer", sess)
	wantIn(t, "the agent's page", body, `<dd id="agent-focus">plugin:gmail</dd>`, `id="agent-edit"`, `id="agent-remove"`, `action="/agents/mailer/remove"`,
		`data-tool="plugin:gmail" data-outcome="ok"`, `<option value="codex">`, `href="/activity?agent=mailer"`)

	res = d.post(t, "/agents/mailer", url.Values{"csrf": {csrf}, "description": {"reads my calendar"}, "allow": {"plugin:google-calendar, builtin:wiki"}, "block": {"cli:gh"}, "provider": {"codex"}}, sess, "")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/agents/mailer" {
		t.Fatalf("edit: %s to %q", res.Status, res.Header.Get("Location"))
	}
	a, _ := db.Agent(ctx, "mailer")
	if strings.Join(a.Focus, ",") != "plugin:google-calendar" || strings.Join(a.Allow, ",") != "plugin:google-calendar,builtin:wiki" || strings.Join(a.Block, ",") != "cli:gh" || a.Provider != "codex" {
		t.Fatalf("after the edit: %+v", a)
	}
	_, body = d.get(t, "/agents/mailer", sess)
	if !strings.Contains(body, `name="allow" value="plugin:google-calendar, builtin:wiki"`) || !strings.Contains(body, `<option value="codex" selected>`) {
		t.Errorf("the edit form does not show what the agent has:\n%s", body)
	}
	res = d.post(t, "/agents/mailer", url.Values{"csrf": {csrf}, "description": {"reads my calendar"}, "allow": {""}, "block": {" "}, "provider": {""}}, sess, "")
	if a, _ := db.Agent(ctx, "mailer"); res.StatusCode != http.StatusSeeOther || len(a.Allow) != 0 || len(a.Block) != 0 || a.Provider != "" {
		t.Fatalf("emptied lists: %s, %+v", res.Status, a)
	}

	if _, body := d.get(t, "/agents/default", sess); strings.Contains(body, `id="agent-remove"`) {
		t.Error("the default agent has a remove button")
	}
	for _, tc := range []struct {
		name, path string
		form       url.Values
		want       int
	}{
		{"an agent without a description", "/agents", url.Values{"name": {"quiet"}}, http.StatusBadRequest},
		{"a name that is no plain name", "/agents", url.Values{"name": {"../x"}, "description": {"d"}}, http.StatusBadRequest},
		{"a name taken", "/agents", url.Values{"name": {"mailer"}, "description": {"d"}}, http.StatusConflict},
		{"removing the default agent", "/agents/default/remove", url.Values{}, http.StatusBadRequest},
		{"editing an unknown agent", "/agents/nobody", url.Values{"description": {"d"}}, http.StatusNotFound},
	} {
		tc.form.Set("csrf", csrf)
		if res := d.post(t, tc.path, tc.form, sess, ""); res.StatusCode != tc.want {
			t.Errorf("%s: %s, want %d", tc.name, res.Status, tc.want)
		}
	}
	if res, _ := d.get(t, "/agents/nobody", sess); res.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown agent's page: %s", res.Status)
	}

	res = d.post(t, "/agents/mailer/remove", url.Values{"csrf": {csrf}}, sess, "")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/agents" || noteOf(res) != "Removed agent mailer." {
		t.Fatalf("remove: %s, note %q", res.Status, noteOf(res))
	}
	if _, err := db.Agent(ctx, "mailer"); err == nil {
		t.Error("the agent outlived its removal")
	}
}

// TestTabsWithoutABackendSayNotAvailableW1: a process that lacks a tab's
// backend says so instead of failing.
func TestTabsWithoutABackendSayNotAvailableW1(t *testing.T) {
	d := newDashboard(t, Options{})
	sess := d.signIn(t)
	for _, p := range []string{"/agents", "/approvals", "/activity", "/activity/stream", "/chats"} {
		if res, body := d.get(t, p, sess); res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "not available") {
			t.Errorf("%s: %s", p, res.Status)
		}
	}
}
