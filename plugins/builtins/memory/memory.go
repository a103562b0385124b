// Package memory is the builtin memory (builtin:memory, A6): the model
// searches everything said in the owner's chats and wiki through the
// store's full-text index (store.Recall), or reads a chat's latest
// messages. It reads only; nothing leaves the store.
//
// In the catalog it stands as the server "recall" (title "Memory"), which
// the gate offers when the owner's words refer to the past of the
// conversation or to remembering (catalog/past.go), and which the model
// can ask for by name in any turn (C8).
package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/native"
	"github.com/jarvisbot/jarvisbot/store"
)

// ID is the tool's capability id; ServerID and Title name it in the
// catalog.
const (
	ID       = "builtin:memory"
	ServerID = "recall"
	Title    = "Memory"
)

// schema is the tool's input schema, kept constant so that the bytes
// offered to the model never vary.
const schema = `{"type":"object",` +
	`"properties":{` +
	`"action":{"type":"string","enum":["search","recent"],"description":"search everything said for words, or read a chat's latest messages"},` +
	`"query":{"type":"string","description":"words to look for; inflections and case are ignored; for search"},` +
	`"chat":{"type":"string","description":"only this chat (as shown in hits, e.g. telegram:123); search: all chats and the wiki by default; recent: this chat by default"},` +
	`"since":{"type":"string","description":"only from this date on, YYYY-MM-DD or RFC 3339"},` +
	`"until":{"type":"string","description":"only before this date, YYYY-MM-DD or RFC 3339"},` +
	`"limit":{"type":"integer","minimum":1,"maximum":50,"description":"most results (default 10)"}},` +
	`"required":["action"],"additionalProperties":false}`

// maxLimit caps what one call returns, so that it cannot flood the
// model's context.
const maxLimit = 50

// Memory searches what was said. Location is where dates without a zone
// are read (the owner's time zone); nil is UTC.
type Memory struct {
	Recall   store.Recall
	Location *time.Location
}

// Capability describes the memory as a catalog entry: reading only, tier
// safe.
func Capability() catalog.Capability {
	return catalog.Capability{
		ID:     ID,
		Kind:   catalog.KindBuiltin,
		Source: "builtin",
		Name:   "memory",
		Description: "Search everything said in the owner's past conversations (all chats: the owner's and the agents' messages, " +
			"tool results, voice notes' transcripts) and the wiki, best match first with date, chat and who said it; " +
			"or read a chat's latest messages. Use it when the owner refers to something said before.",
		InputSchema: json.RawMessage(schema),
		Tier:        catalog.TierSafe,
		Connected:   true,
	}
}

// Server is the catalog entry the memory stands under.
func Server() catalog.Server {
	return catalog.Server{ID: ServerID, Title: Title, Past: true, Connected: true,
		Instructions: "Searches everything said in past conversations and the wiki."}
}

// callArgs are the tool's arguments.
type callArgs struct {
	Action string `json:"action"`
	Query  string `json:"query"`
	Chat   string `json:"chat"`
	Since  string `json:"since"`
	Until  string `json:"until"`
	Limit  int    `json:"limit"`
}

// Run runs one call for the agent runtime (agents.Runner).
func (m *Memory) Run(ctx context.Context, c catalog.Call) (catalog.Output, error) {
	text, err := m.Call(ctx, c.Args, c.Chat)
	return catalog.Output{Text: text}, err
}

// Call runs one call with its arguments; chat is the chat the call came
// from, which "recent" reads by default. Errors are EINVALID when the
// model can correct its arguments; their messages are written for it.
func (m *Memory) Call(ctx context.Context, args json.RawMessage, chat string) (string, error) {
	a, err := parseArgs(args)
	if err != nil {
		return "", err
	}
	f := store.RecallFilter{Chat: strings.TrimSpace(a.Chat), Limit: a.Limit}
	if f.Since, err = ParseDate(a.Since, m.Location); err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "since: %w", err)
	}
	if f.Until, err = ParseDate(a.Until, m.Location); err != nil {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "until: %w", err)
	}
	switch a.Action {
	case "search":
		if strings.TrimSpace(a.Query) == "" {
			return "", jarvisbot.Errorf(jarvisbot.EINVALID, `search needs the field "query": the words to look for`)
		}
		hits, err := m.Recall.Search(ctx, a.Query, f)
		if err != nil {
			return "", err
		}
		if len(hits) == 0 {
			return fmt.Sprintf("nothing said matches %q", a.Query), nil
		}
		return fmt.Sprintf("%d %s for %q, best first:\n%s", len(hits), plural(len(hits)), a.Query, Lines(hits, m.Location)), nil
	case "recent":
		if f.Chat == "" {
			f.Chat = chat
		}
		hits, err := m.Recall.Recent(ctx, f)
		if err != nil {
			return "", err
		}
		if len(hits) == 0 {
			return fmt.Sprintf("no messages in %s", cmp.Or(f.Chat, "any chat")), nil
		}
		return fmt.Sprintf("the latest %d %s, newest first:\n%s", len(hits), pluralMsg(len(hits)), Lines(hits, m.Location)), nil
	case "":
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, `missing field "action": search or recent`)
	}
	return "", jarvisbot.Errorf(jarvisbot.EINVALID, "unknown action %q: use search or recent", a.Action)
}

// Lines renders hits one a line: date, chat (or wiki note), who, snippet.
func Lines(hits []store.RecallHit, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	var b strings.Builder
	for i, h := range hits {
		where := h.Chat
		if h.Kind == store.RecallNote {
			where = "wiki note " + h.Ref
		}
		fmt.Fprintf(&b, "%d. %s %s %s: %s\n", i+1, h.At.In(loc).Format("2006-01-02 15:04"), where, h.Who, h.Snippet)
	}
	return b.String()
}

// ParseDate reads a date of the owner's (YYYY-MM-DD, in loc) or an RFC 3339
// time; "" is the zero time.
func ParseDate(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if loc == nil {
		loc = time.UTC
	}
	if t, err := time.ParseInLocation("2006-01-02", s, loc); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not a date: write it as YYYY-MM-DD (2026-10-01) or as an RFC 3339 time", s)
}

// parseArgs decodes and checks the arguments object. Unknown fields are
// refused so that a misspelt field is reported, not ignored.
func parseArgs(raw json.RawMessage) (callArgs, error) {
	var a callArgs
	if err := native.Decode(raw, &a); err != nil {
		return a, err
	}
	a.Action = strings.ToLower(strings.TrimSpace(a.Action))
	switch {
	case a.Action == "":
		return a, jarvisbot.Errorf(jarvisbot.EINVALID, `the memory needs an action, such as {"action":"search","query":"landlord"}`)
	case a.Limit < 0:
		return a, jarvisbot.Errorf(jarvisbot.EINVALID, "limit %d is negative: give a number from 1 to %d, or leave it out", a.Limit, maxLimit)
	case a.Limit > maxLimit:
		a.Limit = maxLimit
	}
	return a, nil
}

// Describe says what a call will do, for an approval request when the
// owner raised the memory's tier.
func (m *Memory) Describe(_ context.Context, c catalog.Call) (catalog.Description, bool) {
	a, err := parseArgs(c.Args)
	if err != nil {
		return catalog.Description{}, false
	}
	switch a.Action {
	case "search":
		d := catalog.Description{What: "Search what was said", Lines: []catalog.Line{{Label: "Words", Value: a.Query}}}
		if a.Chat != "" {
			d.Lines = append(d.Lines, catalog.Line{Label: "Chat", Value: a.Chat})
		}
		return d, true
	case "recent":
		return catalog.Description{What: "Read the latest messages of " + cmp.Or(a.Chat, "this chat")}, true
	}
	return catalog.Description{}, false
}

func plural(n int) string {
	if n == 1 {
		return "hit"
	}
	return "hits"
}

func pluralMsg(n int) string {
	if n == 1 {
		return "message"
	}
	return "messages"
}
